package dev.tablecache.spark.engine.foreign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.SparkTestSupport;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * With Apache Gluten named in the conf (its session extensions in {@code spark.sql.extensions},
 * as its plugin puts them there; Gluten itself is not on the classpath, so Spark skips the class
 * with a warning), caches take the rows of the engine's transition: batches whose getters throw
 * never reach the serializer, and the cache holds the right rows. The test engine of {@link
 * ForeignEngineExtensions} stands in for Gluten's plan.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GlutenDetectionSparkTest {

  private SparkSession spark;

  @BeforeAll
  void startSpark() {
    spark =
        SparkTestSupport.start(
            "gluten-detection",
            SparkTestSupport.conf(
                "spark.sql.extensions",
                "org.apache.gluten.extension.GlutenSessionExtensions,"
                    + ForeignEngineExtensions.class.getName()));
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  @Test
  void detectsGlutenFromTheSessionConf() {
    ForeignBatchGuard.Engine engine = ForeignBatchGuard.activeEngine(SQLConf.get());
    assertNotNull(engine);
    assertEquals("Apache Gluten", engine.name);
  }

  @Test
  void cachesTheRowsOfTheEnginesTransition() {
    List<String> expected = SparkTestSupport.rows(spark, ForeignEngineSource.EXPECTED_SQL);
    Dataset<Row> df = ForeignBatchGuardSparkTest.source(spark, ForeignColumnVector.Mode.SEALED);
    long copied = TableCacheMetrics.COPIED_INPUT_BATCHES.sum();
    long unsafeRowFrames = TableCacheMetrics.UNSAFE_ROW_FRAMES.sum();
    df.cache();
    try {
      assertEquals(ForeignEngineSource.ROWS, df.count());
      SparkPlan cachedPlan = ForeignBatchGuardSparkTest.cachedPlan(df);
      assertTrue(ForeignEngineExtensions.isToRowsExec(cachedPlan), cachedPlan.toString());
      assertEquals(copied, TableCacheMetrics.COPIED_INPUT_BATCHES.sum(), TableCacheMetrics.summary());
      assertTrue(
          TableCacheMetrics.UNSAFE_ROW_FRAMES.sum() > unsafeRowFrames, TableCacheMetrics.summary());
      SparkTestSupport.assertSameRows(expected, SparkTestSupport.rows(df), "cached engine rows");
      SparkTestSupport.assertSameRows(
          expected.subList(0, 0),
          SparkTestSupport.rows(df.where("s IS NULL")),
          "no row lost its string");
    } finally {
      df.unpersist(true);
    }
  }
}
