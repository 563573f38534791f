package dev.tablecache.spark.read;

import java.util.function.UnaryOperator;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Decodes one task's cached batches, one at a time, into the column vectors a reader takes. */
public interface BatchDecoder extends AutoCloseable {

  /** Decodes {@code batch}; the batch decoded before may be freed now. */
  ColumnarBatch decode(CachedBatch batch);

  /**
   * How a failure outside {@link #decode} (a column decoded on its first read) is thrown:
   * {@code failures} maps it to the exception to throw, healing the block where it is damaged.
   * Decoders that decode everything in {@link #decode} ignore it.
   */
  default void failuresThrough(UnaryOperator<RuntimeException> failures) {}

  /** Frees what is still held (task completion). */
  @Override
  void close();
}
