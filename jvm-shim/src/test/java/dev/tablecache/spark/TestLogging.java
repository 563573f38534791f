package dev.tablecache.spark;

/** Points log4j2 at the quiet test configuration before Spark initializes logging. */
public final class TestLogging {

  private static final String PROPERTY = "log4j2.configurationFile";

  private TestLogging() {}

  public static void quiet() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, "classpath:dev/tablecache/spark/log4j2-spark-tests.properties");
    }
  }
}
