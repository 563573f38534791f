package dev.tablecache.spark.read;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Base of the row readers {@link RowReaderCodegen} generates: walks the rows of a sequence of
 * decoded batches. A generated subclass keeps each column in a field typed as its vector class
 * ({@link #bind}) and writes row {@link #nextRowId()} into one reused {@code UnsafeRow}
 * ({@code next()}), so every value is one monomorphic read and one write.
 *
 * <p>Public only because generated classes live in Spark's code-generation package; it is
 * created by the serializer, never by users.
 */
public abstract class GeneratedRowReader extends AbstractIterator<InternalRow> {

  private Iterator<ColumnarBatch> batches;
  private int rowId;
  private int numRows;

  /**
   * Reads the rows of {@code decoded}. A batch is requested only once the previous one's rows
   * are all handed out, so decoding it may free the previous one (rows are copies).
   */
  final GeneratedRowReader reading(Iterator<ColumnarBatch> decoded) {
    this.batches = decoded;
    this.rowId = 0;
    this.numRows = 0;
    return this;
  }

  @Override
  public final boolean hasNext() {
    while (rowId >= numRows) {
      if (batches == null || !batches.hasNext()) {
        return false;
      }
      ColumnarBatch batch = batches.next();
      bind(batch);
      rowId = 0;
      numRows = batch.numRows();
    }
    return true;
  }

  /** The row {@code next()} writes: the current batch's next row, moving to a batch as needed. */
  protected final int nextRowId() {
    if (!hasNext()) {
      throw new java.util.NoSuchElementException();
    }
    return rowId++;
  }

  /** Takes the batch's columns into typed fields. */
  protected abstract void bind(ColumnarBatch batch);
}
