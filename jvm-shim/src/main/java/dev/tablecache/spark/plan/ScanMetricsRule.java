package dev.tablecache.spark.plan;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Puts a {@link ScanMetricsNode} ({@code TableCacheScanMetricsExec}) above each scan of one of
 * our caches (under adaptive execution: above the table-cache query stage that wraps it), so that
 * every scan of a query shows its own SQL metrics in the Spark UI. Runs last among the
 * extension's physical rules: below a {@code ColumnarToRowExec} the read rule added, below
 * Comet's conversion or our Comet scan, above the root scan of a plan and in the row path alike.
 * A scan that already has its node (the rule ran before, or {@link CachedAggregateRule} made it)
 * is left alone; scans of other serializers' caches too.
 */
public final class ScanMetricsRule extends Rule<SparkPlan> {

  @Override
  public SparkPlan apply(SparkPlan plan) {
    return PhysicalPlans.replaceTopDown(plan, ScanMetricsRule::wrapped);
  }

  /** {@code plan} under its node when it is our scan (or its stage); itself when it has one. */
  private static SparkPlan wrapped(SparkPlan plan) {
    if (plan instanceof ScanMetricsNode) {
      return plan;
    }
    return PhysicalPlans.ourScan(plan) != null ? new TableCacheScanMetricsExec(plan) : null;
  }
}
