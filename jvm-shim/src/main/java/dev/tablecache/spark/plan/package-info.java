/**
 * The planner side, installed by {@code TableCacheExtensions}: {@link
 * dev.tablecache.spark.plan.ColumnarCacheReadRule} (our scans keep columnar output where the
 * reader above takes it), {@link dev.tablecache.spark.plan.CachedAggregateRule} (count, min and max
 * over a cache answered from per-batch partial aggregates) and {@link
 * dev.tablecache.spark.plan.ColumnarInputPlan} (which plan a cache is built from, Spark 4.1's
 * {@code convertToColumnarPlanIfPossible}). {@link dev.tablecache.spark.plan.ScanMetricsRule} puts
 * a {@code TableCacheScanMetricsExec} ({@link dev.tablecache.spark.plan.ScanMetricsNode}, the final
 * class compiled per Spark line) above each of our scans: the pass-through node that owns the
 * scan's SQL metrics and installs them ({@code ScanMetricsRDD}) while
 * its tasks build the scan's iterators. {@link dev.tablecache.spark.plan.PhysicalPlans} is what the
 * rules share: finding our cache scans (through their metrics nodes) and replacing nodes.
 *
 * <p>May use: Spark's planner, {@code spark.compat}, {@code spark.stats} (partial aggregates),
 * {@code spark.metrics} (the scan metrics the node installs),
 * {@code spark.read}, {@code spark.engine.foreign}, and the entry points in {@code
 * dev.tablecache.spark}. Engine-specific rules live with their engine ({@code spark.engine.comet}).
 */
package dev.tablecache.spark.plan;
