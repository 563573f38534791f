package dev.tablecache.spark.plan;

import dev.tablecache.spark.engine.foreign.ForeignBatchGuard;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.spark.sql.columnar.CachedBatchSerializer;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;

/**
 * The plan a cache is built from, given the plan Spark wants to cache: our answer to Spark 4.1's
 * {@code CachedBatchSerializer.convertToColumnarPlanIfPossible} (SPARK-52492; docs/ARCHITECTURE.md).
 *
 * <p>Spark's default strips a columnar-to-row transition on top (so Arrow batches reach us
 * without a copy) and marks every adaptive plan columnar. We keep all of it except one case: an
 * adaptive plan whose input plan ends in a row operator (an aggregate, a join) stays row-based.
 * Marked columnar, Spark would append a {@code RowToColumnarExec}: every row written into Spark's
 * on-heap vectors and read back as a row to fill our Arrow vectors, twice the conversion work of
 * caching the rows. An adaptive plan whose input already ends in batches (a scan of a cache, a
 * columnar source) still goes columnar, as in Spark 4.0.
 *
 * <p>A plan that ends in the columnar-to-row transition of an engine whose batches cannot be read
 * through {@code ColumnVector} (Apache Gluten; {@link ForeignBatchGuard}) is also cached as it is,
 * from the rows that transition produces.
 */
public final class ColumnarInputPlan {

  private ColumnarInputPlan() {}

  public static SparkPlan of(CachedBatchSerializer serializer, SparkPlan plan) {
    if (keepsRows(plan) || ForeignBatchGuard.keepsEngineTransition(plan)) {
      return plan;
    }
    return SparkDefault.apply(serializer, plan);
  }

  /** An adaptive plan whose input plan produces rows. */
  static boolean keepsRows(SparkPlan plan) {
    return plan instanceof AdaptiveSparkPlanExec
        && !((AdaptiveSparkPlanExec) plan).inputPlan().supportsColumnar();
  }

  /**
   * Spark's default body, through the static forwarder Scala emits for a trait method ({@code
   * convertToColumnarPlanIfPossible$}): Java cannot call an overridden default method of an
   * indirect superinterface. Resolved on first use, which only Spark 4.1+ makes.
   */
  private static final class SparkDefault {

    private static final MethodHandle DEFAULT = resolve();

    private static MethodHandle resolve() {
      try {
        return MethodHandles.publicLookup()
            .findStatic(
                CachedBatchSerializer.class,
                "convertToColumnarPlanIfPossible$",
                MethodType.methodType(
                    SparkPlan.class, CachedBatchSerializer.class, SparkPlan.class));
      } catch (NoSuchMethodException | IllegalAccessException e) {
        throw new IllegalStateException(
            "tablecache: this Spark has no CachedBatchSerializer.convertToColumnarPlanIfPossible", e);
      }
    }

    static SparkPlan apply(CachedBatchSerializer serializer, SparkPlan plan) {
      try {
        return (SparkPlan) DEFAULT.invokeExact(serializer, plan);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  }
}
