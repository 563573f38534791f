package dev.tablecache.spark.engine.comet;

import dev.tablecache.TableCacheException;
import dev.tablecache.jni.NativeCodec;
import dev.tablecache.jni.NativeLibrary;
import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.memory.DecodedMemory;
import dev.tablecache.spark.metrics.ScanMetrics;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.read.BatchDecoder;
import dev.tablecache.spark.read.FrameDecoder;
import dev.tablecache.spark.read.ProjectionSlots;
import dev.tablecache.spark.read.RawStringVectors;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Decodes cached batches straight into Comet's vectors ({@link CometArrow}): the native decoder
 * exports each projected column through the Arrow C Data Interface and Comet imports it, so
 * Comet's native operators read our decoded buffers with no copy in between. The consumer owns
 * each batch (Comet's reader closes it once loaded); this decoder still closes the batch it
 * decoded last when the next is requested or the task ends, which is harmless after Comet's
 * close (closing a vector twice frees it once).
 */
public final class CometBatchDecoder implements BatchDecoder {

  private final CometArrow comet;
  private final ProjectionSlots slots;
  private ColumnarBatch current;
  private final DecodedMemory memory = DecodedMemory.forCurrentTask();
  /** The SQL metrics of the scan node this decoder reads for. */
  private final ScanMetrics scan = ScanMetrics.current();

  public CometBatchDecoder(CometArrow comet, int[] projection, DataType[] outputTypes) {
    this.comet = comet;
    this.slots = new ProjectionSlots(projection, outputTypes);
    SparkCompat.onTaskCompletion(this::close);
  }

  @Override
  public synchronized ColumnarBatch decode(CachedBatch batch) {
    close();
    NativeCachedBatch b = FrameDecoder.ours(batch);
    int n = slots.decodeColumns.length;
    if (n == 0) {
      TableCacheMetrics.BATCHES_ROWS_ONLY.increment();
      return new ColumnarBatch(new ColumnVector[0], b.numRows());
    }
    NativeLibrary.ensureLoaded();
    // The batch's one parse of its frame's metadata; Comet imports the schema the decode exports.
    memory.acquire(b.checkedFrame().decodedBytes(slots.decodeColumns));
    CometArrow.CStructs[] structs = new CometArrow.CStructs[n];
    ColumnVector[] decoded = new ColumnVector[n];
    boolean ok = false;
    try {
      long[] arrays = new long[n];
      long[] schemas = new long[n];
      for (int i = 0; i < n; i++) {
        structs[i] = comet.newStructs();
        arrays[i] = structs[i].arrayAddress;
        schemas[i] = structs[i].schemaAddress;
      }
      long began = System.nanoTime();
      int rows = NativeCodec.decodeToArrowC(b.frame(), slots.decodeColumns, arrays, schemas);
      TableCacheMetrics.DECODE_NANOS.add(System.nanoTime() - began);
      TableCacheMetrics.BATCHES_DECODED.increment();
      if (rows != b.numRows()) {
        throw FrameDecoder.rowCountMismatch(b.numRows(), rows);
      }
      long bytes = 0;
      for (int i = 0; i < n; i++) {
        decoded[i] = structs[i].importColumn();
        bytes += structs[i].importedBytes;
        requireUtf8(decoded[i], i);
      }
      scan.batchDecoded(bytes, System.nanoTime() - began);
      ColumnVector[] out = new ColumnVector[slots.outputSlot.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = decoded[slots.outputSlot[i]];
      }
      current = new ColumnarBatch(out, rows);
      ok = true;
      return current;
    } finally {
      for (CometArrow.CStructs s : structs) {
        if (s != null) {
          s.close();
        }
      }
      if (!ok) {
        for (ColumnVector v : decoded) {
          if (v != null) {
            v.close();
          }
        }
      }
    }
  }

  /**
   * Refuses a column whose strings (nested ones too) this batch stores as binary (Spark strings
   * that are not UTF-8, FORMAT.md "Strings that are not UTF-8"): Comet's native operators take
   * only UTF-8 strings.
   */
  private void requireUtf8(ColumnVector column, int i) {
    if (RawStringVectors.binaryWhereString(column.dataType(), slots.decodeTypes[i])) {
      throw new TableCacheException(
          TableCacheException.Kind.UNSUPPORTED_TYPE,
          "cached column "
              + slots.decodeColumns[i]
              + " holds strings whose bytes are not UTF-8 in this batch; Comet's native"
              + " operators take only UTF-8 strings, so let Spark's operators read this cache"
              + " (spark.comet.convert.inMemoryCache.enabled=false)");
    }
  }

  @Override
  public synchronized void close() {
    ColumnarBatch b = current;
    current = null;
    try {
      if (b != null) {
        b.close();
      }
    } finally {
      memory.releaseAll();
    }
  }
}
