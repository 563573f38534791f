package dev.tablecache.suites;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.util.QueryExecutionListener;
import scala.collection.Iterator;

/**
 * Watches every query the suites run ({@code spark.sql.queryExecutionListeners}) and counts the
 * cache scans in its executed plan: scans of our serializer, scans of any other serializer (by
 * class), and our scans read through a {@code ColumnarToRowExec} (the extension's columnar read;
 * 0 on the row path). It only observes: it never changes a plan or a result.
 */
public final class PlanProbe implements QueryExecutionListener {

  static final String OUR_SERIALIZER = "dev.tablecache.spark.NativeCachedBatchSerializer";

  static final AtomicLong QUERIES = new AtomicLong();
  static final AtomicLong OUR_SCANS = new AtomicLong();
  static final AtomicLong COLUMNAR_SCANS = new AtomicLong();
  /** Scans of other serializers, by class name. */
  static final Map<String, AtomicLong> OTHER_SCANS = new ConcurrentHashMap<>();

  @Override
  public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
    QUERIES.incrementAndGet();
    SparkPlan plan;
    try {
      plan = qe.executedPlan();
    } catch (RuntimeException e) {
      return; // a plan that cannot be shown has no scan to count
    }
    walk(plan, false);
  }

  @Override
  public void onFailure(String funcName, QueryExecution qe, Exception exception) {}

  /**
   * {@code underC2R}: the nearest row-consuming ancestor is a ColumnarToRowExec; adaptive stage
   * wrappers and InputAdapter sit between it and the scan and keep the flag.
   */
  private static void walk(SparkPlan p, boolean underC2R) {
    if (p instanceof InMemoryTableScanExec) {
      InMemoryTableScanExec scan = (InMemoryTableScanExec) p;
      String ser = scan.relation().cacheBuilder().serializer().getClass().getName();
      if (OUR_SERIALIZER.equals(ser)) {
        OUR_SCANS.incrementAndGet();
        if (underC2R) {
          COLUMNAR_SCANS.incrementAndGet();
        }
      } else {
        OTHER_SCANS.computeIfAbsent(ser, k -> new AtomicLong()).incrementAndGet();
      }
      // The cached plan below the relation ran when the cache was built: not this query's read.
      return;
    }
    if (p instanceof AdaptiveSparkPlanExec) {
      walk(((AdaptiveSparkPlanExec) p).executedPlan(), underC2R);
    } else if (p instanceof QueryStageExec) {
      walk(((QueryStageExec) p).plan(), underC2R);
    } else if (p instanceof InputAdapter) {
      walk(((InputAdapter) p).child(), underC2R);
    } else if (p instanceof ColumnarToRowExec) {
      walk(((ColumnarToRowExec) p).child(), true);
    } else {
      for (Iterator<SparkPlan> it = p.children().iterator(); it.hasNext(); ) {
        walk(it.next(), false);
      }
    }
    for (Iterator<SparkPlan> it = p.subqueries().iterator(); it.hasNext(); ) {
      walk(it.next(), false);
    }
  }
}
