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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Strings of few distinct values, which V4 stores as a string dictionary, are read as keys over
 * the dictionary's entries (the default, {@code spark.tablecache.dictionaryStrings}): every query
 * equals uncached Spark, through the columnar read and the row path, and the dictionaries really
 * were read as such ({@code read.dictionaryColumns}). The columns hold nulls, the empty string,
 * unicode, a non-nullable column, binary and strings that are not UTF-8; one column is unique per
 * row and stays materialised.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DictionaryStringsSparkTest {

  private static final String TABLE =
      "SELECT id,"
          + " CASE WHEN id % 9 = 0 THEN NULL WHEN id % 9 = 1 THEN ''"
          + "   WHEN id % 9 = 2 THEN 'ünïcødé ✓ 日本語 😀'"
          + "   ELSE concat('GET /api/v', CAST(id % 5 AS STRING), '/items') END AS path,"
          + " CASE id % 3 WHEN 0 THEN 'INFO' WHEN 1 THEN 'WARN' ELSE 'ERROR' END AS level,"
          + " CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(concat('b', CAST(id % 4 AS STRING)) AS BINARY)"
          + "   END AS tag,"
          + " CASE WHEN id % 500 = 1 THEN CAST(unhex('FF41') AS STRING)"
          + "   ELSE concat('host-', CAST(id % 6 AS STRING)) END AS host,"
          + " concat('trace-', CAST(id AS STRING)) AS trace"
          + " FROM range(0, 4000, 1, 4)";

  private static final String[] QUERIES = {
    "SELECT id, path, level, hex(tag), hex(CAST(host AS BINARY)), trace FROM t ORDER BY id",
    "SELECT level, path, count(*), max(id) FROM t GROUP BY level, path ORDER BY level, path",
    "SELECT length(path), count(*) FROM t GROUP BY 1 ORDER BY 1",
    "SELECT id FROM t WHERE level = 'WARN' AND path = '' ORDER BY id",
    "SELECT id FROM t WHERE host = CAST(unhex('FF41') AS STRING) ORDER BY id",
    "SELECT min(path), max(path), min(level), max(level), count(tag) FROM t",
    "SELECT hex(tag), count(*) FROM t GROUP BY tag ORDER BY 1",
    "SELECT id, upper(path), substring(level, 2, 2) FROM t ORDER BY path DESC, id LIMIT 17",
  };

  private SparkSession spark;
  private final Map<String, List<String>> expected = new LinkedHashMap<>();

  @BeforeAll
  void start() {
    spark = SparkTestSupport.start("dictionary-strings");
    spark.sql(TABLE).createOrReplaceTempView("t");
    for (String q : QUERIES) {
      expected.put(q, SparkTestSupport.rows(spark.sql(q)));
    }
  }

  @AfterAll
  void stop() {
    SparkTestSupport.stop(spark);
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "false"})
  void cachedDictionaryStringsEqualUncached(String columnarRead) {
    Map<String, String> conf =
        SparkTestSupport.conf(
            "spark.tablecache.format", "v4",
            "spark.tablecache.batchRows", "500",
            "spark.tablecache.columnarRead", columnarRead);
    conf.forEach((k, v) -> spark.conf().set(k, v));
    try {
      spark.sql(TABLE).cache().createOrReplaceTempView("t");
      assertEquals(4000L, spark.table("t").count());
      long dictionaries = TableCacheMetrics.DICTIONARY_COLUMNS.sum();
      List<String> mismatches = new ArrayList<>();
      for (String q : QUERIES) {
        List<String> got = SparkTestSupport.rows(spark.sql(q));
        if (!got.equals(expected.get(q))) {
          mismatches.add(q + "\n  expected " + expected.get(q) + "\n  got      " + got);
        }
      }
      assertEquals(Collections.emptyList(), mismatches, "columnarRead=" + columnarRead);
      assertTrue(
          TableCacheMetrics.DICTIONARY_COLUMNS.sum() > dictionaries,
          "string dictionaries read as keys: " + TableCacheMetrics.summary());
    } finally {
      spark.catalog().clearCache();
      spark.sql(TABLE).createOrReplaceTempView("t");
      conf.keySet().forEach(k -> spark.conf().unset(k));
    }
    assertEquals(0L, TableCacheMetrics.ALLOCATOR_LEAKS.sum(), "Arrow allocator leaks");
  }
}
