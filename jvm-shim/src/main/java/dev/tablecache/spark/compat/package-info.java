/**
 * Everything that differs between the Spark lines tablecache supports: {@link
 * dev.tablecache.spark.compat.SparkCompat} (one class for every line, choosing by reflection where
 * an API moved) and {@code SparkLine} (compiled once per line from {@code src/main/spark-3.5} or
 * {@code src/main/spark-4}, for what reflection cannot bridge, such as a Scala {@code Seq} in a
 * signature). Every other package calls Spark through these two wherever the lines differ, but
 * for the two classes that override a line's Scala signatures themselves and are compiled per
 * line too: {@code NativeCachedBatchSerializer} and {@code plan.TableCacheScanMetricsExec}.
 *
 * <p>May use: Spark, Scala, the JDK. Nothing else of tablecache (the per-line classes must compile
 * alone against each line).
 */
package dev.tablecache.spark.compat;
