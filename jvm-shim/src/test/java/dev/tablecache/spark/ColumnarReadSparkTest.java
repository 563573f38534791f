package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.plan.ScanMetricsNode;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TableCacheExtensions}: where a row-based operator reads one of our caches, the executed
 * plan has a {@code ColumnarToRowExec} right above the cache scan, and the rows equal uncached
 * Spark's; with the rule switched off, or for another serializer's cache, the plan is Spark's.
 */
@Tag("spark")
class ColumnarReadSparkTest {

  private static final List<String> QUERIES =
      Arrays.asList(
          "SELECT sum(id), count(*) FROM t",
          "SELECT b, count(*), max(l), min(s), max(d), sum(i) FROM t GROUP BY b",
          "SELECT id, s, dec1, ts FROM t WHERE id BETWEEN 17 AND 60",
          "SELECT id, arr, m, st FROM t WHERE id % 97 = 3",
          "SELECT x.id, y.s FROM t x JOIN t y ON x.id = y.id + 1 WHERE x.id < 200");

  @ParameterizedTest
  @ValueSource(strings = {"on", "off", "default-serializer"})
  void rewritesOnlyOurScansAndKeepsResults(String mode) {
    Map<String, String> conf =
        SparkTestSupport.conf("spark.tablecache.columnarRead", mode.equals("off") ? "false" : "true");
    if (mode.equals("default-serializer")) {
      conf.put("spark.sql.cache.serializer", DefaultCachedBatchSerializer.class.getName());
    }
    SparkSession spark = SparkTestSupport.start("columnar-read-" + mode, conf);
    try {
      Dataset<Row> table = TestTables.allTypes(spark);
      table.createOrReplaceTempView("t");
      List<List<String>> expected = QUERIES.stream().map(q -> SparkTestSupport.rows(spark, q)).collect(Collectors.toList());
      table.cache();
      assertEquals(1240L, table.count());
      for (int i = 0; i < QUERIES.size(); i++) {
        Dataset<Row> df = spark.sql(QUERIES.get(i));
        List<String> actual = SparkTestSupport.rows(df);
        SparkPlan executed = SparkLineSupport.classic(df).queryExecution().executedPlan();
        InMemoryTableScanExec scan = SparkTestSupport.cacheScan(df);
        assertNotNull(scan, "no cache scan in " + executed);
        boolean wrapped = scanUnderColumnarToRow(executed);
        if (mode.equals("on")) {
          assertTrue(scan.supportsColumnar(), "our scan is column-capable: " + executed);
          assertTrue(wrapped, "no ColumnarToRowExec above the cache scan in " + executed);
        } else {
          assertFalse(wrapped, "Spark's plan was rewritten (" + mode + "): " + executed);
        }
        SparkTestSupport.assertSameRows(expected.get(i), actual, mode + ": " + QUERIES.get(i));
      }
      table.unpersist(true);
      assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum(), "decoded batches not released");
    } finally {
      SparkTestSupport.stop(spark);
    }
  }

  /** Whether some ColumnarToRowExec of the executed plan (AQE stages included) reads a cache. */
  private static boolean scanUnderColumnarToRow(SparkPlan plan) {
    return SparkTestSupport.findPlan(plan, ColumnarReadSparkTest::readsCacheAsColumns) != null;
  }

  private static boolean readsCacheAsColumns(SparkPlan plan) {
    if (!(plan instanceof ColumnarToRowExec)) {
      return false;
    }
    SparkPlan child = ((ColumnarToRowExec) plan).child();
    if (child instanceof InputAdapter) {
      child = ((InputAdapter) child).child();
    }
    if (child instanceof ScanMetricsNode) { // the scan's SQL metrics, between the two
      child = ((ScanMetricsNode) child).child();
    }
    if (child instanceof QueryStageExec) {
      child = ((QueryStageExec) child).plan();
    }
    return child instanceof InMemoryTableScanExec;
  }
}
