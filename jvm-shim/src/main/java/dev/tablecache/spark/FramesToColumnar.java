package dev.tablecache.spark;

import java.util.NoSuchElementException;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.sql.types.DataType;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Columnar output: one {@link ColumnarBatch} of {@code ArrowColumnVector}s per cached batch. A
 * batch stays valid until the next one is requested (or the input ends); then its native memory
 * is freed, as Spark's contract for reused column vectors allows.
 */
final class FramesToColumnar extends AbstractIterator<ColumnarBatch> {

  private final Iterator<CachedBatch> in;
  private final FrameDecoder decoder;

  FramesToColumnar(Iterator<CachedBatch> in, int[] projection, DataType[] outputTypes) {
    this.in = in;
    this.decoder = new FrameDecoder(projection, outputTypes);
  }

  @Override
  public boolean hasNext() {
    boolean more = in.hasNext();
    if (!more) {
      decoder.close();
    }
    return more;
  }

  @Override
  public ColumnarBatch next() {
    if (!in.hasNext()) {
      throw new NoSuchElementException();
    }
    return decoder.decode(in.next());
  }
}
