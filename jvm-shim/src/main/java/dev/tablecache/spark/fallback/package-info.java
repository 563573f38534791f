/**
 * Whether a cache is written by tablecache or by Spark's default serializer: {@link
 * dev.tablecache.spark.fallback.Fallback} (the native library's capability on this JVM and the
 * {@code spark.tablecache.onUnavailable} setting), {@link dev.tablecache.spark.fallback.ArrowShapes}
 * (which Spark schemas have an Arrow shape we write, and which Arrow inputs may be kept as they
 * are) and {@link dev.tablecache.spark.fallback.ReadBounds} (schemas the reader would refuse are
 * never written). The decision is made once per cache, on the driver, and every SPI method of the
 * serializer follows it.
 *
 * <p>May use: {@code dev.tablecache} (the Capability chain in {@code jni}, the schema codec and
 * bounds in {@code format}), {@code spark.compat}, {@code spark.TableCacheConf}.
 */
package dev.tablecache.spark.fallback;
