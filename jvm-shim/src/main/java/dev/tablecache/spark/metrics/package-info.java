/**
 * Counters: {@link dev.tablecache.spark.metrics.TableCacheMetrics} (one JVM-wide set, counted by
 * every other package), {@link dev.tablecache.spark.metrics.Count} (a Dropwizard counter), {@link
 * dev.tablecache.spark.metrics.NativeMemory} (the native library's allocation figures) and {@link
 * dev.tablecache.spark.metrics.ExecutorMetricSet} (the names under which {@code TableCachePlugin}
 * publishes them in Spark's metrics system); and {@link
 * dev.tablecache.spark.metrics.ScanMetrics}, the SQL metrics of one scan node of a query, which
 * the scan's tasks install as their thread's current scan while they build its iterators.
 *
 * <p>May use: Dropwizard metrics, Spark's {@code SQLMetric} (the scan node's metrics, created by
 * {@code spark.plan}) and {@code dev.tablecache.jni} (allocation figures): every other package
 * counts, so this one uses none of them.
 */
package dev.tablecache.spark.metrics;
