package dev.tablecache.spark.metrics;

import dev.tablecache.jni.NativeCodec;
import dev.tablecache.jni.NativeLibrary;

/** Reads the native library's allocation figures ({@link NativeCodec#allocationStats()}). */
final class NativeMemory {

  /** Indices into {@link NativeCodec#allocationStats()}. */
  static final int LIVE_HANDLES = 0;

  static final int LIVE_BYTES = 1;
  static final int ALLOCATED_BYTES = 2;
  static final int RESIDENT_BYTES = 3;

  private NativeMemory() {}

  /**
   * One figure, or -1 when the library is not available (a metrics reporter must not fail, and
   * the allocator figures are -1 already when the library was built without jemalloc).
   */
  static long read(int field) {
    if (!NativeLibrary.isAvailable()) {
      return -1;
    }
    long[] stats = NativeCodec.allocationStats();
    return field < stats.length ? stats[field] : -1;
  }
}
