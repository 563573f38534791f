package dev.tablecache.spark;

import static dev.tablecache.spark.SparkTestSupport.assertSameRows;
import static dev.tablecache.spark.SparkTestSupport.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CACHE TABLE / UNCACHE TABLE, AQE over cached plans, columnar input (Arrow zero copy from a
 * cache of a cache, and coalesced copies of Parquet's on-heap batches) and configuration errors.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CacheLifecycleSparkTest {

  private SparkSession spark;

  @BeforeAll
  void startSpark() {
    spark = SparkTestSupport.start("lifecycle");
    TestTables.allTypes(spark).createOrReplaceTempView("t");
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  @AfterEach
  void clear() {
    spark.catalog().clearCache();
    for (String k :
        Arrays.asList(
            "spark.tablecache.batchRows",
            "spark.tablecache.zeroCopyMinRows",
            "spark.tablecache.codec",
            "spark.tablecache.encoding",
            "spark.tablecache.format",
            "spark.sql.parquet.columnarReaderBatchSize",
            "spark.sql.adaptive.enabled")) {
      spark.conf().unset(k);
    }
  }

  @Test
  void cacheTableAndUncacheTable() {
    String q = "SELECT id, s, d, dec1 FROM c WHERE s LIKE 'k01%' OR d = double('NaN')";
    spark.sql("CREATE OR REPLACE TEMP VIEW c AS SELECT * FROM t WHERE id > 100");
    List<String> expected = rows(spark, q);
    long frames = DifferentialSparkTest.framesWritten();
    spark.sql("CACHE TABLE c");
    assertTrue(spark.catalog().isCached("c"));
    assertTrue(DifferentialSparkTest.framesWritten() > frames, "CACHE TABLE is eager");
    assertSameRows(expected, rows(spark, q), q);
    assertSameRows(expected, rows(spark, q), q + " (again)");
    spark.sql("UNCACHE TABLE c");
    assertFalse(spark.catalog().isCached("c"));
    assertSameRows(expected, rows(spark, q), q + " (uncached)");

    spark.sql("CACHE LAZY TABLE c2 OPTIONS ('storageLevel' 'DISK_ONLY') AS SELECT * FROM t");
    assertTrue(spark.catalog().isCached("c2"));
    String q2 = "SELECT count(*), sum(i), max(s) FROM c2 WHERE dt > DATE'1950-01-01'";
    String q2t = q2.replace("c2", "t");
    assertSameRows(rows(spark, q2t), rows(spark, q2), q2);
    spark.sql("UNCACHE TABLE IF EXISTS c2");
    assertFalse(spark.catalog().isCached("c2"));
  }

  /**
   * What Spark counted for a cache: its {@code CachedRDDBuilder} method {@code since42} (Spark
   * 4.2 and later), else the accumulator {@code accumulator} (Spark 3.5 to 4.1). By name, so the
   * test compiles against both (scripts/test.sh --jvms runs it against Spark 4.2).
   */
  private static long builderStat(InMemoryRelation rel, String since42, String accumulator) {
    Object builder = rel.cacheBuilder();
    try {
      return (Long) builder.getClass().getMethod(since42).invoke(builder);
    } catch (NoSuchMethodException e) {
      try {
        return ((org.apache.spark.util.LongAccumulator) builder.getClass().getMethod(accumulator)
            .invoke(builder)).value();
      } catch (ReflectiveOperationException e2) {
        throw new AssertionError(e2);
      }
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void cachedRelationReportsFrameBytes() {
    Dataset<Row> df = spark.table("t");
    df.persist(StorageLevel.MEMORY_ONLY());
    df.count();
    InMemoryRelation rel = SparkTestSupport.cachedRelation(spark, df);
    long size = builderStat(rel, "materializedSizeInBytes", "sizeInBytesStats");
    long rowsCounted = builderStat(rel, "materializedRowCount", "rowCountStats");
    assertEquals(1240L, rowsCounted);
    long stored = SparkTestSupport.storageInfo(spark)[0].memSize();
    assertTrue(size > 0 && size <= stored, "frame bytes " + size + " vs stored " + stored);
  }

  @Test
  void aqeCachesAndReadsAggregatesAndJoins() {
    spark.conf().set("spark.sql.adaptive.enabled", "true");
    String agg = "SELECT s, count(*) AS n, sum(i) AS si, max(dec1) AS md FROM t GROUP BY s";
    List<String> expectedAgg = rows(spark, agg);
    String join =
        "SELECT a.s, a.n, t.id FROM agg a JOIN t ON a.s = t.s WHERE t.dec1 > 1500 OR a.n > 50";
    List<String> expectedJoin = rows(spark, join.replace("FROM agg a", "FROM (" + agg + ") a"));
    Dataset<Row> cachedAgg = spark.sql(agg);
    cachedAgg.createOrReplaceTempView("agg");
    cachedAgg.persist();
    cachedAgg.count();
    assertSameRows(expectedAgg, rows(spark, "SELECT * FROM agg"), "AQE cached aggregate");
    assertSameRows(expectedJoin, rows(spark, join), "AQE join over caches");
    Dataset<Row> t = spark.table("t");
    t.persist();
    t.count();
    assertSameRows(expectedJoin, rows(spark, join), "AQE join over two caches");
  }

  /**
   * A cache of a cache: the inner scan hands its column vectors to the outer cache. Under
   * adaptive execution Spark 3.5 plans the scan as an adaptive plan and caches that from rows
   * (see {@link SparkLineSupport#CACHE_OF_CACHE_IS_COLUMNAR_UNDER_AQE}), so there no batch is
   * taken as columns; the rows are checked either way. With a nested column the inner scan's
   * batches are Arrow Java vectors; with flat columns only, native columns read by address.
   */
  @ParameterizedTest
  @CsvSource({"true,nested", "false,nested", "true,flat", "false,flat"})
  void arrowInputIsCachedWithoutCopy(boolean adaptive, String columns) {
    spark.conf().set("spark.sql.adaptive.enabled", String.valueOf(adaptive));
    Dataset<Row> inner = spark.table("t");
    inner.persist();
    inner.count();
    String q =
        columns.equals("flat")
            ? "SELECT id, s, d, dec2, bin FROM t"
            : "SELECT id, s, d, dec2, arr, st, bin FROM t";
    List<String> expected = rows(spark, q);
    Dataset<Row> outer = spark.sql(q);
    InMemoryTableScanExec innerScan = SparkTestSupport.cacheScan(outer);
    assertTrue(innerScan != null && innerScan.supportsColumnar(), "inner scan is columnar");
    long zeroCopy = TableCacheMetrics.ZERO_COPY_FRAMES.sum();
    long copied = TableCacheMetrics.COPIED_INPUT_BATCHES.sum();
    outer.persist();
    outer.count();
    if (!adaptive || SparkLineSupport.CACHE_OF_CACHE_IS_COLUMNAR_UNDER_AQE) {
      // 100-row batches go through as they are; the sparse partition's 40-row batch is copied.
      assertTrue(TableCacheMetrics.ZERO_COPY_FRAMES.sum() - zeroCopy >= 12, TableCacheMetrics.summary());
      assertTrue(TableCacheMetrics.COPIED_INPUT_BATCHES.sum() - copied >= 1, TableCacheMetrics.summary());
    } else {
      assertEquals(zeroCopy, TableCacheMetrics.ZERO_COPY_FRAMES.sum(), TableCacheMetrics.summary());
      assertEquals(copied, TableCacheMetrics.COPIED_INPUT_BATCHES.sum(), TableCacheMetrics.summary());
    }
    assertSameRows(expected, rows(outer), "cache of a cache");
    assertSameRows(
        rows(spark, "SELECT id, s FROM (" + q + ") WHERE d = double('NaN') OR id = 7"),
        rows(outer.where("d = double('NaN') OR id = 7").select("id", "s")),
        "pruning on zero-copy frames");
  }

  @Test
  void parquetBatchesAreCoalesced(@TempDir Path dir) throws IOException {
    String path = dir.resolve("pq").toString();
    spark.sql("SELECT id, s, d, dec1, arr, st, dt FROM t").write().parquet(path);
    spark.conf().set("spark.sql.parquet.columnarReaderBatchSize", "64");
    spark.conf().set("spark.tablecache.batchRows", "1000");
    Dataset<Row> pq = spark.read().parquet(path);
    List<String> expected = rows(pq);
    List<String> expectedFiltered = rows(pq.where("id BETWEEN 1300 AND 1320"));
    long frames = DifferentialSparkTest.framesWritten();
    long copied = TableCacheMetrics.COPIED_INPUT_BATCHES.sum();
    pq.persist();
    assertEquals(1240L, pq.count());
    long newFrames = DifferentialSparkTest.framesWritten() - frames;
    long copiedBatches = TableCacheMetrics.COPIED_INPUT_BATCHES.sum() - copied;
    int partitions = pq.rdd().getNumPartitions();
    assertTrue(copiedBatches >= 1240 / 64, "parquet batches copied: " + copiedBatches);
    assertTrue(
        newFrames <= 2 + partitions, "coalesced into " + newFrames + " frames from " + copiedBatches);
    assertSameRows(expected, rows(pq), "parquet cache");
    assertSameRows(expectedFiltered, rows(pq.where("id BETWEEN 1300 AND 1320")), "parquet filter");
  }

  @Test
  void badConfigurationFailsClearly() {
    spark.conf().set("spark.tablecache.codec", "brotli");
    Dataset<Row> df = spark.sql("SELECT id FROM range(10)");
    Exception e = assertThrows(Exception.class, () -> df.persist().count());
    assertTrue(String.valueOf(rootCause(e).getMessage()).contains("brotli"), e.toString());
    df.unpersist(true);
    spark.conf().unset("spark.tablecache.codec");
    spark.conf().set("spark.tablecache.encoding", "delta");
    Dataset<Row> df1 = spark.sql("SELECT id FROM range(12)");
    Exception e1 = assertThrows(Exception.class, () -> df1.persist().count());
    assertTrue(String.valueOf(rootCause(e1).getMessage()).contains("delta"), e1.toString());
    df1.unpersist(true);
    spark.conf().unset("spark.tablecache.encoding");
    spark.conf().set("spark.tablecache.format", "v9");
    Dataset<Row> df2 = spark.sql("SELECT id FROM range(11)");
    Exception e2 = assertThrows(Exception.class, () -> df2.persist().count());
    assertInstanceOf(IllegalArgumentException.class, rootCause(e2));
    df2.unpersist(true);
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
