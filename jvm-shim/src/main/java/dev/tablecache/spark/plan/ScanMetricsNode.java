package dev.tablecache.spark.plan;

import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.metrics.ScanMetrics;
import org.apache.spark.SparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics$;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The body of {@code TableCacheScanMetricsExec}, the pass-through node above each of our cache
 * scans (or the adaptive query stage that wraps one, or the scan of partial aggregates that
 * {@link CachedAggregateRule} puts in a scan's place) that owns the scan's SQL metrics, shown on
 * the node in the Spark UI's SQL tab. It returns its child's rows or batches as they are; each
 * task installs the node's {@link ScanMetrics} while it builds the child's partition iterators
 * ({@link ScanMetricsRDD}), and the stats filter, the frame decoder and the partial aggregates
 * count into the metrics of the node whose task built them.
 *
 * <p>Output, partitioning, ordering, row and columnar support and vector types are the child's.
 * Copies (a new child) share the metrics, so the node Spark reports and the one it runs add to
 * the same accumulators. Two nodes are equal when their children are (exchange reuse compares
 * plans). {@code withNewChildrenInternal} and {@code vectorTypes} name line-specific Scala
 * collections: the final class is compiled per Spark line (src/main/spark-3.5, src/main/spark-4).
 */
public abstract class ScanMetricsNode extends SparkPlan {

  private static final long serialVersionUID = 1L;

  /** The metrics' keys in {@link #metrics()}, as Spark's own nodes key theirs. */
  public static final String BATCHES_READ = "numBatchesRead";

  public static final String BATCHES_PRUNED = "numBatchesPruned";
  public static final String BATCHES_DECODED = "numBatchesDecoded";
  public static final String BATCHES_FROM_STATS = "numBatchesFromStats";
  public static final String BYTES_DECODED = "bytesDecoded";
  public static final String DECODE_TIME = "decodeTime";

  private final SparkPlan child;
  private final scala.collection.immutable.Map<String, SQLMetric> metrics;
  private final ScanMetrics scanMetrics;

  /** A node over {@code child} with fresh metrics, registered with {@code sc}. */
  protected ScanMetricsNode(SparkPlan child, SparkContext sc) {
    this(child, newMetrics(sc));
  }

  /** A node over {@code child} that adds to {@code metrics} (a copy's). */
  protected ScanMetricsNode(
      SparkPlan child, scala.collection.immutable.Map<String, SQLMetric> metrics) {
    this.child = child;
    this.metrics = metrics;
    this.scanMetrics =
        new ScanMetrics(
            metrics.apply(BATCHES_READ),
            metrics.apply(BATCHES_PRUNED),
            metrics.apply(BATCHES_DECODED),
            metrics.apply(BATCHES_FROM_STATS),
            metrics.apply(BYTES_DECODED),
            metrics.apply(DECODE_TIME));
  }

  private static scala.collection.immutable.Map<String, SQLMetric> newMetrics(SparkContext sc) {
    SQLMetrics$ m = SQLMetrics$.MODULE$;
    scala.collection.immutable.Map<String, SQLMetric> map =
        scala.collection.immutable.Map$.MODULE$.empty();
    map = map.updated(BATCHES_READ, m.createMetric(sc, "cached batches read"));
    map = map.updated(BATCHES_PRUNED, m.createMetric(sc, "cached batches pruned by stats"));
    map = map.updated(BATCHES_DECODED, m.createMetric(sc, "cached batches decoded"));
    map =
        map.updated(BATCHES_FROM_STATS, m.createMetric(sc, "cached batches answered from stats"));
    map =
        map.updated(
            BYTES_DECODED, m.createSizeMetric(sc, "bytes decoded", m.createSizeMetric$default$3()));
    map =
        map.updated(
            DECODE_TIME,
            m.createNanoTimingMetric(sc, "time decoding", m.createNanoTimingMetric$default$3()));
    return map;
  }

  /** The plan whose rows or batches this node passes on. */
  public final SparkPlan child() {
    return child;
  }

  /** The metrics a copy of this node shares. */
  protected final scala.collection.immutable.Map<String, SQLMetric> sharedMetrics() {
    return metrics;
  }

  /** What the child's iterators count into. */
  public final ScanMetrics scanMetrics() {
    return scanMetrics;
  }

  @Override
  public final scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return metrics;
  }

  @Override
  public final String nodeName() {
    return "TableCacheScanMetrics";
  }

  @Override
  public final scala.collection.immutable.List<Attribute> output() {
    return child.output().toList();
  }

  @Override
  public final scala.collection.immutable.List<SparkPlan> children() {
    return scala.collection.immutable.List$.MODULE$.<SparkPlan>empty().$colon$colon(child);
  }

  @Override
  public final Partitioning outputPartitioning() {
    return child.outputPartitioning();
  }

  @Override
  public final scala.collection.immutable.List<SortOrder> outputOrdering() {
    return child.outputOrdering().toList();
  }

  @Override
  public final boolean supportsColumnar() {
    return child.supportsColumnar();
  }

  @Override
  public final boolean supportsRowBased() {
    return child.supportsRowBased();
  }

  /**
   * {@code rdd}'s partitions built with this node's metrics installed: for a plan that reads
   * this node's child itself instead of executing it (our Comet scan).
   */
  public final RDD<ColumnarBatch> metered(RDD<ColumnarBatch> rdd) {
    return new ScanMetricsRDD<>(rdd, scanMetrics, SparkCompat.classTag(ColumnarBatch.class));
  }

  @Override
  public final RDD<InternalRow> doExecute() {
    return new ScanMetricsRDD<>(child.execute(), scanMetrics, SparkCompat.classTag(InternalRow.class));
  }

  @Override
  public final RDD<ColumnarBatch> doExecuteColumnar() {
    return new ScanMetricsRDD<>(
        child.executeColumnar(), scanMetrics, SparkCompat.classTag(ColumnarBatch.class));
  }

  @Override
  public final int productArity() {
    return 1;
  }

  @Override
  public final Object productElement(int n) {
    if (n != 0) {
      throw new IndexOutOfBoundsException(String.valueOf(n));
    }
    return child;
  }

  @Override
  public final boolean canEqual(Object other) {
    return other instanceof ScanMetricsNode;
  }

  @Override
  public final boolean equals(Object other) {
    return other instanceof ScanMetricsNode && child.equals(((ScanMetricsNode) other).child);
  }

  @Override
  public final int hashCode() {
    return 31 * child.hashCode() + 0x7ab1eca;
  }
}
