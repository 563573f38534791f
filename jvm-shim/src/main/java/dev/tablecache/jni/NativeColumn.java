package dev.tablecache.jni;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One decoded flat column left in native memory, as the descriptor of {@code
 * NativeCodec.deserializeProjected} gives it: no Arrow Java vector is built over it. Its owner
 * frees it with {@link #release()}, which frees the native memory exactly once however many
 * threads call it; {@link #releaseAll} frees several.
 */
public final class NativeColumn {

  /** The column's Arrow field, from the frame's schema. */
  public final Field field;

  /** Values, nulls included. */
  public final int length;

  /** Null values; the validity buffer is absent (size 0) when there are none. */
  public final int nullCount;

  /**
   * Whether the values are keys into a dictionary of entries (a string or binary column stored
   * as a string dictionary): buffers validity, one int key per value, the entries' int offsets,
   * the entries' bytes. Otherwise the buffers are Arrow's for the field's type.
   */
  public final boolean dictionary;

  /** {@code (address, size)} of each buffer, in Arrow IPC order (validity first). */
  private final long[] buffers;

  private final long handle;
  private final AtomicBoolean released = new AtomicBoolean();

  NativeColumn(
      Field field, int length, int nullCount, long[] buffers, long handle, boolean dictionary) {
    this.field = field;
    this.length = length;
    this.nullCount = nullCount;
    this.buffers = buffers;
    this.handle = handle;
    this.dictionary = dictionary;
  }

  /** Buffers, validity included. */
  public int bufferCount() {
    return buffers.length / 2;
  }

  /** Address of buffer {@code i}, 0 when the buffer is empty. */
  public long address(int i) {
    return buffers[2 * i];
  }

  /** Bytes of buffer {@code i}. */
  public long size(int i) {
    return buffers[2 * i + 1];
  }

  /**
   * Frees the column's native memory. Idempotent and thread-safe: of any number of calls, from
   * any threads, exactly one frees the handle and the others do nothing.
   */
  public void release() {
    if (released.compareAndSet(false, true)) {
      NativeCodec.release(handle);
    }
  }

  /**
   * Releases every column (null entries skipped), even when releasing one fails: the first
   * failure is rethrown afterwards, later ones added to it as suppressed.
   */
  public static void releaseAll(NativeColumn... columns) {
    Throwable first = null;
    for (NativeColumn c : columns) {
      if (c == null) {
        continue;
      }
      try {
        c.release();
      } catch (RuntimeException | Error e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    rethrow(first);
  }

  /** Throws {@code t} as it is (a RuntimeException or an Error), if not null. */
  private static void rethrow(Throwable t) {
    if (t instanceof RuntimeException) {
      throw (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
  }
}
