package dev.tablecache.spark;

import static dev.tablecache.spark.SparkTestSupport.rows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.jni.NativeCodec;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.List;
import java.util.concurrent.atomic.LongAccumulator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Batch pruning really skips batches (counted by decoded batches), decoded native memory is
 * released batch by batch, and unpersist releases the cache. The table has 10,000 rows in two
 * partitions and batches of 100 rows: 100 batches with contiguous id ranges.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PruningSparkTest {

  private static final int BATCHES = 100;
  private static final String VECTORIZED = "spark.sql.inMemoryColumnarStorage.enableVectorizedReader";

  /** Max decoded-and-unreleased batches seen by the probe UDF (JVM-wide, local mode). */
  static final LongAccumulator MAX_LIVE = new LongAccumulator(Math::max, 0);

  private SparkSession spark;
  private Dataset<Row> table;

  @BeforeAll
  void startSpark() {
    spark = SparkTestSupport.start("pruning");
    spark
        .udf()
        .register(
            "probe_live",
            (UDF1<Long, Boolean>)
                id -> {
                  MAX_LIVE.accumulate(TableCacheMetrics.LIVE_DECODED_BATCHES.sum());
                  return true;
                },
            DataTypes.BooleanType);
    table =
        spark.sql(
            "SELECT id,"
                + " CASE WHEN id BETWEEN 700 AND 709 THEN NULL ELSE CAST(id AS INT) END AS i,"
                + " CASE WHEN id BETWEEN 5000 AND 5009 THEN double('NaN') ELSE id * 1.0 END AS d,"
                + " lpad(CAST(id AS STRING), 5, '0') AS s,"
                + " CASE WHEN id BETWEEN 3300 AND 3399 OR id BETWEEN 7700 AND 7709 THEN NULL"
                + "      ELSE CAST(CAST(id AS STRING) AS BINARY) END AS bin,"
                + " make_dt_interval(CAST(id % 5 AS INT), 0, 0, 0) AS dti,"
                + " named_struct('x', id) AS st"
                + " FROM range(0, 10000, 1, 2)");
    table.createOrReplaceTempView("p");
    // uncached answers first
    for (String q : QUERIES) {
      expected.put(q, rows(spark, q));
    }
  }

  private static final String[] QUERIES = {
    "SELECT * FROM p WHERE id = 4242",
    "SELECT id, d FROM p WHERE d = double('NaN')",
    "SELECT id FROM p WHERE isnan(d)",
    "SELECT id FROM p WHERE d > 9990",
    "SELECT id FROM p WHERE d < 0",
    "SELECT count(*) FROM p WHERE id BETWEEN 150 AND 349",
    "SELECT s FROM p WHERE s LIKE '0042%'",
    "SELECT s FROM p WHERE s IN ('00005', '09999')",
    "SELECT id FROM p WHERE i IS NULL",
    "SELECT id FROM p WHERE bin IS NULL",
    "SELECT count(*) FROM p WHERE bin IS NOT NULL",
    "SELECT id FROM p WHERE id < 50 OR id > 9949",
    "SELECT id FROM p WHERE id < 50 OR dti > INTERVAL '3' DAY",
    "SELECT id FROM p WHERE st.x = 5",
  };

  private final java.util.Map<String, List<String>> expected = new java.util.HashMap<>();

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  @AfterEach
  void cleanUp() {
    spark.conf().unset(VECTORIZED);
    spark.conf().unset("spark.tablecache.stats");
    spark.conf().unset("spark.tablecache.format");
  }

  /** Caches the table with the default settings unless it already is. */
  private void ensureCached() {
    if (spark.sharedState().cacheManager().lookupCachedData(SparkLineSupport.classic(table)).isEmpty()) {
      cache();
    }
  }

  private void cache() {
    long before = DifferentialSparkTest.framesWritten();
    table.persist(StorageLevel.MEMORY_ONLY());
    assertEquals(10000L, table.count());
    assertEquals(BATCHES, DifferentialSparkTest.framesWritten() - before, "batches written");
  }

  /** Runs {@code sql} on the cache; returns {rows, batches decoded}; checks the uncached rows. */
  private long[] run(String sql, List<String> expected) {
    long decoded = TableCacheMetrics.BATCHES_DECODED.sum();
    long pruned = TableCacheMetrics.BATCHES_PRUNED.sum();
    List<String> actual = rows(spark, sql);
    long d = TableCacheMetrics.BATCHES_DECODED.sum() - decoded;
    long p = TableCacheMetrics.BATCHES_PRUNED.sum() - pruned;
    SparkTestSupport.assertSameRows(expected, actual, sql);
    assertEquals(BATCHES, d + p, "every batch is either pruned or decoded: " + sql);
    assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum(), "released after " + sql);
    assertEquals(0L, NativeCodec.allocationStats()[0], "native column handles after " + sql);
    return new long[] {actual.size(), d};
  }

  @ParameterizedTest(name = "[{index}] {0} → {1} rows, {2} batches decoded (vectorized={3})")
  @CsvSource(
      delimiter = '|',
      value = {
        "SELECT * FROM p WHERE id = 4242 | 1 | 1 | true",
        "SELECT id, d FROM p WHERE d = double('NaN') | 10 | 1 | true",
        "SELECT id FROM p WHERE isnan(d) | 10 | 1 | true",
        "SELECT id FROM p WHERE d > 9990 | 19 | 2 | true",
        "SELECT id FROM p WHERE d < 0 | 0 | 0 | true",
        "SELECT count(*) FROM p WHERE id BETWEEN 150 AND 349 | 1 | 3 | true",
        "SELECT s FROM p WHERE s LIKE '0042%' | 10 | 1 | true",
        "SELECT s FROM p WHERE s IN ('00005', '09999') | 2 | 2 | true",
        "SELECT id FROM p WHERE i IS NULL | 10 | 1 | true",
        "SELECT id FROM p WHERE bin IS NULL | 110 | 2 | true",
        "SELECT count(*) FROM p WHERE bin IS NOT NULL | 1 | 99 | true",
        "SELECT id FROM p WHERE id < 50 OR id > 9949 | 100 | 2 | true",
        "SELECT id FROM p WHERE id < 50 OR dti > INTERVAL '3' DAY | 2040 | 100 | true",
        "SELECT id FROM p WHERE st.x = 5 | 1 | 100 | true",
      })
  void pruningSkipsBatches(String sql, long rows, long decoded, boolean vectorized) {
    ensureCached();
    spark.conf().set(VECTORIZED, Boolean.toString(vectorized));
    long[] r = run(sql, expected.get(sql));
    assertArrayEquals(new long[] {rows, decoded}, r, sql + " → {rows, decoded}");
  }

  @ParameterizedTest(name = "stats off ({0}) scans every batch")
  @ValueSource(strings = {"stats-off", "legacy"})
  void noStatsNoPruning(String mode) {
    String sql = "SELECT * FROM p WHERE id = 4242";
    table.unpersist(true);
    if (mode.equals("legacy")) {
      spark.conf().set("spark.tablecache.format", "legacy");
    } else {
      spark.conf().set("spark.tablecache.stats", "false");
    }
    cache();
    assertArrayEquals(new long[] {1, BATCHES}, run(sql, expected.get(sql)));
    table.unpersist(true);
  }

  @Test
  void decodedBatchesAreReleasedOneByOne() {
    ensureCached();
    MAX_LIVE.reset();
    long decoded = TableCacheMetrics.BATCHES_DECODED.sum();
    assertEquals(10000L, spark.sql("SELECT id FROM p WHERE probe_live(id)").count());
    assertEquals(BATCHES, TableCacheMetrics.BATCHES_DECODED.sum() - decoded);
    long maxLive = MAX_LIVE.get();
    // Two tasks run at once (local[2]); each holds at most the batch it is reading.
    assertTrue(maxLive >= 1 && maxLive <= 2, "max live decoded batches " + maxLive);
    assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum());
    assertEquals(0L, NativeCodec.allocationStats()[0]);
  }

  @Test
  void unpersistClosesEveryBatch() {
    ensureCached();
    assertEquals(1, SparkTestSupport.storageInfo(spark).length);
    long closed = TableCacheMetrics.BATCHES_CLOSED.sum();
    table.unpersist(true);
    assertEquals(BATCHES, TableCacheMetrics.BATCHES_CLOSED.sum() - closed, "batches closed");
    assertEquals(0, SparkTestSupport.storageInfo(spark).length);
    assertTrue(spark.sparkContext().getPersistentRDDs().isEmpty());
  }

  @Test
  void emptyProjectionNeedsNoDecode() {
    ensureCached();
    long decoded = TableCacheMetrics.BATCHES_DECODED.sum();
    long rowsOnly = TableCacheMetrics.BATCHES_ROWS_ONLY.sum();
    assertEquals(10000L, spark.sql("SELECT count(*) FROM p").first().getLong(0));
    assertEquals(0L, TableCacheMetrics.BATCHES_DECODED.sum() - decoded);
    assertTrue(TableCacheMetrics.BATCHES_ROWS_ONLY.sum() - rowsOnly > 0);
  }
}
