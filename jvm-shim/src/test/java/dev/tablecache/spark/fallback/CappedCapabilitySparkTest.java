package dev.tablecache.spark.fallback;

import static dev.tablecache.spark.SparkTestSupport.assertSameRows;
import static dev.tablecache.spark.SparkTestSupport.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tablecache.jni.Capability;
import dev.tablecache.spark.DifferentialSparkTest;
import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.SparkLineSupport;
import dev.tablecache.spark.SparkTestSupport;
import dev.tablecache.spark.TestTables;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.columnar.DefaultCachedBatch;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Runs in its own JVM per capability (surefire executions cap-v3, cap-v2, cap-legacy,
 * cap-unavailable set -Dtablecache.capability.max or point -Dtablecache.native.path at a missing
 * file): an older or missing native library still answers every query correctly. Capped to V3, V2
 * or legacy, frames of that format are written, by default and when V4 is asked for; without a
 * library Spark's default serializer does the work.
 */
@Tag("cap-v3")
@Tag("cap-v2")
@Tag("cap-legacy")
@Tag("cap-unavailable")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CappedCapabilitySparkTest {

  private SparkSession spark;
  private Dataset<Row> table;
  private Capability capability;
  private final Map<Integer, List<String>> expected = new java.util.TreeMap<>();

  @BeforeAll
  void startSpark() {
    capability = Capability.current();
    spark = SparkTestSupport.start("capped-" + capability);
    table = TestTables.allTypes(spark);
    table.createOrReplaceTempView("t");
    for (List<TestTables.Query> chunk : TestTables.chunks(queries(), DifferentialSparkTest.CHUNK)) {
      expected.putAll(SparkTestSupport.tagged(spark, TestTables.union(chunk)));
    }
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  /**
   * Every third differential query plus the NaN-sensitive ones; without the library, less the
   * NaN-sensitive ones, which Spark's own default serializer answers wrongly (it prunes batches
   * holding NaN for d = NaN: a Spark bug, not ours).
   */
  private List<TestTables.Query> queries() {
    List<TestTables.Query> out = new ArrayList<>();
    for (TestTables.Query q : TestTables.queries()) {
      boolean picked = q.number % 3 == 0 || q.nanSensitive;
      if (picked && !(capability == Capability.UNAVAILABLE && q.nanSensitive)) {
        out.add(q);
      }
    }
    return out;
  }

  @TestFactory
  Stream<DynamicNode> cachedEqualsUncached() {
    List<DynamicNode> tests = new ArrayList<>();
    tests.add(
        DynamicTest.dynamicTest(
            "cache",
            () -> {
              table.persist();
              assertEquals(1240L, table.count());
            }));
    for (List<TestTables.Query> chunk : TestTables.chunks(queries(), DifferentialSparkTest.CHUNK)) {
      tests.add(
          DynamicTest.dynamicTest(
              TestTables.label(chunk),
              () ->
                  SparkTestSupport.assertSameTagged(
                      chunk,
                      expected,
                      SparkTestSupport.tagged(spark, TestTables.union(chunk)),
                      capability.toString())));
    }
    tests.add(DynamicTest.dynamicTest("uncache", () -> table.unpersist(true)));
    return tests.stream();
  }

  /** The default format (v3), then the newest (v4): each falls back to what the library can. */
  @Test
  void writesTheFormatTheLibraryCan() {
    for (String asked : new String[] {null, "v4"}) {
      if (asked != null) {
        spark.conf().set("spark.tablecache.format", asked);
      }
      try {
        writesTheFormatTheLibraryCan(asked == null ? "the default format" : asked);
      } finally {
        spark.conf().unset("spark.tablecache.format");
      }
    }
  }

  private void writesTheFormatTheLibraryCan(String asked) {
    long v4 = TableCacheMetrics.FRAMES_WRITTEN_V4.sum();
    long v3 = TableCacheMetrics.FRAMES_WRITTEN_V3.sum();
    long v2 = TableCacheMetrics.FRAMES_WRITTEN_V2.sum();
    long legacy = TableCacheMetrics.FRAMES_WRITTEN_LEGACY.sum();
    Dataset<Row> df = spark.sql("SELECT * FROM t WHERE id < 1500");
    df.persist();
    df.count();
    long dv4 = TableCacheMetrics.FRAMES_WRITTEN_V4.sum() - v4;
    long dv3 = TableCacheMetrics.FRAMES_WRITTEN_V3.sum() - v3;
    long dv2 = TableCacheMetrics.FRAMES_WRITTEN_V2.sum() - v2;
    long dlegacy = TableCacheMetrics.FRAMES_WRITTEN_LEGACY.sum() - legacy;
    CachedBatch first = firstBatch(df);
    String what = capability + ", " + asked + " asked: " + TableCacheMetrics.summary();
    switch (capability) {
      case V4: // the full library, outside these capped JVMs
        boolean v4Asked = "v4".equals(asked);
        assertTrue(
            (v4Asked ? dv4 > 0 && dv3 == 0 : dv4 == 0 && dv3 > 0) && dv2 == 0 && dlegacy == 0,
            what);
        assertInstanceOf(NativeCachedBatch.class, first);
        break;
      case V3:
        assertTrue(dv4 == 0 && dv3 > 0 && dv2 == 0 && dlegacy == 0, what);
        assertInstanceOf(NativeCachedBatch.class, first);
        break;
      case V2:
        assertTrue(dv4 == 0 && dv3 == 0 && dv2 > 0 && dlegacy == 0, what);
        assertInstanceOf(NativeCachedBatch.class, first);
        break;
      case LEGACY:
        assertTrue(dv4 == 0 && dv3 == 0 && dv2 == 0 && dlegacy > 0, what);
        assertInstanceOf(NativeCachedBatch.class, first);
        break;
      default:
        assertTrue(dv4 == 0 && dv3 == 0 && dv2 == 0 && dlegacy == 0, what);
        assertInstanceOf(DefaultCachedBatch.class, first, "Spark's default serializer");
        assertTrue(Fallback.warnedUnavailable(), "one warning with the cause");
    }
    df.unpersist(true);
  }

  @Test
  void pruningFollowsTheStatsAvailable() {
    String q = "SELECT id, s FROM t WHERE id BETWEEN 1300 AND 1305";
    List<String> want = rows(spark, q);
    table.persist();
    table.count();
    long pruned = TableCacheMetrics.BATCHES_PRUNED.sum();
    long kept = TableCacheMetrics.BATCHES_KEPT.sum();
    assertSameRows(want, rows(spark, q), q);
    long dp = TableCacheMetrics.BATCHES_PRUNED.sum() - pruned;
    long dk = TableCacheMetrics.BATCHES_KEPT.sum() - kept;
    switch (capability) {
      case V4:
      case V3:
      case V2:
        assertTrue(dp == 12 && dk == 1, "pruned " + dp + ", kept " + dk);
        break;
      case LEGACY: // no stats: every batch is scanned
        assertTrue(dp == 0 && dk == 13, "pruned " + dp + ", kept " + dk);
        break;
      default: // Spark's default serializer prunes with its own filter
        assertTrue(dp == 0 && dk == 0, "pruned " + dp + ", kept " + dk);
    }
    table.unpersist(true);
  }

  @Test
  void failSettingRefusesToFallBack() {
    assumeTrue(capability == Capability.UNAVAILABLE, "only without a native library");
    spark.conf().set("spark.tablecache.onUnavailable", "fail");
    try {
      Dataset<Row> df = spark.sql("SELECT id FROM range(5)");
      Exception e = assertThrows(Exception.class, () -> df.persist().count());
      Throwable t = e;
      while (!(t instanceof IllegalStateException) && t.getCause() != null) {
        t = t.getCause();
      }
      assertInstanceOf(IllegalStateException.class, t, e.toString());
      assertTrue(t.getMessage().contains("native library is unavailable"), t.getMessage());
      df.unpersist(true);
    } finally {
      spark.conf().unset("spark.tablecache.onUnavailable");
    }
  }

  private CachedBatch firstBatch(Dataset<Row> df) {
    InMemoryRelation rel = SparkTestSupport.cachedRelation(spark, df);
    return rel.cacheBuilder().cachedColumnBuffers().first();
  }
}
