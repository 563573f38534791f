package dev.tablecache.spark.engine.foreign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.NativeCachedBatchSerializer;
import dev.tablecache.spark.SparkLineSupport;
import dev.tablecache.spark.SparkTestSupport;
import dev.tablecache.spark.TableCacheConf;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.plan.ColumnarInputPlan;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Caching another engine's columnar batches ({@link ForeignEngineSource} under the test engine of
 * {@link ForeignEngineExtensions}) when no known engine is named in the conf: Spark strips the
 * engine's transition and hands the batches to the serializer, where {@link ForeignBatchGuard}
 * refuses unreadable ones with a clear error, copies readable ones, and {@code
 * spark.tablecache.columnarInput=false} makes the cache take the engine's rows.
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForeignBatchGuardSparkTest {

  private SparkSession spark;
  private List<String> expected;

  @BeforeAll
  void startSpark() {
    spark =
        SparkTestSupport.start(
            "foreign-batch-guard",
            SparkTestSupport.conf("spark.sql.extensions", ForeignEngineExtensions.class.getName()));
    expected = SparkTestSupport.rows(spark, ForeignEngineSource.EXPECTED_SQL);
    assertEquals(ForeignEngineSource.ROWS, expected.size());
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  static Dataset<Row> source(SparkSession spark, ForeignColumnVector.Mode mode) {
    return spark.read().format(ForeignEngineSource.class.getName()).option("mode", mode.name()).load();
  }

  /** The cached plan of {@code df}'s cache (what the cache is built from). */
  static SparkPlan cachedPlan(Dataset<Row> df) {
    InMemoryTableScanExec scan = SparkTestSupport.cacheScan(df.select("id", "x", "s"));
    assertNotNull(scan, "not cached");
    return scan.relation().cachedPlan();
  }

  static String causes(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c).append('\n');
    }
    return sb.toString();
  }

  @Test
  void theTestEngineReadsItsBatchesThroughItsOwnTransition() {
    Dataset<Row> df = source(spark, ForeignColumnVector.Mode.SEALED);
    SparkPlan plan = SparkLineSupport.classic(df).queryExecution().executedPlan();
    assertTrue(ForeignEngineExtensions.isToRowsExec(plan), plan.toString());
    SparkTestSupport.assertSameRows(expected, SparkTestSupport.rows(df), "uncached");
  }

  @Test
  void unreadableBatchesFailWithAClearError() {
    Dataset<Row> df = source(spark, ForeignColumnVector.Mode.SEALED);
    df.cache();
    try {
      Exception e = assertThrows(Exception.class, df::count);
      String all = causes(e);
      assertTrue(all.contains("UNREADABLE_INPUT"), all);
      assertTrue(all.contains(ForeignColumnVector.class.getName()), all);
      assertTrue(all.contains("spark.tablecache.columnarInput=false"), all);
    } finally {
      df.unpersist(true);
    }
  }

  @Test
  void aVectorThatFoolsTheProbeStillFailsClearly() {
    Dataset<Row> df = source(spark, ForeignColumnVector.Mode.EDGES);
    df.cache();
    try {
      String all = causes(assertThrows(Exception.class, df::count));
      assertTrue(all.contains("UNREADABLE_INPUT"), all);
      assertTrue(all.contains("getter threw"), all);
    } finally {
      df.unpersist(true);
    }
  }

  @Test
  void readableForeignBatchesAreCopied() {
    Dataset<Row> df = source(spark, ForeignColumnVector.Mode.READABLE);
    long copied = TableCacheMetrics.COPIED_INPUT_BATCHES.sum();
    df.cache();
    try {
      assertEquals(ForeignEngineSource.ROWS, df.count());
      assertTrue(
          TableCacheMetrics.COPIED_INPUT_BATCHES.sum() - copied >= 10, TableCacheMetrics.summary());
      SparkTestSupport.assertSameRows(expected, SparkTestSupport.rows(df), "readable foreign");
    } finally {
      df.unpersist(true);
    }
  }

  @Test
  void columnarInputOffCachesTheEngineRows() {
    spark.conf().set(TableCacheConf.COLUMNAR_INPUT, "false");
    Dataset<Row> df = source(spark, ForeignColumnVector.Mode.SEALED);
    long copied = TableCacheMetrics.COPIED_INPUT_BATCHES.sum();
    try {
      df.cache();
      assertEquals(ForeignEngineSource.ROWS, df.count());
      assertTrue(ForeignEngineExtensions.isToRowsExec(cachedPlan(df)), cachedPlan(df).toString());
      assertEquals(copied, TableCacheMetrics.COPIED_INPUT_BATCHES.sum(), TableCacheMetrics.summary());
      SparkTestSupport.assertSameRows(expected, SparkTestSupport.rows(df), "rows of the engine");
    } finally {
      df.unpersist(true);
      spark.conf().unset(TableCacheConf.COLUMNAR_INPUT);
    }
  }

  /**
   * A plan ending in Gluten's transition, with nothing in the conf naming Gluten: Spark 4.1+ asks
   * us for the plan to cache, and ColumnarInputPlan keeps the transition (the engine's rows);
   * Spark 3.5 and 4.0 strip it themselves, and the batch check fails the task clearly. (The 4.1
   * branch does not run in these suites, which use 3.5.9 and 4.0.1; checked by hand on 4.1.3.)
   */
  @Test
  void glutensTransitionIsKeptWhereSparkAsks() {
    Dataset<Row> df =
        spark
            .read()
            .format(ForeignEngineSource.class.getName())
            .option("mode", "SEALED")
            .option("transition", "gluten")
            .load();
    df.cache();
    try {
      if (asksForThePlan(spark.version())) {
        assertEquals(ForeignEngineSource.ROWS, df.count());
        SparkPlan cached = cachedPlan(df);
        assertTrue(ForeignEngineExtensions.GLUTEN_TO_ROWS_EXEC.isInstance(cached), cached.toString());
        SparkTestSupport.assertSameRows(expected, SparkTestSupport.rows(df), "gluten transition");
      } else {
        String all = causes(assertThrows(Exception.class, df::count));
        assertTrue(all.contains("UNREADABLE_INPUT"), all);
      }
    } finally {
      df.unpersist(true);
    }
  }

  /** Whether this Spark calls convertToColumnarPlanIfPossible (4.1 and later). */
  static boolean asksForThePlan(String version) {
    String[] p = version.split("[.-]");
    int major = Integer.parseInt(p[0]);
    int minor = Integer.parseInt(p[1]);
    return major > 4 || (major == 4 && minor >= 1);
  }

  /**
   * Spark 4.1+ hands us the plan (convertToColumnarPlanIfPossible): a known engine's transition
   * on top stays. Checked here with the test engine in the table, on the plan Spark built.
   */
  @Test
  void aKnownEnginesTransitionIsKept() {
    SparkPlan plan =
        SparkLineSupport.classic(source(spark, ForeignColumnVector.Mode.SEALED))
            .queryExecution()
            .executedPlan();
    ForeignBatchGuard.Engine test =
        new ForeignBatchGuard.Engine(
            "test engine",
            Arrays.asList(ForeignEngineExtensions.ENGINE_PACKAGE + "."),
            Collections.<String>emptyList(),
            "");
    assertTrue(ForeignBatchGuard.keepsEngineTransition(plan, Arrays.asList(test)));
    assertFalse(ForeignBatchGuard.keepsEngineTransition(plan)); // not Gluten's
    SparkPlan vanilla =
        SparkLineSupport.classic(spark.range(0, 10).selectExpr("id + 1")).queryExecution().executedPlan();
    assertFalse(ForeignBatchGuard.keepsEngineTransition(vanilla, Arrays.asList(test)));
    assertFalse(ForeignBatchGuard.keepsEngineTransition(vanilla));

    // the same transition in Gluten's package (its class loader only): kept by the real table,
    // and ColumnarInputPlan returns such a plan unchanged (rows), without Spark's default
    SparkPlan scan = plan.children().head();
    SparkPlan gluten = ForeignEngineExtensions.toRowsExec(ForeignEngineExtensions.GLUTEN_TO_ROWS_EXEC, scan);
    assertTrue(ForeignBatchGuard.keepsEngineTransition(gluten));
    assertSame(gluten, ColumnarInputPlan.of(new NativeCachedBatchSerializer(), gluten));
  }
}
