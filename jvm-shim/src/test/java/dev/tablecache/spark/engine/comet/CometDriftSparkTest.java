package dev.tablecache.spark.engine.comet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Java8;
import dev.tablecache.spark.CapturedLog;
import dev.tablecache.spark.SparkTestSupport;
import java.io.InputStream;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.xbean.asm9.ClassReader;
import org.apache.xbean.asm9.ClassWriter;
import org.apache.xbean.asm9.commons.ClassRemapper;
import org.apache.xbean.asm9.commons.SimpleRemapper;
import org.codehaus.janino.SimpleCompiler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Comet version drift: the zero-copy read is written against Comet 1.2's internals. A Comet whose
 * internals differ must keep its own copying conversion, say so in one INFO line and answer the
 * query. Comet itself is built for Spark 4.1 and is not on this suite's classpath (the Comet e2e
 * suite runs the real one), so each test builds a Comet of another API: a class named as Comet's
 * conversion ({@code org.apache.spark.sql.comet.CometSparkToColumnarExec}: here Spark's own
 * row-to-columnar conversion, scalac's class file renamed with the ASM that Spark ships) in a
 * class loader of its own.
 */
class CometDriftSparkTest {

  /** Comet 1.2's Arrow stream helper, with the signature the adapter calls. */
  private static final String STREAM_SOURCE =
      "package org.apache.spark.sql.comet.execution.arrow;\n"
          + "public final class CometArrowStream$ {\n"
          + "  public static final CometArrowStream$ MODULE$ = new CometArrowStream$();\n"
          + "  public String NATIVE_TIMEZONE() { return \"UTC\"; }\n"
          + "  public org.apache.spark.rdd.RDD wrapColumnarBatchRDD(org.apache.spark.rdd.RDD rdd,\n"
          + "      org.apache.spark.sql.types.StructType schema, String timeZone, String name) {\n"
          + "    return rdd;\n"
          + "  }\n"
          + "}\n";

  private static SparkSession spark;
  private CapturedLog log;

  @BeforeAll
  static void start() {
    spark = SparkTestSupport.start("comet-drift");
  }

  @AfterAll
  static void stop() {
    SparkTestSupport.stop(spark);
  }

  @BeforeEach
  void captureLog() {
    log = CapturedLog.attach(CometScanAdapter.class.getName());
  }

  @AfterEach
  void releaseLog() {
    log.detach();
  }

  @Test
  void cometWithoutTheArrowStreamApiKeepsItsConversion() throws Exception {
    ClassLoader comet = renamedConversion(getClass().getClassLoader());
    assertKeepsCometsConversion(comet, "conversion API differs");
  }

  @Test
  void cometWithoutTheArrowImportApiKeepsItsConversion() throws Exception {
    // The adapter compiles against this Comet (its conversion and stream helper fit), but the
    // Arrow classes the decoder hands batches through (Comet's allocator, CometVector) are gone.
    SimpleCompiler streams = new SimpleCompiler();
    streams.setParentClassLoader(getClass().getClassLoader());
    streams.cook(STREAM_SOURCE);
    ClassLoader comet = renamedConversion(streams.getClassLoader());
    assertKeepsCometsConversion(comet, "Arrow API");
  }

  private void assertKeepsCometsConversion(ClassLoader comet, String reason) throws Exception {
    Dataset<Row> table =
        spark.range(0, 1000).selectExpr("id", "id * 2 AS v", "CAST(id AS STRING) AS s");
    table.cache().count();
    try {
      InMemoryTableScanExec scan = SparkTestSupport.cacheScan(table.select("id", "v", "s"));
      assertNotNull(scan);
      assertTrue(scan.supportsColumnar(), "a columnar scan of our cache");
      SparkPlan conversion =
          (SparkPlan)
              comet
                  .loadClass("org.apache.spark.sql.comet.CometSparkToColumnarExec")
                  .getConstructor(SparkPlan.class)
                  .newInstance(scan);

      assertNull(CometScanAdapter.replace(conversion));
      assertNull(CometScanAdapter.replace(conversion), "the second plan too");

      // Through the planner rule, in a session that runs "Comet": the plan is left as it is, so
      // Comet's own conversion reads the cache (the fake's tasks cannot run here: its classes
      // live in a loader that Spark's executor does not know).
      SQLConf conf = spark.sessionState().conf();
      conf.setConfString("spark.plugins", "org.apache.spark.CometPlugin");
      conf.setConfString("spark.comet.enabled", "true");
      SparkPlan planned;
      try {
        planned = new CometCacheScanRule(spark).apply(conversion);
      } finally {
        conf.unsetConf("spark.plugins");
        conf.unsetConf("spark.comet.enabled");
      }
      assertSame(conversion, planned);
      List<String> lines = log.lines();
      assertEquals(1, lines.size(), "one INFO line per Comet class loader: " + lines);
      assertTrue(lines.get(0).startsWith("INFO tablecache: Comet reads of our caches keep Comet's"
          + " copying conversion"), lines.get(0));
      assertTrue(lines.get(0).contains(reason), lines.get(0));
    } finally {
      table.unpersist(true);
    }
  }

  /**
   * A class loader (over {@code parent}) that holds Spark's {@code RowToColumnarExec} under the
   * name of Comet's conversion: a real scalac-compiled plan class, with none of Comet 1.2's API.
   */
  private static ClassLoader renamedConversion(ClassLoader parent) throws Exception {
    String from = "org/apache/spark/sql/execution/RowToColumnarExec";
    String to = "org/apache/spark/sql/comet/CometSparkToColumnarExec";
    byte[] original;
    try (InputStream in = parent.getResourceAsStream(from + ".class")) {
      assertNotNull(in, from);
      original = Java8.readAllBytes(in);
    }
    ClassWriter out = new ClassWriter(0);
    new ClassReader(original).accept(new ClassRemapper(out, new SimpleRemapper(from, to)), 0);
    byte[] renamed = out.toByteArray();
    return new ClassLoader(parent) {
      @Override
      protected Class<?> findClass(String name) throws ClassNotFoundException {
        if (name.equals(to.replace('/', '.'))) {
          return defineClass(name, renamed, 0, renamed.length);
        }
        throw new ClassNotFoundException(name);
      }
    };
  }
}
