package dev.tablecache.spark.plan;

import dev.tablecache.spark.metrics.ScanMetrics;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import scala.collection.Iterator;
import scala.reflect.ClassTag;

/**
 * Its parent's partitions, unchanged, built with the scan node's {@link ScanMetrics} installed
 * as the task thread's current scan: Spark builds a scan's partition iterators (the stats filter,
 * the decoding iterator and its decoder, the partial aggregates) when the partition is computed,
 * all inside the parent's {@code iterator()} call, and each keeps the scan metrics current then.
 * Nothing is installed while rows or batches are pulled, so reading costs nothing more, and two
 * scans read in one task (a zipped join, a union) count into their own nodes.
 */
final class ScanMetricsRDD<T> extends RDD<T> {

  private static final long serialVersionUID = 1L;

  private final ScanMetrics metrics;
  private final ClassTag<T> tag;

  ScanMetricsRDD(RDD<T> parent, ScanMetrics metrics, ClassTag<T> tag) {
    super(parent, tag);
    this.metrics = metrics;
    this.tag = tag;
  }

  @Override
  public Iterator<T> compute(Partition split, TaskContext context) {
    ScanMetrics previous = ScanMetrics.install(metrics);
    try {
      return firstParent(tag).iterator(split, context);
    } finally {
      ScanMetrics.restore(previous);
    }
  }

  @Override
  public Partition[] getPartitions() {
    return firstParent(tag).partitions();
  }
}
