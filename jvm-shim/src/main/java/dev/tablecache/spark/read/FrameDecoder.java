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
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
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
  /** Per decoded column, whether a flat batch defers it to its first read. */
  private final boolean[] deferred;
  /** The cache indices of the decoded columns that are not deferred. */
  private final int[] eager;
  private BufferAllocator allocator;
  /** The batch decoded last through Arrow Java, or null. */
  private VectorSchemaRoot current;
  /** Its nested columns with binary strings, loaded again as strings ({@link RawStringVectors}). */
  private final List<VectorSchemaRoot> retyped = new ArrayList<>();
  /** Whether the batch decoded last was read by address ({@link #decodeFlat}). */
  private boolean flatLive;
  /** Its native columns decoded so far: deferred ones join when first read. */
  private final List<NativeColumn> currentColumns = new ArrayList<>();
  /** Its deferred columns ({@link NativeColumnVector#deferred}), decoded or not. */
  private final List<NativeColumnVector> deferredColumns = new ArrayList<>();
  /** Counts released batches: a deferred column of an earlier batch must not decode. */
  private long generation;
  /** What a failed deferred decode throws instead (healing; {@link #failuresThrough}). */
  private UnaryOperator<RuntimeException> failures = UnaryOperator.identity();
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
   * Static setting (SparkConf, read on the executors): whether, in a scan with predicates, a
   * batch's string and binary columns that no predicate reads are decoded on their first read
   * (true, the default) rather than with the batch. A filter reads them only for the rows it
   * keeps; a scan without predicates reads every column of every row, and there deferring only
   * costs (7-40% more executor CPU in the benchmark's full scans). Applies to batches that
   * decode more than one column.
   */
  public static final String DEFER_STRINGS_KEY = "spark.tablecache.deferStringDecode";

  private final boolean deferStrings = setting(DEFER_STRINGS_KEY);

  /**
   * A decoder for the scan being built on this thread ({@link ScanMetrics#current()}) that
   * decodes every projected column with its batch.
   *
   * @param projection cache column index of every output column (duplicates allowed)
   * @param outputTypes Spark type of every output column
   */
  public FrameDecoder(int[] projection, DataType[] outputTypes) {
    this(projection, outputTypes, null, ScanMetrics.current());
  }

  /**
   * A decoder for the scan being built on this thread whose predicates read the cache columns
   * {@code predicateColumns} ({@link dev.tablecache.spark.stats.StatsFilter#predicateColumnsOf};
   * null when the scan has none): its other string and binary columns are decoded on first
   * read ({@link #DEFER_STRINGS_KEY}).
   */
  public FrameDecoder(int[] projection, DataType[] outputTypes, int[] predicateColumns) {
    this(projection, outputTypes, predicateColumns, ScanMetrics.current());
  }

  /** A decoder whose decodes count into {@code scan}; every column decoded with its batch. */
  public FrameDecoder(int[] projection, DataType[] outputTypes, ScanMetrics scan) {
    this(projection, outputTypes, null, scan);
  }

  private FrameDecoder(
      int[] projection, DataType[] outputTypes, int[] predicateColumns, ScanMetrics scan) {
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
    deferred = new boolean[decodeColumns.length];
    int eagerCount = 0;
    for (int i = 0; i < deferred.length; i++) {
      deferred[i] =
          deferStrings
              && predicateColumns != null
              && deferred.length > 1
              && NativeColumnVector.deferrable(decodeTypes[i])
              && Arrays.binarySearch(predicateColumns, decodeColumns[i]) < 0;
      eagerCount += deferred[i] ? 0 : 1;
    }
    eager = new int[eagerCount];
    for (int i = 0, e = 0; i < deferred.length; i++) {
      if (!deferred[i]) {
        eager[e++] = decodeColumns[i];
      }
    }
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
    for (NativeColumn c : currentColumns) {
      bytes += bytesOf(c);
    }
    if (current != null) {
      for (FieldVector v : current.getFieldVectors()) {
        bytes += v.getBufferSize();
      }
    }
    return bytes;
  }

  private static long bytesOf(NativeColumn c) {
    long bytes = 0;
    for (int i = 0; i < c.bufferCount(); i++) {
      bytes += c.size(i);
    }
    return bytes;
  }

  /** {@value #DICTIONARY_STRINGS_KEY} of this executor's SparkConf (true without one). */
  static boolean dictionaryStrings() {
    return setting(DICTIONARY_STRINGS_KEY);
  }

  /** A boolean static setting of this executor's SparkConf, true by default and without one. */
  private static boolean setting(String key) {
    SparkEnv env = SparkEnv.get();
    return env == null || env.conf().getBoolean(key, true);
  }

  /**
   * Healing for a deferred column's decode, which fails outside {@link #decode}: {@code
   * failures} turns its exception into the one to throw.
   */
  @Override
  public synchronized void failuresThrough(UnaryOperator<RuntimeException> failures) {
    this.failures = failures;
  }

  /**
   * Every decoded column read by address: no Arrow Java vector, allocator or loader. String and
   * binary columns of a batch of several columns are deferred to their first read.
   */
  private ColumnVector[] decodeFlat(NativeCachedBatch b, CheckedFrame frame) {
    flatLive = true;
    TableCacheMetrics.LIVE_DECODED_BATCHES.increment();
    TableCacheMetrics.BATCHES_DECODED.increment();
    NativeColumn[] columns = new NativeColumn[0];
    if (eager.length > 0) {
      memory.acquire(frame.decodedBytes(eager));
      long began = System.nanoTime();
      columns = TableCache.deserializeColumnsChecked(frame, eager, dictionaryStrings);
      TableCacheMetrics.DECODE_NANOS.add(System.nanoTime() - began);
      currentColumns.addAll(Arrays.asList(columns));
      for (NativeColumn c : columns) {
        checkRows(b, c.length);
        countDictionary(c);
      }
    }
    ColumnVector[] decoded = new ColumnVector[decodeColumns.length];
    long batch = generation;
    for (int i = 0, e = 0; i < decoded.length; i++) {
      if (deferred[i]) {
        int column = decodeColumns[i];
        DataType type = decodeTypes[i];
        NativeColumnVector v =
            NativeColumnVector.deferred(
                decodeTypes[i], () -> decodeDeferred(b, frame, column, type, batch));
        deferredColumns.add(v);
        decoded[i] = v;
      } else {
        decoded[i] = NativeColumnVector.of(columns[e++], decodeTypes[i]);
      }
    }
    return decoded;
  }

  private static void countDictionary(NativeColumn c) {
    if (c.dictionary) {
      TableCacheMetrics.DICTIONARY_COLUMNS.increment();
    }
  }

  /**
   * The decode of deferred column {@code column} (Spark type {@code type}) of the batch of
   * generation {@code batch}, on its first read, and its checked view. The column joins the batch's, to be freed with it; a failure goes through
   * {@link #failures}, and leaves the batch's other columns alone (the task fails with it).
   */
  private synchronized NativeColumnVector decodeDeferred(
      NativeCachedBatch b, CheckedFrame frame, int column, DataType type, long batch) {
    if (closed || batch != generation) {
      throw new IllegalStateException(
          "a column of a released batch was read: a batch is valid only until the next one");
    }
    try {
      int[] one = {column};
      memory.acquire(frame.decodedBytes(one));
      long began = System.nanoTime();
      NativeColumn c = TableCache.deserializeColumnsChecked(frame, one, dictionaryStrings)[0];
      long nanos = System.nanoTime() - began;
      TableCacheMetrics.DECODE_NANOS.add(nanos);
      currentColumns.add(c);
      if (c.length != b.numRows()) {
        throw rowCountMismatch(b.numRows(), c.length);
      }
      countDictionary(c);
      TableCacheMetrics.DEFERRED_COLUMNS_DECODED.increment();
      scan.columnDecoded(bytesOf(c), nanos);
      return NativeColumnVector.of(c, type);
    } catch (RuntimeException e) {
      throw failures.apply(e);
    }
  }

  /** Through Arrow Java vectors: a batch with a nested, interval or null column. */
  private ColumnVector[] decodeWithArrowJava(NativeCachedBatch b, CheckedFrame frame) {
    if (allocator == null) {
      allocator = TaskAllocator.open("read");
    }
    memory.acquire(frame.decodedBytes(decodeColumns));
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
    generation++;
    for (NativeColumnVector v : deferredColumns) {
      if (v.isPending()) {
        TableCacheMetrics.DEFERRED_COLUMNS_SKIPPED.increment();
      }
    }
    deferredColumns.clear();
    if (flatLive) {
      flatLive = false;
      TableCacheMetrics.LIVE_DECODED_BATCHES.decrement();
    }
    if (!currentColumns.isEmpty()) {
      NativeColumn[] columns = currentColumns.toArray(new NativeColumn[0]);
      currentColumns.clear();
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
