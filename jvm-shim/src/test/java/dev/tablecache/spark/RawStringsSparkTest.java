package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Spark strings that are not UTF-8 ({@code CAST(binary AS STRING)}, text files in another
 * charset) cache and read back byte for byte: their frames keep the column as Arrow binary. Some
 * batches of the table hold such strings and the others do not, so one cache mixes both kinds of
 * frame; every query must equal uncached Spark, through each way a cache is built (UnsafeRow
 * input, Spark's ArrowWriter, columnar input from a Parquet scan) and read (columnar, rows).
 * The same holds for such strings inside an array, a struct and a map.
 */
@Tag("spark")
@Tag("jvm-independent") // a query matrix: JUnit runs it on each line's Java 17 only
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RawStringsSparkTest {

  /** Rows 250k+1..250k+3 are not UTF-8: with batches of 100 rows, 12 of 30 batches hold some. */
  private static final String TABLE =
      "SELECT id, CASE WHEN id % 11 = 0 THEN NULL"
          + " WHEN id % 250 = 1 THEN CAST(unhex('FF41') AS STRING)"
          + " WHEN id % 250 = 2 THEN CAST(unhex('C3') AS STRING)"
          + " WHEN id % 250 = 3 THEN CAST(unhex(concat('41E282', hex(id))) AS STRING)"
          + " ELSE concat('v', CAST(id % 37 AS STRING), 'é') END AS s"
          + " FROM range(0, 3000, 1, 4)";

  /** Strings compare as their hex bytes: a Java String of non-UTF-8 bytes is lossy. */
  private static final String[] QUERIES = {
    "SELECT id, hex(CAST(s AS BINARY)), length(s), s IS NULL FROM t ORDER BY id",
    "SELECT id FROM t WHERE s = CAST(unhex('FF41') AS STRING) ORDER BY id",
    "SELECT id FROM t WHERE s = 'v5é' ORDER BY id",
    "SELECT id FROM t WHERE s > 'v3' AND s < 'v4' ORDER BY id",
    "SELECT hex(CAST(min(s) AS BINARY)), hex(CAST(max(s) AS BINARY)), count(s) FROM t",
    "SELECT hex(CAST(s AS BINARY)), count(*) FROM t GROUP BY s ORDER BY 1",
    "SELECT id, hex(CAST(substring(s, 2, 2) AS BINARY)) FROM t WHERE id < 800 ORDER BY id",
  };

  /** The same kind of bytes inside an array, a struct and a map key: nested strings. */
  private static final String NESTED =
      "SELECT id,"
          + " CASE WHEN id % 13 = 0 THEN NULL ELSE array(concat('a', CAST(id % 7 AS STRING)),"
          + "   CASE WHEN id % 250 = 1 THEN CAST(unhex('FF41') AS STRING) ELSE 'x' END) END AS arr,"
          + " named_struct('k', id, 's', CASE WHEN id % 250 = 2 THEN CAST(unhex('C3') AS STRING)"
          + "   ELSE concat('v', CAST(id % 5 AS STRING)) END) AS st,"
          + " map(CASE WHEN id % 250 = 3 THEN CAST(unhex('E282') AS STRING) ELSE 'key' END,"
          + "   concat('w', CAST(id AS STRING))) AS m"
          + " FROM range(0, 3000, 1, 4)";

  private static final String NESTED_DDL =
      "id BIGINT, arr ARRAY<STRING>, st STRUCT<k: BIGINT, s: STRING>, m MAP<STRING, STRING>";

  private static final String[] NESTED_QUERIES = {
    "SELECT id, hex(CAST(arr[1] AS BINARY)), hex(CAST(st.s AS BINARY)),"
        + " hex(CAST(map_keys(m)[0] AS BINARY)), m['key'], size(arr) FROM t ORDER BY id",
    "SELECT id FROM t WHERE st.s = CAST(unhex('C3') AS STRING) ORDER BY id",
    "SELECT hex(CAST(max(st.s) AS BINARY)), count(arr), count(st) FROM t",
    "SELECT id, length(arr[1]), hex(CAST(upper(st.s) AS BINARY)) FROM t WHERE id < 600 ORDER BY id",
    "SELECT hex(CAST(arr[1] AS BINARY)), count(*) FROM t GROUP BY 1 ORDER BY 1",
  };

  private SparkSession spark;
  private final Map<String, List<String>> expected = new LinkedHashMap<>();
  @TempDir Path dir;

  @BeforeAll
  void start() {
    spark = SparkTestSupport.start("raw-strings");
    spark.sql(TABLE).createOrReplaceTempView("t");
    for (String q : QUERIES) {
      expected.put(q, SparkTestSupport.rows(spark.sql(q)));
    }
    spark.sql(NESTED).createOrReplaceTempView("t");
    for (String q : NESTED_QUERIES) {
      expected.put(q, SparkTestSupport.rows(spark.sql(q)));
    }
  }

  @AfterAll
  void stop() {
    SparkTestSupport.stop(spark);
  }

  @ParameterizedTest
  @ValueSource(strings = {"unsafe-rows", "arrow-writer", "parquet-columnar"})
  void cachedRawStringsEqualUncached(String build) {
    check(build, TABLE, "id BIGINT, s STRING", QUERIES, true);
  }

  /** Nested columns always go through Spark's ArrowWriter or columnar input. */
  @ParameterizedTest
  @ValueSource(strings = {"arrow-writer", "parquet-columnar"})
  void nestedRawStringsEqualUncached(String build) {
    check(build, NESTED, NESTED_DDL, NESTED_QUERIES, false);
  }

  private void check(
      String build, String table, String ddl, String[] queries, boolean flatStrings) {
    Map<String, String> conf = SparkTestSupport.conf("spark.tablecache.batchRows", "100");
    if (build.equals("arrow-writer")) {
      conf.put("spark.tablecache.unsafeRowInput", "false");
    }
    conf.forEach((k, v) -> spark.conf().set(k, v));
    Dataset<Row> source = spark.sql(table);
    if (build.equals("parquet-columnar")) {
      // Parquet keeps the bytes as they are, and reads them back as the strings they were.
      String path = dir.resolve("raw-" + flatStrings).toString();
      source.write().parquet(path);
      source = spark.read().schema(ddl).parquet(path);
    }
    long rowFrames = TableCacheMetrics.UNSAFE_ROW_FRAMES.sum();
    long arrowBytes = TableCacheMetrics.ARROW_INPUT_BYTES.sum();
    long written = DifferentialSparkTest.framesWritten();
    try {
      source.cache().createOrReplaceTempView("t");
      assertEquals(3000L, spark.table("t").count());
      long frames = DifferentialSparkTest.framesWritten() - written;
      long viaRows = TableCacheMetrics.UNSAFE_ROW_FRAMES.sum() - rowFrames;
      String metrics = build + ": " + TableCacheMetrics.summary();
      assertTrue(frames >= 30, metrics);
      if (build.equals("unsafe-rows")) {
        assertEquals(frames, viaRows, metrics);
      } else {
        assertEquals(0L, viaRows, metrics);
        assertTrue(TableCacheMetrics.ARROW_INPUT_BYTES.sum() > arrowBytes, metrics);
      }
      for (String columnarRead : new String[] {"true", "false"}) {
        spark.conf().set("spark.tablecache.columnarRead", columnarRead);
        List<String> mismatches = new ArrayList<>();
        for (String q : queries) {
          List<String> got = SparkTestSupport.rows(spark.sql(q));
          if (!got.equals(expected.get(q))) {
            mismatches.add(q + "\n  expected " + expected.get(q) + "\n  got      " + got);
          }
        }
        assertEquals(Collections.emptyList(), mismatches, build + ", columnarRead=" + columnarRead);
      }
    } finally {
      spark.catalog().clearCache();
      spark.sql(table).createOrReplaceTempView("t");
      spark.conf().unset("spark.tablecache.columnarRead");
      conf.keySet().forEach(k -> spark.conf().unset(k));
    }
    assertEquals(0L, TableCacheMetrics.ALLOCATOR_LEAKS.sum(), "Arrow allocator leaks");
  }
}
