package dev.tablecache.spark;

import dev.tablecache.CacheFormat;
import java.util.concurrent.atomic.LongAdder;

/**
 * JVM-wide counters of this executor's cache work. They exist so that tests (and curious
 * operators, through a debugger or a heap dump) can prove what happened: how many frames of
 * each format were written, how many batches the stats filter skipped, how many were decoded and
 * whether every decoded batch's native memory was released.
 */
final class TableCacheMetrics {

  private TableCacheMetrics() {}

  static final LongAdder FRAMES_WRITTEN_V3 = new LongAdder();
  static final LongAdder FRAMES_WRITTEN_V2 = new LongAdder();
  static final LongAdder FRAMES_WRITTEN_LEGACY = new LongAdder();
  /** Frames written straight from Arrow input vectors, without a copy. */
  static final LongAdder ZERO_COPY_FRAMES = new LongAdder();
  /** Frames written from UnsafeRow bytes transposed by the native side (row input). */
  static final LongAdder UNSAFE_ROW_FRAMES = new LongAdder();
  /** Input columnar batches copied into the coalescing writer. */
  static final LongAdder COPIED_INPUT_BATCHES = new LongAdder();
  /** Batches the stats filter let through / skipped. */
  static final LongAdder BATCHES_KEPT = new LongAdder();
  static final LongAdder BATCHES_PRUNED = new LongAdder();
  /** Batches decoded through the native library (a projection of at least one column). */
  static final LongAdder BATCHES_DECODED = new LongAdder();
  /** Batches served without any decode (no column selected: row counts only). */
  static final LongAdder BATCHES_ROWS_ONLY = new LongAdder();
  /** Row-output tasks read by a generated reader / through the generic projection. */
  static final LongAdder ROW_READERS_GENERATED = new LongAdder();
  static final LongAdder ROW_READERS_PROJECTED = new LongAdder();
  /** Decoded batches whose native memory is not released yet. */
  static final LongAdder LIVE_DECODED_BATCHES = new LongAdder();
  /** Cached batches closed by Spark's block manager (block removed / unpersisted). */
  static final LongAdder BATCHES_CLOSED = new LongAdder();
  /** Damaged cached blocks this executor dropped so that Spark recomputes them (healing). */
  static final LongAdder BLOCKS_DROPPED = new LongAdder();
  /** Blocks found damaged again on a task's retry, where healing stops. */
  static final LongAdder BLOCKS_DAMAGED_AGAIN = new LongAdder();
  /** Per-task Arrow allocators that still held memory when closed (a leak: must stay 0). */
  static final LongAdder ALLOCATOR_LEAKS = new LongAdder();

  static void frameWritten(CacheFormat format) {
    switch (format) {
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

  /** A one-line summary, for logs and test failure messages. */
  static String summary() {
    return "written(v3="
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
        + ") kept="
        + BATCHES_KEPT.sum()
        + " pruned="
        + BATCHES_PRUNED.sum()
        + " decoded="
        + BATCHES_DECODED.sum()
        + " rowsOnly="
        + BATCHES_ROWS_ONLY.sum()
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
