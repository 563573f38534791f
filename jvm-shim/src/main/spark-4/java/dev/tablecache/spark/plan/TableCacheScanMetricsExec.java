package dev.tablecache.spark.plan;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;

/**
 * The SQL metrics of one of our cache scans ({@link ScanMetricsNode}, which holds everything but
 * what names this line's Scala collections). This is the Spark 4 / Scala 2.13 copy;
 * src/main/spark-3.5 holds the Scala 2.12 one.
 */
public final class TableCacheScanMetricsExec extends ScanMetricsNode {

  private static final long serialVersionUID = 1L;

  /** A node over {@code child} with fresh metrics (on the driver). */
  public TableCacheScanMetricsExec(SparkPlan child) {
    super(child, SparkContext.getOrCreate());
  }

  private TableCacheScanMetricsExec(
      SparkPlan child, scala.collection.immutable.Map<String, SQLMetric> metrics) {
    super(child, metrics);
  }

  @Override
  public SparkPlan withNewChildrenInternal(
      scala.collection.immutable.IndexedSeq<SparkPlan> newChildren) {
    return new TableCacheScanMetricsExec(newChildren.head(), sharedMetrics());
  }

  @Override
  public Option<scala.collection.immutable.Seq<String>> vectorTypes() {
    return child().vectorTypes();
  }
}
