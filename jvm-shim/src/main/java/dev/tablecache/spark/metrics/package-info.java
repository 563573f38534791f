/**
 * Counters: {@link dev.tablecache.spark.metrics.TableCacheMetrics} (one JVM-wide set, counted by
 * every other package), {@link dev.tablecache.spark.metrics.Count} (a Dropwizard counter), {@link
 * dev.tablecache.spark.metrics.NativeMemory} (the native library's allocation figures) and {@link
 * dev.tablecache.spark.metrics.ExecutorMetricSet} (the names under which {@code TableCachePlugin}
 * publishes them in Spark's metrics system).
 *
 * <p>May use: Dropwizard metrics and {@code dev.tablecache.jni} (allocation figures): every other
 * package counts, so this one uses none of them.
 */
package dev.tablecache.spark.metrics;
