package dev.tablecache.spark;

import java.util.NoSuchElementException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Row output, on the same decode as {@link FramesToColumnar}: every row is projected into an
 * {@code UnsafeRow} (Spark's reused-row convention), so no row handed out ever points into a
 * decoded batch's native memory, which is freed as soon as the next batch is decoded.
 */
final class FramesToRows extends AbstractIterator<InternalRow> {

  private final Iterator<CachedBatch> in;
  private final FrameDecoder decoder;
  private final UnsafeProjection toUnsafe;
  private java.util.Iterator<InternalRow> rows;

  FramesToRows(Iterator<CachedBatch> in, int[] projection, DataType[] outputTypes) {
    this.in = in;
    this.decoder = new FrameDecoder(projection, outputTypes);
    this.toUnsafe = UnsafeProjection.create(outputTypes);
  }

  @Override
  public boolean hasNext() {
    while (rows == null || !rows.hasNext()) {
      if (!in.hasNext()) {
        rows = null;
        decoder.close();
        return false;
      }
      rows = decoder.decode(in.next()).rowIterator();
    }
    return true;
  }

  @Override
  public InternalRow next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return toUnsafe.apply(rows.next());
  }
}
