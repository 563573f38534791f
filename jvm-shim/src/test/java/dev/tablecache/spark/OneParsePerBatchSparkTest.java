package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tablecache.format.MetadataReadsAccess;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A read parses each cached batch's metadata once, in the JVM, whatever reads it: the stats
 * filter, partial aggregates from stats, the decoded-size check and the import all take the
 * batch's one parse, and the stats entries are parsed once, when first read. Counted exactly
 * ({@code MetadataReads}), so a second parse on the read path fails these tests: a batch kept
 * in memory as an object is parsed by its first read and never again; a batch stored serialized
 * is a new object on every read, parsed once per read.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OneParsePerBatchSparkTest {

  /** 4,000 rows in 2 partitions, batches of 100 rows. */
  private static final int BATCHES = 40;

  private SparkSession spark;

  @BeforeAll
  void startSpark() {
    spark = SparkTestSupport.start("one-parse");
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  @ParameterizedTest
  @ValueSource(strings = {"MEMORY_ONLY", "MEMORY_ONLY_SER"})
  void eachReadParsesABatchOnce(String level) {
    Dataset<Row> df =
        spark.sql(
            "SELECT id, CAST(id AS INT) AS i, concat('v', CAST(id AS STRING)) AS s,"
                + " array(id, id) AS arr, CAST(NULL AS STRING) AS n"
                + " FROM range(0, 4000, 1, 2)");
    df.persist(StorageLevel.fromString(level));
    try {
      df.count(); // builds the cache: writes, parses nothing
      assertEquals(
          BATCHES,
          SparkTestSupport.cacheScan(df).relation().cacheBuilder().cachedColumnBuffers().count());
      boolean objects = level.equals("MEMORY_ONLY");
      // Row counts only: no metadata read at all.
      assertReads(0, 0, () -> df.count());
      // A plain scan: the decoded-size check and the import, by address (i, s) and through
      // Arrow Java (arr); no stats.
      assertReads(BATCHES, 0, () -> df.select("i", "s", "arr", "n").collectAsList());
      int again = objects ? 0 : BATCHES;
      // The stats filter reads every batch's stats (30 of 40 kept), the kept ones are decoded.
      assertReads(
          again,
          BATCHES,
          () ->
              assertEquals(
                  3000, df.filter("id >= 1000").select("i", "s", "arr").collectAsList().size()));
      // Partial aggregates: max(i) from the stats, min(s) and count(arr) decoded.
      assertReads(
          again, again, () -> df.selectExpr("max(i)", "min(s)", "count(arr)").collectAsList());
      assertReads(again, again, () -> df.filter("i < 50").select("s").collectAsList());
      assertReads(again, 0, () -> df.select("s").collectAsList());
    } finally {
      df.unpersist(true);
    }
  }

  /**
   * Runs {@code query} and checks it parsed {@code frames} frames, with one schema look-up each,
   * and {@code stats} stats sections.
   */
  private static void assertReads(int frames, int stats, Runnable query) {
    long framesBefore = MetadataReadsAccess.frames();
    long statsBefore = MetadataReadsAccess.stats();
    long schemasBefore = MetadataReadsAccess.schemas();
    query.run();
    assertEquals(frames, MetadataReadsAccess.frames() - framesBefore, "frames parsed");
    assertEquals(stats, MetadataReadsAccess.stats() - statsBefore, "stats sections parsed");
    assertEquals(frames, MetadataReadsAccess.schemas() - schemasBefore, "schemas looked up");
  }
}
