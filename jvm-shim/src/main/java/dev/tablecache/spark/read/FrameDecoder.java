package dev.tablecache.spark.read;

import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.CheckedFrame;
import dev.tablecache.jni.NativeColumn;
import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.memory.DecodedMemory;
import dev.tablecache.spark.memory.TaskAllocator;
import dev.tablecache.spark.metrics.ScanMetrics;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Decodes cached batches of one task, one at a time: only the projected columns, into vectors
 * backed by native memory. Holds at most one decoded batch: decoding the next one, {@link
 * #release()} and {@link #close()} (registered at task completion) free the previous one's
 * native memory, so a task never pins all its batches.
 */
public final class FrameDecoder implements BatchDecoder {

  private final int[] decodeColumns;
  private final int[] outputSlot;
  private final DataType[] decodeTypes;
  /** Whether every decoded column is read by {@link NativeColumnVector} (no Arrow Java). */
  private final boolean allFlat;
  private BufferAllocator allocator;
  /** The batch decoded last through Arrow Java, or null. */
  private VectorSchemaRoot current;
  /** Its nested columns with binary strings, loaded again as strings ({@link RawStringVectors}). */
  private final List<VectorSchemaRoot> retyped = new ArrayList<>();
  /** The batch decoded last by address, or null. */
  private NativeColumn[] currentColumns;
  private boolean closed;
  /** The decoded batch's native memory, accounted to the task's execution memory. */
  private final DecodedMemory memory = DecodedMemory.forCurrentTask();
  /** The SQL metrics of the scan node this decoder reads for. */
  private final ScanMetrics scan;

  /**
   * Static setting (SparkConf, read on the executors): whether string dictionaries are read as
   * keys over their entries (true, the default) or materialised one value per row.
   */
  public static final String DICTIONARY_STRINGS_KEY = "spark.tablecache.dictionaryStrings";

  private final boolean dictionaryStrings = dictionaryStrings();

  /**
   * A decoder for the scan being built on this thread ({@link ScanMetrics#current()}).
   *
   * @param projection cache column index of every output column (duplicates allowed)
   * @param outputTypes Spark type of every output column
   */
  public FrameDecoder(int[] projection, DataType[] outputTypes) {
    this(projection, outputTypes, ScanMetrics.current());
  }

  /** A decoder whose decodes count into {@code scan}. */
  public FrameDecoder(int[] projection, DataType[] outputTypes, ScanMetrics scan) {
    this.scan = scan;
    ProjectionSlots slots = new ProjectionSlots(projection, outputTypes);
    decodeColumns = slots.decodeColumns;
    outputSlot = slots.outputSlot;
    decodeTypes = slots.decodeTypes;
    boolean flat = true;
    for (DataType t : decodeTypes) {
      flat &= NativeColumnVector.supports(t);
    }
    allFlat = flat;
    SparkCompat.onTaskCompletion(this::close);
  }

  /** Decodes {@code batch}, first releasing the previously decoded batch. */
  @Override
  public synchronized ColumnarBatch decode(CachedBatch batch) {
    release();
    long began = System.nanoTime();
    if (closed) {
      throw new IllegalStateException("FrameDecoder is closed (task completed)");
    }
    NativeCachedBatch b = ours(batch);
    if (decodeColumns.length == 0) {
      TableCacheMetrics.BATCHES_ROWS_ONLY.increment();
      return new ColumnarBatch(new ColumnVector[0], b.numRows());
    }
    // The batch's one parse of its frame's metadata (the stats filter's, when it ran first).
    CheckedFrame frame = b.checkedFrame();
    memory.acquire(frame.decodedBytes(decodeColumns));
    ColumnVector[] decoded = allFlat ? decodeFlat(b, frame) : decodeWithArrowJava(b, frame);
    ColumnVector[] out = new ColumnVector[outputSlot.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = decoded[outputSlot[i]];
    }
    scan.batchDecoded(decodedBytes(), System.nanoTime() - began);
    return new ColumnarBatch(out, b.numRows());
  }

  /** The bytes of the decoded batch's buffers (native columns, or Arrow Java vectors). */
  private long decodedBytes() {
    long bytes = 0;
    if (currentColumns != null) {
      for (NativeColumn c : currentColumns) {
        for (int i = 0; i < c.bufferCount(); i++) {
          bytes += c.size(i);
        }
      }
    }
    if (current != null) {
      for (FieldVector v : current.getFieldVectors()) {
        bytes += v.getBufferSize();
      }
    }
    return bytes;
  }

  /** {@value #DICTIONARY_STRINGS_KEY} of this executor's SparkConf (true without one). */
  static boolean dictionaryStrings() {
    SparkEnv env = SparkEnv.get();
    return env == null || env.conf().getBoolean(DICTIONARY_STRINGS_KEY, true);
  }

  /** Every decoded column read by address: no Arrow Java vector, allocator or loader. */
  private ColumnVector[] decodeFlat(NativeCachedBatch b, CheckedFrame frame) {
    long began = System.nanoTime();
    NativeColumn[] columns =
        TableCache.deserializeColumnsChecked(frame, decodeColumns, dictionaryStrings);
    TableCacheMetrics.DECODE_NANOS.add(System.nanoTime() - began);
    currentColumns = columns;
    TableCacheMetrics.LIVE_DECODED_BATCHES.increment();
    TableCacheMetrics.BATCHES_DECODED.increment();
    for (NativeColumn c : columns) {
      checkRows(b, c.length);
      if (c.dictionary) {
        TableCacheMetrics.DICTIONARY_COLUMNS.increment();
      }
    }
    ColumnVector[] decoded = new ColumnVector[columns.length];
    for (int i = 0; i < decoded.length; i++) {
      decoded[i] = NativeColumnVector.of(columns[i], decodeTypes[i]);
    }
    return decoded;
  }

  /** Through Arrow Java vectors: a batch with a nested, interval or null column. */
  private ColumnVector[] decodeWithArrowJava(NativeCachedBatch b, CheckedFrame frame) {
    if (allocator == null) {
      allocator = TaskAllocator.open("read");
    }
    long began = System.nanoTime();
    VectorSchemaRoot root = TableCache.deserializeChecked(frame, decodeColumns, allocator);
    TableCacheMetrics.DECODE_NANOS.add(System.nanoTime() - began);
    current = root;
    TableCacheMetrics.LIVE_DECODED_BATCHES.increment();
    TableCacheMetrics.BATCHES_DECODED.increment();
    checkRows(b, root.getRowCount());
    if (root.getFieldVectors().size() != decodeColumns.length) {
      release();
      throw new IllegalStateException(
          "decoded "
              + root.getFieldVectors().size()
              + " columns, expected "
              + decodeColumns.length);
    }
    ColumnVector[] decoded = new ColumnVector[decodeColumns.length];
    for (int i = 0; i < decoded.length; i++) {
      FieldVector v = root.getVector(i);
      if (!NativeColumnVector.supports(decodeTypes[i])
          && RawStringVectors.hasBinaryStrings(v.getField(), decodeTypes[i])) {
        VectorSchemaRoot asStrings = RawStringVectors.retyped(v, decodeTypes[i], allocator);
        retyped.add(asStrings);
        v = asStrings.getVector(0);
      }
      decoded[i] = vectorOf(v, decodeTypes[i]);
    }
    return decoded;
  }

  /**
   * Readers index the decoded columns by row id up to the batch's row count: a count that
   * differs from what was decoded (a damaged stored block) never reaches them. Releases the
   * decoded batch before throwing.
   */
  private void checkRows(NativeCachedBatch b, int decodedRows) {
    if (decodedRows != b.numRows()) {
      release();
      throw rowCountMismatch(b.numRows(), decodedRows);
    }
  }

  /** The error when a cached batch's row count differs from its decoded frame's. */
  public static TableCacheException rowCountMismatch(int batchRows, int decodedRows) {
    return new TableCacheException(
        TableCacheException.Kind.CORRUPT_FRAME,
        "cached batch says "
            + batchRows
            + " rows but its frame decodes to "
            + decodedRows
            + ": the stored block is damaged");
  }

  /** {@code batch} as one of ours, or an error naming what it is. */
  public static NativeCachedBatch ours(CachedBatch batch) {
    if (!(batch instanceof NativeCachedBatch)) {
      throw new IllegalStateException(
          "tablecache cannot decode a "
              + batch.getClass().getName()
              + ": this cache was not written by NativeCachedBatchSerializer");
    }
    return (NativeCachedBatch) batch;
  }

  /**
   * The column vector Spark reads a decoded column through; {@link
   * NativeCachedBatchSerializer#vectorTypes} reports the same class per type.
   */
  static ColumnVector vectorOf(ValueVector v, DataType type) {
    return NativeColumnVector.supports(type)
        ? NativeColumnVector.wrap(v, type)
        : new ArrowColumnVector(v);
  }

  /** The class {@link #vectorOf} returns for a column of this type. */
  public static String vectorClassOf(DataType type) {
    return (NativeColumnVector.supports(type) ? NativeColumnVector.class : ArrowColumnVector.class)
        .getName();
  }

  /**
   * Frees the native memory of the batch decoded last, if any. Everything is released even when
   * one release fails; the first failure is rethrown afterwards (later ones suppressed in it).
   */
  public synchronized void release() {
    Throwable failure = null;
    for (VectorSchemaRoot asStrings : retyped) {
      failure = closeNoted(asStrings, failure);
    }
    retyped.clear();
    VectorSchemaRoot r = current;
    if (r != null) {
      current = null;
      TableCacheMetrics.LIVE_DECODED_BATCHES.decrement();
      failure = closeNoted(r, failure);
    }
    NativeColumn[] columns = currentColumns;
    if (columns != null) {
      currentColumns = null;
      TableCacheMetrics.LIVE_DECODED_BATCHES.decrement();
      try {
        NativeColumn.releaseAll(columns);
      } catch (RuntimeException | Error e) {
        failure = noted(failure, e);
      }
    }
    memory.releaseAll();
    if (failure instanceof RuntimeException) {
      throw (RuntimeException) failure;
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
  }

  private static Throwable closeNoted(VectorSchemaRoot root, Throwable failure) {
    try {
      root.close();
      return failure;
    } catch (RuntimeException | Error e) {
      return noted(failure, e);
    }
  }

  /** The first failure, with {@code e} suppressed in it when there was one already. */
  private static Throwable noted(Throwable first, Throwable e) {
    if (first == null) {
      return e;
    }
    first.addSuppressed(e);
    return first;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      release();
    } finally {
      TaskAllocator.close(allocator);
      allocator = null;
    }
  }
}
