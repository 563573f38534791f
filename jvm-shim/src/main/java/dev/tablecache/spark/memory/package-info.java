/**
 * Native and Arrow memory accounted to Spark: {@link dev.tablecache.spark.memory.TaskAllocator}
 * (a child of Spark's Arrow allocator per task, closed with a leak check at task end) and {@link
 * dev.tablecache.spark.memory.DecodedMemory} (decoded batches reserved as the task's execution
 * memory before they are decoded, as Comet accounts its native memory).
 *
 * <p>May use: Spark's memory manager and task context, Arrow Java, {@code spark.compat}, {@code
 * spark.metrics}.
 */
package dev.tablecache.spark.memory;
