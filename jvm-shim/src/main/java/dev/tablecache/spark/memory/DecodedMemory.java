package dev.tablecache.spark.memory;

import org.apache.spark.TaskContext;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * Accounts the native memory of one reader's decoded batches to Spark's memory manager, as the
 * task's execution memory, the way Comet accounts its native memory: off-heap execution memory
 * when {@code spark.memory.offHeap.enabled} (the budget users set for native memory), else
 * on-heap execution memory, which then shrinks for the task's other operators. Asking before a
 * decode lets Spark make other consumers spill, or make this task wait for its fair share
 * (1/2N of the pool), instead of letting decoded batches grow past the executor's memory
 * overhead unseen.
 *
 * <p>A decoded batch is still decoded when Spark grants less than asked (the task needs it to
 * make progress, and Spark's own serializer would decode it on the heap unaccounted); the grant
 * is held until the batch is released. Outside a task (tests, the driver's own reads) nothing is
 * accounted.
 */
public final class DecodedMemory {

  private final Consumer consumer;
  private long held;

  private DecodedMemory(Consumer consumer) {
    this.consumer = consumer;
  }

  /** For the current task; accounts nothing outside one. */
  public static DecodedMemory forCurrentTask() {
    TaskContext ctx = TaskContext.get();
    return new DecodedMemory(ctx == null ? null : new Consumer(ctx.taskMemoryManager()));
  }

  /** Before a decode of {@code bytes}: asks Spark for them (may make others spill, or wait). */
  public synchronized void acquire(long bytes) {
    if (consumer != null && bytes > 0) {
      held += consumer.acquireMemory(bytes);
    }
  }

  /** After the decoded batch is freed: gives back what was granted. */
  public synchronized void releaseAll() {
    if (consumer != null && held > 0) {
      consumer.freeMemory(held);
      held = 0;
    }
  }

  /** Bytes granted and not given back. */
  synchronized long held() {
    return held;
  }

  /** Decoded batches cannot be spilled: they are in use until the next batch is decoded. */
  private static final class Consumer extends MemoryConsumer {
    Consumer(TaskMemoryManager manager) {
      super(manager, manager.pageSizeBytes(), manager.getTungstenMemoryMode());
    }

    @Override
    public long spill(long size, MemoryConsumer trigger) {
      return 0;
    }

    @Override
    public String toString() {
      return "tablecache decoded batches";
    }
  }
}
