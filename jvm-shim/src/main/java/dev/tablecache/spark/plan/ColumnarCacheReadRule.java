package dev.tablecache.spark.plan;

import dev.tablecache.spark.TableCacheConf;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.read.NativeColumnVector;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.ColumnarToRowTransition;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Reads our caches through {@link ColumnarToRowExec} where a row-based operator consumes them.
 *
 * <p>Spark's {@code InMemoryTableScanExec} is both row- and column-capable, so Spark never adds
 * a columnar-to-row transition above it: every ordinary query reads a cache row by row, through
 * {@code convertCachedBatchToInternalRow} (a generic row view of each batch plus an {@code
 * UnsafeProjection}). Parquet scans are fast for the opposite reason: a {@code ColumnarToRowExec}
 * sits in the whole-stage-generated code and calls the declared {@code vectorTypes}
 * (monomorphic {@link NativeColumnVector} reads) for the projected columns only. This rule, run
 * after Spark's transitions, puts that transition above each of our column-capable cache scans
 * whose parent consumes rows; under adaptive execution the scan is the plan of a table-cache
 * query stage, and the transition goes above the stage. The rows are the same; only the route
 * differs.
 *
 * <p>A scan at the root of a plan is left alone (its consumer may be columnar); so are scans of
 * other serializers and, with {@code spark.tablecache.columnarRead=false}, every scan.
 */
public final class ColumnarCacheReadRule extends Rule<SparkPlan> {

  @Override
  public SparkPlan apply(SparkPlan plan) {
    if (!TableCacheConf.columnarRead(SQLConf.get())) {
      return plan;
    }
    return rewrite(plan);
  }

  private static SparkPlan rewrite(SparkPlan plan) {
    List<SparkPlan> children = SparkCompat.toJava(plan.children());
    if (children.isEmpty()) {
      return plan;
    }
    boolean consumesRows = !plan.supportsColumnar() && !(plan instanceof ColumnarToRowTransition);
    List<SparkPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (SparkPlan child : children) {
      SparkPlan c = rewrite(child);
      if (consumesRows && isOurColumnarScan(c)) {
        c = new ColumnarToRowExec(c);
      }
      changed |= c != child;
      rewritten.add(c);
    }
    return changed ? (SparkPlan) plan.withNewChildren(SparkCompat.toScala(rewritten)) : plan;
  }

  /** Our column-capable cache scan, or (adaptive execution) the query stage that wraps it. */
  private static boolean isOurColumnarScan(SparkPlan plan) {
    InMemoryTableScanExec scan = PhysicalPlans.ourScan(plan);
    return scan != null && scan.supportsColumnar();
  }
}
