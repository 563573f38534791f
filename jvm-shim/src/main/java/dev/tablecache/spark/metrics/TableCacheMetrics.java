package dev.tablecache.spark.metrics;

import dev.tablecache.CacheFormat;

/**
 * JVM-wide counters of this executor's cache work, since the JVM started: how many frames of each
 * format were written and how large, how many batches the stats filter skipped, how many were
 * decoded, how long encoding and decoding took, and whether every decoded batch's native memory
 * was released. Tests read them directly; operators read them through Spark's metrics system
 * when {@code TableCachePlugin} is enabled ({@link ExecutorMetricSet} names them). Each update is
 * per batch, never per row.
 */
public final class TableCacheMetrics {

  private TableCacheMetrics() {}

  public static final Count FRAMES_WRITTEN_V4 = new Count();
  public static final Count FRAMES_WRITTEN_V3 = new Count();
  public static final Count FRAMES_WRITTEN_V2 = new Count();
  public static final Count FRAMES_WRITTEN_LEGACY = new Count();
  /** Frames written straight from Arrow input vectors, without a copy. */
  public static final Count ZERO_COPY_FRAMES = new Count();
  /** Frames written from UnsafeRow bytes transposed by the native side (row input). */
  public static final Count UNSAFE_ROW_FRAMES = new Count();
  /** Arrow buffer bytes handed to the native writer (row input via ArrowWriter, columnar input). */
  public static final Count ARROW_INPUT_BYTES = new Count();
  /** UnsafeRow bytes handed to the native writer (row input transposed natively). */
  public static final Count UNSAFE_ROW_INPUT_BYTES = new Count();
  /** Frame bytes produced: what the cache stores. */
  public static final Count STORED_BYTES = new Count();
  /** Wall time spent in the native writer (serialize calls). */
  public static final Count ENCODE_NANOS = new Count();
  /** Input columnar batches copied into the coalescing writer. */
  public static final Count COPIED_INPUT_BATCHES = new Count();
  /** Batches the stats filter let through / skipped. */
  public static final Count BATCHES_KEPT = new Count();
  public static final Count BATCHES_PRUNED = new Count();
  /** Batches decoded through the native library (a projection of at least one column). */
  public static final Count BATCHES_DECODED = new Count();
  /** Decoded string columns read as keys over their dictionary's entries (not materialised). */
  public static final Count DICTIONARY_COLUMNS = new Count();
  /** String or binary columns of decoded batches decoded on their first read (deferred). */
  public static final Count DEFERRED_COLUMNS_DECODED = new Count();
  /** Deferred columns of decoded batches that nothing read: never decoded. */
  public static final Count DEFERRED_COLUMNS_SKIPPED = new Count();
  /** Wall time spent in the native reader (deserialize calls). */
  public static final Count DECODE_NANOS = new Count();
  /** Batches served without any decode (no column selected: row counts only). */
  public static final Count BATCHES_ROWS_ONLY = new Count();
  /** Row-output tasks read by a generated reader / through the generic projection. */
  /** Cached batches whose partial aggregates came from the frame's stats, without a decode. */
  public static final Count BATCHES_FROM_STATS = new Count();
  public static final Count ROW_READERS_GENERATED = new Count();
  public static final Count ROW_READERS_PROJECTED = new Count();
  /** Decoded batches whose native memory is not released yet. */
  public static final Count LIVE_DECODED_BATCHES = new Count();
  /** Cached batches closed by Spark's block manager (block removed / unpersisted). */
  public static final Count BATCHES_CLOSED = new Count();
  /** Damaged cached blocks this executor dropped so that Spark recomputes them (healing). */
  public static final Count BLOCKS_DROPPED = new Count();
  /** Blocks found damaged again on a task's retry, where healing stops. */
  public static final Count BLOCKS_DAMAGED_AGAIN = new Count();
  /** Per-task Arrow allocators that still held memory when closed (a leak: must stay 0). */
  public static final Count ALLOCATOR_LEAKS = new Count();

  public static void frameWritten(CacheFormat format) {
    switch (format) {
      case V4:
        FRAMES_WRITTEN_V4.increment();
        break;
      case V3:
        FRAMES_WRITTEN_V3.increment();
        break;
      case V2:
        FRAMES_WRITTEN_V2.increment();
        break;
      default:
        FRAMES_WRITTEN_LEGACY.increment();
    }
  }

  /** Records one serialize call: its input size, its frame and how long it took. */
  public static void encoded(Count inputKind, long inputBytes, byte[] frame, long nanos) {
    inputKind.add(inputBytes);
    STORED_BYTES.add(frame.length);
    ENCODE_NANOS.add(nanos);
  }

  /** A one-line summary, for logs and test failure messages. */
  public static String summary() {
    return "written(v4="
        + FRAMES_WRITTEN_V4.sum()
        + ", v3="
        + FRAMES_WRITTEN_V3.sum()
        + ", v2="
        + FRAMES_WRITTEN_V2.sum()
        + ", legacy="
        + FRAMES_WRITTEN_LEGACY.sum()
        + ", unsafeRows="
        + UNSAFE_ROW_FRAMES.sum()
        + ", zeroCopy="
        + ZERO_COPY_FRAMES.sum()
        + ", copiedInputBatches="
        + COPIED_INPUT_BATCHES.sum()
        + ", arrowBytes="
        + ARROW_INPUT_BYTES.sum()
        + ", unsafeRowBytes="
        + UNSAFE_ROW_INPUT_BYTES.sum()
        + ", storedBytes="
        + STORED_BYTES.sum()
        + ") kept="
        + BATCHES_KEPT.sum()
        + " pruned="
        + BATCHES_PRUNED.sum()
        + " decoded="
        + BATCHES_DECODED.sum()
        + " deferred(decoded="
        + DEFERRED_COLUMNS_DECODED.sum()
        + ", skipped="
        + DEFERRED_COLUMNS_SKIPPED.sum()
        + ") rowsOnly="
        + BATCHES_ROWS_ONLY.sum()
        + " fromStats="
        + BATCHES_FROM_STATS.sum()
        + " rowReaders(generated="
        + ROW_READERS_GENERATED.sum()
        + ", projected="
        + ROW_READERS_PROJECTED.sum()
        + ") liveDecoded="
        + LIVE_DECODED_BATCHES.sum()
        + " closed="
        + BATCHES_CLOSED.sum()
        + " blocksDropped="
        + BLOCKS_DROPPED.sum()
        + " blocksDamagedAgain="
        + BLOCKS_DAMAGED_AGAIN.sum()
        + " allocatorLeaks="
        + ALLOCATOR_LEAKS.sum();
  }
}
