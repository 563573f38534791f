/**
 * Frames to column vectors and rows: {@link dev.tablecache.spark.read.FrameDecoder} decodes the
 * selected columns of one batch at a time (a task holds at most one decoded batch), into {@link
 * dev.tablecache.spark.read.NativeColumnVector}s for flat types and Arrow vectors for nested
 * ones; {@link dev.tablecache.spark.read.FramesToColumnar} and {@link
 * dev.tablecache.spark.read.FramesToRows} are the per-partition iterators, the latter through a
 * row reader generated per projected signature ({@link
 * dev.tablecache.spark.read.RowReaderCodegen}). {@link dev.tablecache.spark.read.Projection} and
 * {@link dev.tablecache.spark.read.ProjectionSlots} map selected attributes to cache columns.
 *
 * <p>May use: {@code dev.tablecache} (the facade's decoder, the native columns of {@code jni}, the
 * checked frame and the layout table of {@code format}), {@code spark.compat}, {@code
 * spark.memory} (decoded memory is task execution memory), {@code spark.heal} (a damaged block is
 * dropped and recomputed), {@code spark.metrics}, and {@code spark.NativeCachedBatch}.
 */
package dev.tablecache.spark.read;
