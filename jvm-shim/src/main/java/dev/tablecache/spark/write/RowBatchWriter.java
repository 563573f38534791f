package dev.tablecache.spark.write;

import dev.tablecache.spark.NativeCachedBatch;
import org.apache.spark.sql.catalyst.InternalRow;

/** Gathers a partition's rows into cached batches, one batch at a time. */
interface RowBatchWriter extends AutoCloseable {

  /** Adds one row to the pending batch; the row may be reused by its producer afterwards. */
  void write(InternalRow row);

  /** Whether the pending batch reached the row or byte target. */
  boolean full();

  /** Writes the pending rows (at least one) as a cached batch and starts the next batch. */
  NativeCachedBatch flush();

  /** Frees the writer's memory; idempotent. */
  @Override
  void close();
}
