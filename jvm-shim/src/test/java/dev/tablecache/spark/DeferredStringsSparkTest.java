package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * In a columnar scan with predicates, the string and binary columns of a batch of several
 * columns that no predicate reads are decoded on their first read ({@code
 * spark.tablecache.deferStringDecode}): a filter that rejects every row of a batch never decodes
 * the batch's other string columns. Scans without predicates, and the row path, decode every
 * column with its batch. Every query equals uncached Spark on both read paths and both formats;
 * on the columnar path the filters really skipped decodes ({@code read.deferredColumnsSkipped})
 * and the scans deferred nothing, and the row path never defers. The columns hold nulls, the empty string, unicode, binary,
 * strings that are not UTF-8, a string dictionary and strings unique per row.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeferredStringsSparkTest {

  private static final String TABLE =
      "SELECT id,"
          + " CASE WHEN id % 11 = 0 THEN NULL WHEN id % 11 = 1 THEN ''"
          + "   WHEN id % 11 = 2 THEN concat('ünïcødé ✓ 日本語 😀 ', CAST(id AS STRING))"
          + "   ELSE concat('https://example.com/item/', CAST(id * 7919 AS STRING)) END AS url,"
          + " sha2(CAST(id AS STRING), 256) AS hash,"
          + " CASE id % 3 WHEN 0 THEN 'INFO' WHEN 1 THEN 'WARN' ELSE 'ERROR' END AS level,"
          + " CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(concat('b', CAST(id AS STRING)) AS BINARY)"
          + "   END AS tag,"
          + " CASE WHEN id % 500 = 1 THEN CAST(unhex('FF41') AS STRING)"
          + "   ELSE concat('host-', CAST(id % 6 AS STRING)) END AS host"
          + " FROM range(0, 4000, 1, 4)";

  /** Each matches rows of a few batches only: the others' string columns are never read. */
  private static final String[] FILTERS = {
    "SELECT id, url, level FROM t WHERE hash = sha2('1234', 256)",
    "SELECT id, url, hex(tag), host FROM t WHERE id % 1000 = 7 ORDER BY id",
    "SELECT url, hash FROM t WHERE host = CAST(unhex('FF41') AS STRING) AND id < 600 ORDER BY url",
  };

  /** Read every column of every batch (the last one's predicate reads the strings selected). */
  private static final String[] SCANS = {
    "SELECT id, url, hash, level, hex(tag), hex(CAST(host AS BINARY)) FROM t ORDER BY id",
    "SELECT level, count(*), max(url), min(hash), sum(length(tag)) FROM t GROUP BY level"
        + " ORDER BY level",
    "SELECT id FROM t WHERE url IS NULL AND tag IS NULL ORDER BY id",
  };

  private SparkSession spark;
  private final Map<String, List<String>> expected = new LinkedHashMap<>();

  @BeforeAll
  void start() {
    spark = SparkTestSupport.start("deferred-strings");
    spark.sql(TABLE).createOrReplaceTempView("t");
    for (String[] queries : new String[][] {FILTERS, SCANS}) {
      for (String q : queries) {
        expected.put(q, SparkTestSupport.rows(spark.sql(q)));
      }
    }
  }

  @AfterAll
  void stop() {
    SparkTestSupport.stop(spark);
  }

  @ParameterizedTest
  @CsvSource({"v4,true", "v4,false", "v3,true"})
  void deferredStringColumnsEqualUncached(String format, String columnarRead) {
    Map<String, String> conf =
        SparkTestSupport.conf(
            "spark.tablecache.format", format,
            "spark.tablecache.batchRows", "500",
            "spark.tablecache.columnarRead", columnarRead);
    conf.forEach((k, v) -> spark.conf().set(k, v));
    try {
      spark.sql(TABLE).cache().createOrReplaceTempView("t");
      assertEquals(4000L, spark.table("t").count());
      long skipped = TableCacheMetrics.DEFERRED_COLUMNS_SKIPPED.sum();
      long decoded = TableCacheMetrics.DEFERRED_COLUMNS_DECODED.sum();
      List<String> mismatches = new ArrayList<>();
      mismatches.addAll(mismatches(FILTERS));
      long skippedByFilters = TableCacheMetrics.DEFERRED_COLUMNS_SKIPPED.sum() - skipped;
      long decodedByFilters = TableCacheMetrics.DEFERRED_COLUMNS_DECODED.sum() - decoded;
      long deferredBefore = deferredSoFar();
      mismatches.addAll(mismatches(SCANS));
      long deferredByScans = deferredSoFar() - deferredBefore;
      assertEquals(
          Collections.emptyList(), mismatches, "format=" + format + " columnarRead=" + columnarRead);
      assertEquals(0L, deferredByScans, "columns deferred by the scans: " + summary());
      if (columnarRead.equals("true")) {
        // 8 batches per query: at most 2 hold a matching row, the others skip every deferred
        // column they hold besides the filtered one.
        assertTrue(
            skippedByFilters >= 3 * 6,
            "deferred columns skipped by the filters: " + skippedByFilters + "; " + summary());
        assertTrue(
            decodedByFilters > 0,
            "the batches with matching rows decoded deferred columns: " + summary());
      } else {
        assertEquals(
            0L, skippedByFilters + decodedByFilters, "the row path deferred: " + summary());
      }
    } finally {
      spark.catalog().clearCache();
      spark.sql(TABLE).createOrReplaceTempView("t");
      conf.keySet().forEach(k -> spark.conf().unset(k));
    }
    assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum(), "decoded batches left live");
    assertEquals(0L, TableCacheMetrics.ALLOCATOR_LEAKS.sum(), "Arrow allocator leaks");
  }

  /** Deferred columns so far, decoded on their first read or never read. */
  private static long deferredSoFar() {
    return TableCacheMetrics.DEFERRED_COLUMNS_DECODED.sum()
        + TableCacheMetrics.DEFERRED_COLUMNS_SKIPPED.sum();
  }

  private static String summary() {
    return TableCacheMetrics.summary();
  }

  private List<String> mismatches(String[] queries) {
    List<String> mismatches = new ArrayList<>();
    for (String q : queries) {
      List<String> got = SparkTestSupport.rows(spark.sql(q));
      if (!got.equals(expected.get(q))) {
        mismatches.add(q + "\n  expected " + expected.get(q) + "\n  got      " + got);
      }
    }
    return mismatches;
  }
}
