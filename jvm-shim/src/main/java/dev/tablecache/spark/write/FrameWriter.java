package dev.tablecache.spark.write;

import dev.tablecache.CacheFormat;
import dev.tablecache.TableCache;
import dev.tablecache.format.Header;
import dev.tablecache.jni.BatchExporter;
import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.memory.TaskAllocator;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter;

/**
 * Accumulates rows into one set of Arrow vectors with Spark's {@link ArrowWriter} and turns them
 * into a frame when the batch is full. The vectors are allocated once (from a per-task child
 * allocator) and reused for every batch of the task; {@link #close()} frees them.
 */
final class FrameWriter implements RowBatchWriter {

  /** How often (in rows) the writer's byte size is checked against the byte target. */
  private static final int BYTE_CHECK_INTERVAL = 64;

  private final Schema arrowSchema;
  private final WriteSettings settings;
  private BufferAllocator allocator;
  private VectorSchemaRoot root;
  private ArrowWriter writer;
  private int rows;
  private boolean closed;

  FrameWriter(Schema arrowSchema, WriteSettings settings) {
    this.arrowSchema = arrowSchema;
    this.settings = settings;
  }

  @Override
  public void write(InternalRow row) {
    if (writer == null) {
      open();
    }
    writer.write(row);
    rows++;
  }

  int rows() {
    return rows;
  }

  @Override
  public boolean full() {
    if (rows >= settings.batchRows) {
      return true;
    }
    return rows % BYTE_CHECK_INTERVAL == 0
        && rows > 0
        && pendingBytes() >= settings.batchBytes;
  }

  /**
   * The Arrow bytes the pending rows occupy. Computed as Spark 4's {@code
   * ArrowWriter.sizeInBytes} does (each top-level vector's value count set to the rows written,
   * then its buffer size for them), but from the root we own: Spark 3.5's writer has no such
   * method, and this reads the same vectors on every line. Setting the value count mid-batch is
   * safe: the writer keeps appending after it.
   */
  private long pendingBytes() {
    long bytes = 0;
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(rows);
      bytes += v.getBufferSizeFor(rows);
    }
    return bytes;
  }

  /** Serializes the pending rows (at least one) and resets the vectors for the next batch. */
  @Override
  public NativeCachedBatch flush() {
    if (rows == 0) {
      throw new IllegalStateException("no rows to flush");
    }
    writer.finish();
    long inputBytes = arrowBytes(root.getFieldVectors(), rows);
    long began = System.nanoTime();
    byte[] frame = TableCache.serialize(root, settings.options());
    TableCacheMetrics.encoded(
        TableCacheMetrics.ARROW_INPUT_BYTES, inputBytes, frame, System.nanoTime() - began);
    int n = rows;
    writer.reset();
    rows = 0;
    return written(n, frame, settings);
  }

  /** Serializes Arrow vectors owned by someone else as they are (zero copy); borrows them. */
  static NativeCachedBatch serializeAsIs(List<FieldVector> vectors, int numRows, WriteSettings s) {
    List<Field> fields = new ArrayList<>(vectors.size());
    for (FieldVector v : vectors) {
      fields.add(v.getField());
    }
    // This constructor only wraps: it neither allocates nor touches the vectors' value counts.
    VectorSchemaRoot borrowed = new VectorSchemaRoot(fields, vectors, numRows);
    long inputBytes = arrowBytes(vectors, numRows);
    long began = System.nanoTime();
    byte[] frame = TableCache.serialize(borrowed, s.options());
    TableCacheMetrics.encoded(
        TableCacheMetrics.ARROW_INPUT_BYTES, inputBytes, frame, System.nanoTime() - began);
    TableCacheMetrics.ZERO_COPY_FRAMES.increment();
    return written(numRows, frame, s);
  }

  /**
   * Serializes an engine's relocated Arrow vectors as they are (zero copy), described by {@code
   * RelocatedArrowExporter}; the caller keeps them alive until this returns.
   */
  static NativeCachedBatch serializeBorrowed(BatchExporter.Exported batch, WriteSettings s) {
    long inputBytes = 0;
    for (int i = 1; i < batch.buffers.length; i += 2) {
      inputBytes += batch.buffers[i];
    }
    long began = System.nanoTime();
    byte[] frame = TableCache.serialize(batch, s.options());
    TableCacheMetrics.encoded(
        TableCacheMetrics.ARROW_INPUT_BYTES, inputBytes, frame, System.nanoTime() - began);
    TableCacheMetrics.ZERO_COPY_FRAMES.increment();
    return written(batch.rowCount, frame, s);
  }

  /** The Arrow buffer bytes of the first {@code rows} values of these vectors (metrics). */
  private static long arrowBytes(List<FieldVector> vectors, int rows) {
    long bytes = 0;
    for (FieldVector v : vectors) {
      bytes += v.getBufferSizeFor(rows);
    }
    return bytes;
  }

  static NativeCachedBatch written(int numRows, byte[] frame, WriteSettings s) {
    if (s.corruptFrames && frame.length > Header.META_CHECKSUM_AT) {
      // The stored meta checksum (V3): every decode, whatever its projection, fails on it.
      frame[Header.META_CHECKSUM_AT] ^= 0x5A;
    }
    TableCacheMetrics.frameWritten(CacheFormat.detect(frame));
    return new NativeCachedBatch(numRows, frame);
  }

  private void open() {
    if (closed) {
      throw new IllegalStateException("FrameWriter is closed");
    }
    allocator = TaskAllocator.open("write");
    root = VectorSchemaRoot.create(arrowSchema, allocator);
    writer = SparkCompat.createArrowWriter(root);
  }

  /** Frees the vectors and the allocator; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (root != null) {
      root.close();
      root = null;
      writer = null;
    }
    TaskAllocator.close(allocator);
    allocator = null;
  }
}
