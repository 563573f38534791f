/**
 * Rows and columnar batches to frames: {@link dev.tablecache.spark.write.RowsToFrames} (Spark's
 * {@code ArrowWriter} into reused per-task vectors, or {@link
 * dev.tablecache.spark.write.UnsafeRowFrameWriter} straight from {@code UnsafeRow}s), {@link
 * dev.tablecache.spark.write.ColumnarToFrames} (Arrow input kept as it is when its shape fits,
 * else copied once and coalesced), and {@link dev.tablecache.spark.write.FrameWriter}, which hands
 * the Arrow buffers to the native writer and wraps the frame in a {@code NativeCachedBatch}. The
 * settings a write takes are {@link dev.tablecache.spark.write.WriteSettings}, read from the
 * session once per cache on the driver and shipped to executors.
 *
 * <p>May use: {@code dev.tablecache} (the facade, the batch exporters of {@code jni}, the header
 * and schema codec of {@code format}), {@code spark.compat}, {@code
 * spark.fallback} (Arrow shapes), {@code spark.memory} (task allocators), {@code spark.metrics},
 * {@code spark.engine.foreign} (foreign columnar input is refused before it is read), {@code
 * spark.read.NativeColumnVector} (our own vectors as input), and the entry points in {@code
 * dev.tablecache.spark}.
 */
package dev.tablecache.spark.write;
