package dev.tablecache;

import java.util.Locale;

/**
 * The one size switch of the long-running suites (mutation, soak, 16-thread concurrency): CI-sized
 * by default, full-sized when the environment variable {@value #ENV} is {@code full}. Surefire
 * passes the parent environment to its forked JVMs, so {@code TABLECACHE_TEST_SCALE=full
 * ./scripts/test.sh} reaches every suite; the system property {@value #PROPERTY} overrides it (for
 * IDE runs).
 */
public final class TestScale {

  static final String ENV = "TABLECACHE_TEST_SCALE";
  static final String PROPERTY = "tablecache.test.scale";

  private static final boolean FULL = "full".equals(configured());

  private TestScale() {}

  private static String configured() {
    String v = System.getProperty(PROPERTY);
    if (v == null || Java8.isBlank(v)) {
      v = System.getenv(ENV);
    }
    return v == null ? "" : v.trim().toLowerCase(Locale.ROOT);
  }

  public static boolean full() {
    return FULL;
  }

  /** "full" or "smoke", for reports. */
  public static String name() {
    return FULL ? "full" : "smoke";
  }

  public static int pick(int smoke, int full) {
    return FULL ? full : smoke;
  }

  public static long pick(long smoke, long full) {
    return FULL ? full : smoke;
  }
}
