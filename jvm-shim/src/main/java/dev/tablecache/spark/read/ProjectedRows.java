package dev.tablecache.spark.read;

import java.util.NoSuchElementException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Rows through a generic row view of each decoded batch plus Spark's {@code UnsafeProjection}
 * per row: the row path when code generation is off ({@code spark.sql.codegen.factoryMode=
 * NO_CODEGEN}, where the projection is interpreted), when the generated reader would be too big
 * to JIT-compile (Spark's projection splits its code into methods), or when it fails to compile.
 * {@link GeneratedRowReader}s are the usual path. Rows are projected copies, so none points into
 * a decoded batch's native memory.
 */
final class ProjectedRows extends AbstractIterator<InternalRow> {

  private final Iterator<ColumnarBatch> batches;
  private final UnsafeProjection toUnsafe;
  private java.util.Iterator<InternalRow> rows;

  ProjectedRows(Iterator<ColumnarBatch> batches, DataType[] types) {
    this.batches = batches;
    this.toUnsafe = UnsafeProjection.create(types);
  }

  @Override
  public boolean hasNext() {
    while (rows == null || !rows.hasNext()) {
      if (!batches.hasNext()) {
        rows = null;
        return false;
      }
      rows = batches.next().rowIterator();
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
