package dev.tablecache.spark.read;

import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Decodes one task's cached batches, one at a time, into the column vectors a reader takes. */
public interface BatchDecoder extends AutoCloseable {

  /** Decodes {@code batch}; the batch decoded before may be freed now. */
  ColumnarBatch decode(CachedBatch batch);

  /** Frees what is still held (task completion). */
  @Override
  void close();
}
