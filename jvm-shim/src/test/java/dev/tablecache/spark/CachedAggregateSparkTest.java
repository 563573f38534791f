package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.plan.CachedAggregateRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.RDDScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Global {@code count}/{@code min}/{@code max} over a cache, answered per batch from stats and
 * decoded columns ({@link CachedAggregateRule}), equal uncached Spark for every type, including
 * NaN, signed zeros, strings longer than the bound limit, all-null and empty batches, frames
 * without stats and both older formats; and the rule steps aside where it cannot answer.
 */
@Tag("spark")
@Tag("jvm-independent") // a query matrix: JUnit runs it on each line's Java 17 only
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CachedAggregateSparkTest {

  /** Columns whose min and max the rule answers. */
  private static final List<String> ANSWERED =
      Arrays.asList(
          "id", "b", "by", "sh", "i", "l", "f", "d", "s", "dec1", "dec2", "dt", "ts", "tsn",
          "allnull", "allnull_s");

  /**
   * Signed zeros in one partition: Spark's min and max keep the first of equal values, so each
   * result says which zero came first; the stats store either zero as +0.0. In the first batch
   * the first zero of d and f differs from the last one.
   */
  private static final String ZEROS =
      "SELECT CASE WHEN id % 3 = 0 THEN -7.5D WHEN id % 2 = 0 THEN -0.0D ELSE 0.0D END AS d,"
          + " CASE WHEN id % 4 = 1 THEN CAST(-0.0 AS FLOAT) WHEN id % 4 = 2 THEN CAST(0.0 AS FLOAT)"
          + "      ELSE CAST(2.5 AS FLOAT) END AS f,"
          // Not a CASE of two zero literals: the optimizer folds those to one (they are equal).
          + " CAST(id AS DOUBLE) * 0.0D * CASE WHEN id < 150 THEN 1.0D ELSE -1.0D END AS d2"
          + " FROM range(0, 300, 1, 1)";

  /**
   * Few distinct strings, which V4 stores as a string dictionary and reads as keys over entries:
   * nulls, '', unicode above ASCII, and a largest value that only the first rows hold.
   */
  private static final String FEW_STRINGS =
      "SELECT CASE WHEN id % 7 = 3 THEN NULL WHEN id % 5 = 0 THEN '' WHEN id % 5 = 1 THEN 'ünï'"
          + " WHEN id % 5 = 2 THEN 'zebra' WHEN id < 40 THEN '\uD83D\uDE00' ELSE 'apple' END AS w,"
          + " CASE WHEN id % 2 = 0 THEN NULL ELSE 'only' END AS w2"
          + " FROM range(0, 3000, 1, 2)";

  private SparkSession spark;
  private final Map<String, List<String>> expected = new LinkedHashMap<>();
  private final List<String> answered = new ArrayList<>();
  private final List<String> notAnswered = new ArrayList<>();

  @BeforeAll
  void start() {
    spark = SparkTestSupport.start("cached-aggregates");
    Dataset<Row> all = TestTables.allTypes(spark);
    all.createOrReplaceTempView("t");
    spark.sql(ZEROS).createOrReplaceTempView("z");
    spark.sql(FEW_STRINGS).createOrReplaceTempView("few");
    for (String c : ANSWERED) {
      answered.add("SELECT min(" + c + "), max(" + c + "), count(" + c + "), count(*) FROM t");
    }
    answered.add("SELECT count(*) FROM t");
    answered.add("SELECT count(bin), count(arr), count(m), count(st), count(nul), count(1) FROM t");
    answered.add("SELECT max(d), min(f), max(s), min(s), max(dec2), min(ts), count(*) FROM t");
    answered.add("SELECT min(d), max(d), min(f), max(f), min(d2), max(d2) FROM z");
    answered.add("SELECT CAST(min(d) AS STRING), CAST(max(f) AS STRING), max(d2) + 1 FROM z");
    answered.add("SELECT min(w), max(w), count(w), min(w2), max(w2), count(*) FROM few");
    notAnswered.add("SELECT max(l) FROM t WHERE i > 0");
    notAnswered.add("SELECT b, max(l), count(*) FROM t GROUP BY b");
    notAnswered.add("SELECT max(l), min(bin) FROM t");
    notAnswered.add("SELECT max(l), sum(by) FROM t");
    notAnswered.add("SELECT count(DISTINCT by) FROM t");
    notAnswered.add("SELECT max(by + 1) FROM t");
    notAnswered.add("SELECT max(dti), min(ymi) FROM t");
    if (Arrays.asList(all.columns()).contains("s_lc")) {
      // A collation that does not order as bytes (Spark 4): byte-wise extremes would be wrong.
      notAnswered.add("SELECT min(s_lc), max(s_lc) FROM t");
    }
    for (String q : answered) {
      expected.put(q, SparkTestSupport.rows(spark, q));
    }
    for (String q : notAnswered) {
      expected.put(q, SparkTestSupport.rows(spark, q));
    }
  }

  @AfterAll
  void stop() {
    SparkTestSupport.stop(spark);
  }

  @AfterEach
  void uncache() {
    spark.catalog().clearCache();
    for (String k :
        Arrays.asList(
            "spark.tablecache.stats",
            "spark.tablecache.format",
            "spark.tablecache.aggregatesFromStats",
            "spark.sql.adaptive.enabled")) {
      spark.conf().unset(k);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"v4", "v4-no-stats", "v3", "v3-no-stats", "v2", "legacy", "v3-no-aqe"})
  void aggregatesEqualUncached(String mode) {
    spark.conf().set("spark.tablecache.format", mode.split("-")[0]);
    spark.conf().set("spark.tablecache.stats", String.valueOf(!mode.endsWith("-no-stats")));
    if (mode.equals("v3-no-aqe")) {
      spark.conf().set("spark.sql.adaptive.enabled", "false");
    }
    cacheViews();
    for (String q : answered) {
      Dataset<Row> df = spark.sql(q);
      SparkTestSupport.assertSameRows(expected.get(q), SparkTestSupport.rows(df), mode + ": " + q);
      assertTrue(answeredFromCache(df), mode + ": not answered from the cache's batches: " + q);
    }
    for (String q : notAnswered) {
      Dataset<Row> df = spark.sql(q);
      SparkTestSupport.assertSameRows(expected.get(q), SparkTestSupport.rows(df), mode + ": " + q);
      assertFalse(answeredFromCache(df), mode + ": answered from the cache's batches: " + q);
    }
    // Batches decoded by any of a task's decoders (one per set of columns) are all freed.
    assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum(), "decoded batches still live");
  }

  @Test
  void boundsAnswerWithoutDecoding() {
    cacheViews();
    String q = "SELECT min(l), max(l), min(dec2), max(i), count(s), count(*) FROM t";
    spark.sql(q).collectAsList(); // builds the cache
    long decoded = TableCacheMetrics.BATCHES_DECODED.sum();
    long fromStats = TableCacheMetrics.BATCHES_FROM_STATS.sum();
    List<String> rows = SparkTestSupport.rows(spark, q);
    assertEquals(0L, TableCacheMetrics.BATCHES_DECODED.sum() - decoded, "batches decoded");
    assertTrue(TableCacheMetrics.BATCHES_FROM_STATS.sum() > fromStats, "no batch from stats");
    spark.catalog().clearCache();
    assertEquals(SparkTestSupport.rows(spark, q), rows);
  }

  @Test
  void switchedOffPerSession() {
    cacheViews();
    spark.conf().set("spark.tablecache.aggregatesFromStats", "false");
    String q = answered.get(0);
    Dataset<Row> df = spark.sql(q);
    SparkTestSupport.assertSameRows(expected.get(q), SparkTestSupport.rows(df), q);
    assertFalse(answeredFromCache(df));
  }

  @Test
  void otherSerializersCachesAreLeftAlone() {
    SparkTestSupport.stop(spark);
    spark =
        SparkTestSupport.start(
            "cached-aggregates-default",
            SparkTestSupport.conf(
                "spark.sql.cache.serializer",
                "org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer"));
    try {
      TestTables.allTypes(spark).createOrReplaceTempView("t");
      spark.table("t").cache();
      String q = answered.get(0);
      Dataset<Row> df = spark.sql(q);
      SparkTestSupport.assertSameRows(expected.get(q), SparkTestSupport.rows(df), q);
      assertFalse(answeredFromCache(df));
    } finally {
      SparkTestSupport.stop(spark);
      start();
    }
  }

  private void cacheViews() {
    spark.table("t").cache();
    spark.table("z").cache();
    spark.table("few").cache();
  }

  private static boolean answeredFromCache(Dataset<Row> df) {
    return SparkTestSupport.findPlan(
            SparkLineSupport.classic(df).queryExecution().executedPlan(),
            p -> p instanceof RDDScanExec && p.nodeName().contains("tablecache partial aggregates"))
        != null;
  }
}
