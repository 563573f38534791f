package dev.tablecache.spark.plan;

import dev.tablecache.spark.SerializerCore;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Puts a {@link ScanMetricsNode} ({@code TableCacheScanMetricsExec}) above each scan of one of
 * our caches (under adaptive execution: above the table-cache query stage that wraps it), so that
 * every scan of a query shows its own SQL metrics in the Spark UI. Runs last among the
 * extension's physical rules: below a {@code ColumnarToRowExec} the read rule added, below
 * Comet's conversion or our Comet scan, above the root scan of a plan and in the row path alike.
 * A scan that already has its node (the rule ran before, or {@link CachedAggregateRule} made it)
 * is left alone; so are scans of other serializers' caches and of caches our serializer hands to
 * Spark's default one ({@link SerializerCore#useDefault}), which count nothing of ours.
 */
public final class ScanMetricsRule extends Rule<SparkPlan> {

  private final SparkSession session;

  /** @param session whose conf decides (adaptive stages may be planned on other threads) */
  public ScanMetricsRule(SparkSession session) {
    this.session = session;
  }

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SQLConf conf = session.sessionState().conf();
    return PhysicalPlans.replaceTopDown(plan, p -> wrapped(p, conf));
  }

  /** {@code plan} under its node when it is our scan (or its stage); itself when it has one. */
  private static SparkPlan wrapped(SparkPlan plan, SQLConf conf) {
    if (plan instanceof ScanMetricsNode) {
      return plan;
    }
    InMemoryTableScanExec scan = PhysicalPlans.ourScan(plan);
    if (scan == null || SerializerCore.useDefault(conf, scan.relation().output())) {
      return null;
    }
    return new TableCacheScanMetricsExec(plan);
  }
}
