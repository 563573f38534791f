package dev.tablecache.spark.write;

import dev.tablecache.EncodedSchema;
import dev.tablecache.TableCache;
import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.memory.TaskAllocator;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;

/**
 * Row input without a per-value Java writer: each row's {@code UnsafeRow} bytes are copied, as
 * Spark laid them out, into one off-heap buffer, and the native writer transposes the batch into
 * columns (docs/ARCHITECTURE.md, "Row input"). Per row that is one memory copy, where Spark's
 * {@code ArrowWriter} makes a virtual call and a capacity check per value.
 *
 * <p>Rows that are not {@code UnsafeRow}s are projected into one first. The buffers come from a
 * per-task child allocator, are reused for every batch of the task, and are freed by {@link
 * #close()}.
 */
final class UnsafeRowFrameWriter implements RowBatchWriter {

  private static final long INITIAL_ROW_BYTES = 1L << 20;
  private static final int INITIAL_ROWS = 1024;

  private final EncodedSchema schema;
  private final WriteSettings settings;
  private final DataType[] types;
  private UnsafeProjection toUnsafe;
  private BufferAllocator allocator;
  private ArrowBuf rowBytes;
  private ArrowBuf starts;
  private long used;
  private int rows;
  private boolean closed;

  private UnsafeRowFrameWriter(EncodedSchema schema, StructType sparkSchema, WriteSettings s) {
    this.schema = schema;
    this.settings = s;
    StructField[] fields = sparkSchema.fields();
    this.types = new DataType[fields.length];
    for (int i = 0; i < fields.length; i++) {
      types[i] = fields[i].dataType();
    }
  }

  /**
   * A writer for this cache, or null when the native side cannot read some column's {@code
   * UnsafeRow} form (nested types, intervals, ...), which then go through {@link FrameWriter}.
   */
  static UnsafeRowFrameWriter forSchemaOrNull(
      EncodedSchema arrowSchema, StructType sparkSchema, WriteSettings settings) {
    if (!settings.unsafeRowInput || !TableCache.canSerializeUnsafeRows(arrowSchema)) {
      return null;
    }
    return new UnsafeRowFrameWriter(arrowSchema, sparkSchema, settings);
  }

  @Override
  public void write(InternalRow row) {
    if (rowBytes == null) {
      open();
    }
    UnsafeRow u = row instanceof UnsafeRow ? (UnsafeRow) row : project(row);
    int size = u.getSizeInBytes();
    reserve(size);
    starts.setLong(8L * rows, used);
    Platform.copyMemory(
        u.getBaseObject(), u.getBaseOffset(), null, rowBytes.memoryAddress() + used, size);
    used += size;
    rows++;
  }

  @Override
  public boolean full() {
    return rows >= settings.batchRows || used >= settings.batchBytes;
  }

  @Override
  public NativeCachedBatch flush() {
    if (rows == 0) {
      throw new IllegalStateException("no rows to flush");
    }
    starts.setLong(8L * rows, used);
    long began = System.nanoTime();
    byte[] frame =
        TableCache.serializeUnsafeRows(
            schema,
            rowBytes.memoryAddress(),
            used,
            starts.memoryAddress(),
            rows,
            settings.options());
    TableCacheMetrics.encoded(
        TableCacheMetrics.UNSAFE_ROW_INPUT_BYTES, used, frame, System.nanoTime() - began);
    int n = rows;
    rows = 0;
    used = 0;
    TableCacheMetrics.UNSAFE_ROW_FRAMES.increment();
    return FrameWriter.written(n, frame, settings);
  }

  private UnsafeRow project(InternalRow row) {
    if (toUnsafe == null) {
      toUnsafe = UnsafeProjection.create(types);
    }
    return toUnsafe.apply(row);
  }

  /** Room for one more row of {@code size} bytes and its start (plus the end marker). */
  private void reserve(int size) {
    if (used + size > rowBytes.capacity()) {
      rowBytes = grow(rowBytes, used, Math.max(2 * rowBytes.capacity(), used + size));
    }
    long startsNeeded = 8L * (rows + 2);
    if (startsNeeded > starts.capacity()) {
      starts = grow(starts, 8L * (rows + 1), Math.max(2 * starts.capacity(), startsNeeded));
    }
  }

  /** A larger buffer holding the first {@code keep} bytes of {@code old}, which is freed. */
  private ArrowBuf grow(ArrowBuf old, long keep, long capacity) {
    ArrowBuf bigger = allocator.buffer(capacity);
    bigger.setBytes(0, old, 0, keep);
    old.close();
    return bigger;
  }

  private void open() {
    if (closed) {
      throw new IllegalStateException("UnsafeRowFrameWriter is closed");
    }
    allocator = TaskAllocator.open("write-rows");
    rowBytes = allocator.buffer(Math.min(INITIAL_ROW_BYTES, Math.max(1L, settings.batchBytes)));
    starts = allocator.buffer(8L * (Math.min(INITIAL_ROWS, settings.batchRows) + 1));
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (rowBytes != null) {
      rowBytes.close();
      starts.close();
      rowBytes = null;
      starts = null;
    }
    TaskAllocator.close(allocator);
    allocator = null;
  }
}
