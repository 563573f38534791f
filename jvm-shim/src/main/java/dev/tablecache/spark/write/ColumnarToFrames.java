package dev.tablecache.spark.write;

import dev.tablecache.format.SchemaCodec;
import dev.tablecache.jni.BatchExporter;
import dev.tablecache.jni.NativeColumn;
import dev.tablecache.jni.RelocatedArrowExporter;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.engine.foreign.ForeignBatchGuard;
import dev.tablecache.spark.fallback.ArrowShapes;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.read.NativeColumnVector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Columnar input. A batch whose columns are all {@link ArrowColumnVector}s of the cache's Arrow
 * shape, or all an engine's vectors over its relocated Arrow Java (Comet's), and that holds at
 * least {@code zeroCopyMinRows} rows is serialized straight from its vectors (no copy). Every
 * other batch (on-heap/off-heap vectors, foreign Arrow shapes, small batches) is copied once into a reused Arrow writer, which coalesces consecutive small batches
 * into one cached batch of up to {@code batchRows} rows / {@code batchBytes} bytes: thousands of
 * tiny frames cost more than the data. Input order is preserved, and no input batch is retained
 * after the next one is requested (producers reuse their batches). A copied batch is first
 * checked by {@link ForeignBatchGuard}: another engine's vectors that cannot be read through
 * their getters fail the task with a clear error instead of being copied.
 */
public final class ColumnarToFrames extends AbstractIterator<CachedBatch> {

  private final Iterator<ColumnarBatch> in;
  private final StructType schema;
  private final Schema arrowSchema;
  private final WriteSettings settings;
  private final FrameWriter writer;
  private final ArrayDeque<CachedBatch> ready = new ArrayDeque<>();

  public ColumnarToFrames(
      Iterator<ColumnarBatch> in, StructType schema, Schema arrowSchema, WriteSettings settings) {
    this.in = in;
    this.schema = schema;
    this.arrowSchema = arrowSchema;
    this.settings = settings;
    this.writer = new FrameWriter(arrowSchema, settings);
    SparkCompat.onTaskCompletion(writer::close);
  }

  @Override
  public boolean hasNext() {
    fill();
    return !ready.isEmpty();
  }

  @Override
  public CachedBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.poll();
  }

  private void fill() {
    while (ready.isEmpty() && in.hasNext()) {
      ColumnarBatch batch = in.next();
      int n = batch.numRows();
      if (n == 0) {
        continue;
      }
      boolean large = n >= settings.zeroCopyMinRows;
      List<FieldVector> vectors = large ? arrowVectors(batch) : null;
      BatchExporter.Exported borrowed = null;
      if (large && vectors == null) {
        borrowed = nativeColumns(batch);
        if (borrowed == null) {
          borrowed = relocated(batch);
        }
      }
      if (vectors != null || borrowed != null) {
        if (writer.rows() > 0) {
          ready.add(writer.flush()); // keep input order
        }
        ready.add(
            vectors != null
                ? FrameWriter.serializeAsIs(vectors, n, settings)
                : FrameWriter.serializeBorrowed(borrowed, settings));
      } else {
        copy(batch);
      }
    }
    if (ready.isEmpty()) { // input exhausted
      if (writer.rows() > 0) {
        ready.add(writer.flush());
      }
      writer.close();
    }
  }

  private void copy(ColumnarBatch batch) {
    boolean foreign = ForeignBatchGuard.checkReadable(batch, schema);
    TableCacheMetrics.COPIED_INPUT_BATCHES.increment();
    java.util.Iterator<org.apache.spark.sql.catalyst.InternalRow> rows = batch.rowIterator();
    try {
      while (rows.hasNext()) {
        writer.write(rows.next());
        if (writer.full()) {
          ready.add(writer.flush());
        }
      }
    } catch (RuntimeException e) {
      // a foreign vector that passed the probe can still throw later: name it
      throw foreign ? ForeignBatchGuard.failedRead(batch, schema, e) : e;
    }
  }

  /**
   * The batch described by address when every column is an engine's relocated Arrow vector of
   * the cache's shape (Comet's CometVector over its shaded Arrow), else null.
   */
  private BatchExporter.Exported relocated(ColumnarBatch batch) {
    int cols = batch.numCols();
    List<Object> out = new ArrayList<>(cols);
    for (int i = 0; i < cols; i++) {
      Object v = RelocatedArrowExporter.relocatedVector(batch.column(i));
      if (v == null) {
        return null;
      }
      out.add(v);
    }
    return RelocatedArrowExporter.exportOrNull(arrowSchema, out, batch.numRows());
  }

  /**
   * The batch described by address when it is a cached table's own output decoded without
   * Arrow Java vectors (every column a {@link NativeColumnVector} over a {@link NativeColumn}) of
   * the cache's shape, else null.
   */
  private BatchExporter.Exported nativeColumns(ColumnarBatch batch) {
    int cols = batch.numCols();
    if (cols != arrowSchema.getFields().size()) {
      return null;
    }
    List<NativeColumn> out = new ArrayList<>(cols);
    for (int i = 0; i < cols; i++) {
      ColumnVector c = batch.column(i);
      NativeColumn column = c instanceof NativeColumnVector ? ((NativeColumnVector) c).nativeColumn() : null;
      // A dictionary column is not in its type's Arrow layout: the batch takes another path.
      if (column == null
          || column.dictionary
          || column.length != batch.numRows()
          || !ArrowShapes.sameShape(arrowSchema.getFields().get(i), column.field)) {
        return null;
      }
      out.add(column);
    }
    return BatchExporter.borrowedColumns(SchemaCodec.encode(arrowSchema), batch.numRows(), out);
  }

  /** The batch's Arrow vectors when all of them can be serialized as they are, else null. */
  private List<FieldVector> arrowVectors(ColumnarBatch batch) {
    int cols = batch.numCols();
    if (cols != arrowSchema.getFields().size()) {
      return null;
    }
    List<FieldVector> out = new ArrayList<>(cols);
    for (int i = 0; i < cols; i++) {
      ColumnVector c = batch.column(i);
      ValueVector v;
      if (c instanceof ArrowColumnVector) {
        v = ((ArrowColumnVector) c).getValueVector();
      } else if (c instanceof NativeColumnVector) {
        v = ((NativeColumnVector) c).getValueVector(); // a cached table's own output, or null
      } else {
        return null;
      }
      if (!(v instanceof FieldVector)
          || v.getValueCount() != batch.numRows()
          || !ArrowShapes.sameShape(arrowSchema.getFields().get(i), v.getField())) {
        return null;
      }
      out.add((FieldVector) v);
    }
    return out;
  }
}
