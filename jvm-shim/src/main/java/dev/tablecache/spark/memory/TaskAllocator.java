package dev.tablecache.spark.memory;

import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Per-task child allocators of Spark's Arrow root allocator, closed with a leak check. */
public final class TaskAllocator {

  private static final Logger LOG = LoggerFactory.getLogger(TaskAllocator.class);
  private static final AtomicLong IDS = new AtomicLong();

  private TaskAllocator() {}

  public static BufferAllocator open(String purpose) {
    return SparkCompat.rootAllocator()
        .newChildAllocator(
            "tablecache-" + purpose + "-" + SparkCompat.taskName() + "-" + IDS.incrementAndGet(),
            0,
            Long.MAX_VALUE);
  }

  /**
   * Closes an allocator whose buffers should all be released by now. A leak is logged and
   * counted, not thrown: the task's result is already correct, and failing it would hide the
   * result behind a bookkeeping error.
   */
  public static void close(BufferAllocator allocator) {
    if (allocator == null) {
      return;
    }
    try {
      allocator.close();
    } catch (RuntimeException e) {
      TableCacheMetrics.ALLOCATOR_LEAKS.increment();
      LOG.warn("tablecache: allocator {} still held memory when closed", allocator.getName(), e);
    }
  }
}
