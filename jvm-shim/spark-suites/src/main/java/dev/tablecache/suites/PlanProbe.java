package dev.tablecache.suites;

import java.lang.reflect.Method;
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
import org.apache.spark.sql.types.StructType;
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
  /** The pass-through node that holds a cache scan's SQL metrics (named, not linked). */
  static final String SCAN_METRICS_NODE = "dev.tablecache.spark.plan.TableCacheScanMetricsExec";

  static final AtomicLong QUERIES = new AtomicLong();
  static final AtomicLong OUR_SCANS = new AtomicLong();
  static final AtomicLong COLUMNAR_SCANS = new AtomicLong();
  /**
   * Our scans whose cache our serializer handed to Spark's default by design (a type without an
   * Arrow mapping), by schema: those reads are not ours.
   */
  static final Map<String, AtomicLong> DELEGATED_SCANS = new ConcurrentHashMap<>();
  /** Set when the shim's schema check cannot be called (another shim build): reported. */
  static volatile String delegationUnknown;

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
   * The schema when our serializer delegates this cache to Spark's default (the shim's own test,
   * package-private, called reflectively), else null.
   */
  private static String delegatedSchema(StructType schema) {
    try {
      Method canCache =
          Class.forName("dev.tablecache.spark.fallback.ArrowShapes")
              .getDeclaredMethod("canCache", StructType.class);
      canCache.setAccessible(true);
      return (Boolean) canCache.invoke(null, schema) ? null : schema.simpleString();
    } catch (ReflectiveOperationException | RuntimeException e) {
      delegationUnknown = String.valueOf(e);
      return null;
    }
  }

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
        String schema = delegatedSchema(scan.relation().schema());
        if (schema != null) {
          DELEGATED_SCANS.computeIfAbsent(schema, k -> new AtomicLong()).incrementAndGet();
        }
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
    } else if (p.getClass().getName().equals(SCAN_METRICS_NODE)) {
      // Our SQL-metrics node passes its scan's rows or batches through unchanged.
      walk(p.children().head(), underC2R);
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
