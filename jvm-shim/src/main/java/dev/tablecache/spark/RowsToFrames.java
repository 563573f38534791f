package dev.tablecache.spark;

import java.util.NoSuchElementException;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Row input: groups a partition's rows into cached batches of up to {@code batchRows} rows (or
 * {@code batchBytes} Arrow bytes). The Arrow vectors are released when the input ends or, at the
 * latest, when the task completes.
 */
final class RowsToFrames extends AbstractIterator<CachedBatch> {

  private final Iterator<InternalRow> rows;
  private final FrameWriter writer;

  RowsToFrames(Iterator<InternalRow> rows, Schema arrowSchema, WriteSettings settings) {
    this.rows = rows;
    this.writer = new FrameWriter(arrowSchema, settings);
    SparkCompat.onTaskCompletion(writer::close);
  }

  @Override
  public boolean hasNext() {
    boolean more = rows.hasNext();
    if (!more) {
      writer.close();
    }
    return more;
  }

  @Override
  public CachedBatch next() {
    if (!rows.hasNext()) {
      throw new NoSuchElementException();
    }
    do {
      writer.write(rows.next());
    } while (!writer.full() && rows.hasNext());
    return writer.flush();
  }
}
