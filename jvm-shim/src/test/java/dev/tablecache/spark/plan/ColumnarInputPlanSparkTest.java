package dev.tablecache.spark.plan;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.SparkLineSupport;
import dev.tablecache.spark.SparkTestSupport;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which plans {@link ColumnarInputPlan} keeps row-based (where it departs from Spark 4.1's default
 * {@code convertToColumnarPlanIfPossible}), on plans real Spark produced: adaptive plans ending in
 * a row operator, and nothing else. Runs on every line; Spark 4.1+ is what calls it.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ColumnarInputPlanSparkTest {

  private SparkSession spark;
  @TempDir Path dir;

  @BeforeAll
  void startSpark() {
    spark = SparkTestSupport.start("columnar-input-plan");
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  private static SparkPlan executed(Dataset<Row> df) {
    return SparkLineSupport.classic(df).queryExecution().executedPlan();
  }

  @Test
  void keepsAnAdaptiveAggregateRowBased() {
    SparkPlan plan = executed(spark.range(0, 1000, 1, 2).groupBy("id").count());
    assertInstanceOf(AdaptiveSparkPlanExec.class, plan);
    assertTrue(ColumnarInputPlan.keepsRows(plan), "row-based: " + plan);
  }

  /** Spark 3.5 wraps a plain scan of a cache in an adaptive plan; Spark 4 does not. */
  @Test
  void letsAScanOfACacheGoColumnar() {
    Dataset<Row> cached = spark.range(0, 1000, 1, 2).selectExpr("id", "id * 2 AS x");
    cached.cache();
    try {
      cached.count();
      SparkPlan plan = executed(cached.select("x"));
      SparkPlan input =
          plan instanceof AdaptiveSparkPlanExec ? ((AdaptiveSparkPlanExec) plan).inputPlan() : plan;
      // The scan, or (Spark 4, where the columnar rules ran on this plan) its metrics node.
      assertNotNull(PhysicalPlans.ourScan(input), "a scan of our cache: " + input);
      assertTrue(
          input instanceof InMemoryTableScanExec || input instanceof ScanMetricsNode,
          "the scan at the root: " + input);
      assertFalse(ColumnarInputPlan.keepsRows(plan), "columnar input: " + plan);
    } finally {
      cached.unpersist(true);
    }
  }

  @Test
  void leavesPlansWithoutAdaptiveExecutionToSpark() {
    String path = dir.resolve("pq").toString();
    spark.range(0, 1000, 1, 2).selectExpr("id", "id * 2 AS x").write().parquet(path);
    assertFalse(ColumnarInputPlan.keepsRows(executed(spark.read().parquet(path))));
    assertFalse(ColumnarInputPlan.keepsRows(executed(spark.range(0, 10).selectExpr("id + 1"))));
  }
}
