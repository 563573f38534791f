/**
 * A frame's statistics as Spark uses them: {@link dev.tablecache.spark.stats.StatsRows} (the
 * frame's stats as the {@code SimpleMetricsCachedBatch} row), {@link
 * dev.tablecache.spark.stats.StatsPredicates} (pruning predicates: NaN-correct, a missing bound is
 * unbounded, no bound pruning for collated strings and intervals), {@link
 * dev.tablecache.spark.stats.StatsFilter} (the per-partition filter), {@link
 * dev.tablecache.spark.stats.ColumnExtremes} (which bounds are exact values) and {@link
 * dev.tablecache.spark.stats.PartialAggregates} (a partial aggregate row per batch from the stats,
 * decoding only what the stats cannot answer).
 *
 * <p>May use: {@code dev.tablecache.format} (the parsed column stats), {@code spark.compat}, {@code
 * spark.read} (to decode what the stats do not hold), {@code spark.heal}, {@code spark.metrics},
 * and {@code spark.NativeCachedBatch}.
 */
package dev.tablecache.spark.stats;
