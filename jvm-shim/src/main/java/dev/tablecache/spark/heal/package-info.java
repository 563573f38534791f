/**
 * Healing damaged cached blocks: {@link dev.tablecache.spark.heal.BlockHealer} turns a damaged
 * frame or stored block met on a task's first read attempt into the removal of that block from
 * the executor's block manager, so that Spark's retry reads a replica or recomputes the partition
 * from lineage; a later attempt that finds it damaged again fails without healing.
 *
 * <p>May use: Spark's block manager and task context, {@code spark.compat}, {@code
 * spark.metrics}.
 */
package dev.tablecache.spark.heal;
