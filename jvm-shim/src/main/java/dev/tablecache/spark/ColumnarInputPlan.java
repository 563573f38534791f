package dev.tablecache.spark;

import org.apache.spark.sql.execution.ColumnarToRowTransition;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;

/**
 * The plan a cache is built from, given the plan Spark wants to cache: our answer to Spark 4.1's
 * {@code CachedBatchSerializer.convertToColumnarPlanIfPossible} (SPARK-52492).
 *
 * <p>A pure columnar-to-row transition on top (whole-stage generated or not) is stripped, as
 * Spark's default does: its child's batches reach {@code convertColumnarBatchToCachedBatch},
 * where Arrow vectors are cached without a copy and other vectors are copied once, instead of
 * being turned into rows first.
 *
 * <p>Unlike Spark's default, an adaptive plan is returned unchanged (row-based). The default
 * marks it columnar, so Spark appends a {@code RowToColumnarExec} to a plan whose last stage
 * (an aggregate, a join) produces rows: every row is then written into Spark's on-heap vectors
 * and read back as a row to fill our Arrow vectors, twice the conversion work of caching the
 * rows directly. Spark 3.5 and 4.0 do not ask the serializer (the same default is built into
 * {@code InMemoryRelation}) and keep that behaviour.
 */
final class ColumnarInputPlan {

  private ColumnarInputPlan() {}

  static SparkPlan of(SparkPlan plan) {
    if (plan instanceof WholeStageCodegenExec) {
      SparkPlan top = ((WholeStageCodegenExec) plan).child();
      if (top instanceof ColumnarToRowTransition) {
        SparkPlan input = ((ColumnarToRowTransition) top).child();
        if (input instanceof InputAdapter) {
          return ((InputAdapter) input).child();
        }
      }
      return plan;
    }
    if (plan instanceof ColumnarToRowTransition) { // whole-stage code generation disabled
      return ((ColumnarToRowTransition) plan).child();
    }
    return plan;
  }
}
