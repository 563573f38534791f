package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Java8;
import dev.tablecache.spark.fallback.ReadBounds;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The writer never writes what the readers refuse: a cache whose schema is beyond the read
 * bounds (FORMAT.md "Schema bounds": nesting depth 60, names of 64 KiB) is written and read by
 * Spark's default serializer, says so in one INFO line, and answers like uncached Spark; a schema
 * right at the bounds stays ours.
 */
@Tag("spark")
class ReadBoundsSparkTest {

  private static final String DEFAULT_BATCH =
      "org.apache.spark.sql.execution.columnar.DefaultCachedBatch";
  private static SparkSession spark;
  private CapturedLog log;

  @BeforeAll
  static void start() {
    spark = SparkTestSupport.start("read-bounds");
  }

  @AfterAll
  static void stop() {
    SparkTestSupport.stop(spark);
  }

  @BeforeEach
  void captureLog() {
    log = CapturedLog.attach(ReadBounds.class.getName());
  }

  @AfterEach
  void releaseLog() {
    log.detach();
    spark.catalog().clearCache();
  }

  /** A column {@code c} whose leaf {@code id} sits at field depth {@code depth}. */
  private static Dataset<Row> nested(int depth) {
    String expr = "id";
    for (int i = 1; i < depth; i++) {
      expr = "named_struct('a', " + expr + ")";
    }
    return spark.range(0, 300, 1, 2).selectExpr("id", expr + " AS c");
  }

  @Test
  void nestingAtTheDepthLimitStaysOurs() {
    Dataset<Row> df = nested(60);
    List<String> expected = SparkTestSupport.rows(df);
    df.cache();
    assertEquals(300L, df.count());
    assertEquals(Collections.singletonList(NativeCachedBatch.class.getName()), batchClasses(df));
    Dataset<Row> again = df.filter("id >= 0");
    assertEquals(expected, SparkTestSupport.rows(again));
    assertTrue(SparkTestSupport.cacheScan(again).supportsColumnar(), "our columnar output");
    assertEquals(Collections.emptyList(), log.lines());
  }

  @Test
  void nestingOnePastTheLimitIsCachedByTheDefaultSerializer() {
    Dataset<Row> df = nested(61);
    List<String> expected = SparkTestSupport.rows(df);
    df.cache();
    assertEquals(300L, df.count());
    assertEquals(Collections.singletonList(DEFAULT_BATCH), batchClasses(df));
    assertEquals(expected, SparkTestSupport.rows(df));
    // A new Dataset: df's own plan was made before the cache existed.
    Dataset<Row> again = df.filter("id >= 0");
    assertEquals(expected, SparkTestSupport.rows(again));
    assertFalse(SparkTestSupport.cacheScan(again).supportsColumnar(), "row output only");
    List<String> lines = log.lines();
    assertEquals(1, lines.size(), "one INFO line for the cache: " + lines);
    assertTrue(
        lines.get(0).startsWith("INFO tablecache: a cache of 2 columns is beyond what the readers"),
        lines.get(0));
    assertTrue(lines.get(0).contains("default serializer caches it"), lines.get(0));
  }

  @Test
  void aNameLongerThanTheReadersAcceptIsCachedByTheDefaultSerializer() {
    String name = Java8.repeat("n", 70_000);
    Dataset<Row> df = spark.range(0, 300, 1, 2).selectExpr("id", "id * 2 AS `" + name + "`");
    List<String> expected = SparkTestSupport.rows(df);
    df.cache();
    assertEquals(300L, df.count());
    assertEquals(Collections.singletonList(DEFAULT_BATCH), batchClasses(df));
    assertEquals(expected, SparkTestSupport.rows(df));
    assertEquals(1, log.lines().size(), "one INFO line: " + log.lines());
  }

  private static List<String> batchClasses(Dataset<Row> df) {
    InMemoryRelation rel = SparkTestSupport.cachedRelation(spark, df);
    return rel.cacheBuilder()
        .cachedColumnBuffers()
        .toJavaRDD()
        .map(b -> b.getClass().getName())
        .distinct()
        .collect();
  }
}
