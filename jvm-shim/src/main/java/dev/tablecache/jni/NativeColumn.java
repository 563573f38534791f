package dev.tablecache.jni;

import org.apache.arrow.vector.types.pojo.Field;

/**
 * One decoded flat column left in native memory, as the descriptor of {@code
 * NativeCodec.deserializeProjected} gives it: no Arrow Java vector is built over it. Its owner
 * frees it with {@link #release()} exactly once.
 */
public final class NativeColumn {

  /** The column's Arrow field, from the frame's schema. */
  public final Field field;

  /** Values, nulls included. */
  public final int length;

  /** Null values; the validity buffer is absent (size 0) when there are none. */
  public final int nullCount;

  /** {@code (address, size)} of each buffer, in Arrow IPC order (validity first). */
  private final long[] buffers;

  private final long handle;
  private boolean released;

  NativeColumn(Field field, int length, int nullCount, long[] buffers, long handle) {
    this.field = field;
    this.length = length;
    this.nullCount = nullCount;
    this.buffers = buffers;
    this.handle = handle;
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

  /** Frees the column's native memory; later calls do nothing. */
  public void release() {
    if (!released) {
      released = true;
      NativeCodec.release(handle);
    }
  }
}
