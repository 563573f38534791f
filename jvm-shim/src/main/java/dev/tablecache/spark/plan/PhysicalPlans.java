package dev.tablecache.spark.plan;

import dev.tablecache.spark.NativeCachedBatchSerializer;
import dev.tablecache.spark.compat.SparkCompat;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;

/** What the extension's physical rules share: finding our cache scans and replacing nodes. */
public final class PhysicalPlans {

  private PhysicalPlans() {}

  /**
   * The scan of one of our caches that {@code plan} is or, under adaptive execution, that the
   * query stage {@code plan} wraps, seen through the scan's metrics node ({@link
   * ScanMetricsNode}); else null.
   */
  public static InMemoryTableScanExec ourScan(SparkPlan plan) {
    SparkPlan p = plan;
    while (p instanceof QueryStageExec || p instanceof ScanMetricsNode) {
      p =
          p instanceof ScanMetricsNode
              ? ((ScanMetricsNode) p).child()
              : ((QueryStageExec) p).plan();
    }
    if (!(p instanceof InMemoryTableScanExec)) {
      return null;
    }
    InMemoryTableScanExec scan = (InMemoryTableScanExec) p;
    return scan.relation().cacheBuilder().serializer() instanceof NativeCachedBatchSerializer
        ? scan
        : null;
  }

  /**
   * {@code plan} with every topmost node for which {@code replacement} gives a plan (not null)
   * replaced by it; a node is rebuilt only when one of its children changed.
   */
  public static SparkPlan replaceTopDown(
      SparkPlan plan, Function<SparkPlan, SparkPlan> replacement) {
    SparkPlan replaced = replacement.apply(plan);
    if (replaced != null) {
      return replaced;
    }
    List<SparkPlan> children = SparkCompat.toJava(plan.children());
    List<SparkPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (SparkPlan child : children) {
      SparkPlan c = replaceTopDown(child, replacement);
      changed |= c != child;
      rewritten.add(c);
    }
    return changed ? (SparkPlan) plan.withNewChildren(SparkCompat.toScala(rewritten)) : plan;
  }
}
