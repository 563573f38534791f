package dev.tablecache.spark.write;

import dev.tablecache.EncodedSchema;
import dev.tablecache.spark.compat.SparkCompat;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.StructType;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Row input: groups a partition's rows into cached batches of up to {@code batchRows} rows (or
 * {@code batchBytes} bytes), through {@link UnsafeRowFrameWriter} where the native side reads
 * every column's UnsafeRow form, else through Spark's ArrowWriter ({@link FrameWriter}). The
 * writer's memory is released when the input ends or, at the latest, when the task completes.
 */
public final class RowsToFrames extends AbstractIterator<CachedBatch> {

  private final Iterator<InternalRow> rows;
  private final RowBatchWriter writer;

  public RowsToFrames(
      Iterator<InternalRow> rows, StructType schema, Schema arrowSchema, WriteSettings settings) {
    this.rows = rows;
    RowBatchWriter w =
        UnsafeRowFrameWriter.forSchemaOrNull(EncodedSchema.of(arrowSchema), schema, settings);
    this.writer = w != null ? w : new FrameWriter(arrowSchema, settings);
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
