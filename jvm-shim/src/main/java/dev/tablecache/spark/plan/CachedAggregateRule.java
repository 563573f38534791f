package dev.tablecache.spark.plan;

import dev.tablecache.spark.SerializerCore;
import dev.tablecache.spark.TableCacheConf;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.compat.SparkLine;
import dev.tablecache.spark.stats.AggregateSlot;
import dev.tablecache.spark.stats.ColumnExtremes;
import dev.tablecache.spark.stats.PartialAggregates;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Answers the partial half of a global {@code count}/{@code min}/{@code max} aggregate over one
 * of our caches from the frames' stats, as Spark's Parquet aggregate push-down answers it from
 * footers.
 *
 * <p>Spark plans {@code SELECT max(a), min(b), count(*) FROM cached} as a partial aggregate per
 * task, an exchange to one partition and a final aggregate. The partial one reads every row of
 * every batch through Spark's generic aggregation code (interpreted, row by row, for string
 * {@code max}). This rule replaces the partial aggregate and the scan below it with a scan of
 * partial aggregate rows, one per cached batch ({@link PartialAggregates}): the row count, the
 * null counts and the non-string bounds come from the frame's stats; strings, float zeros and
 * frames without stats are decoded and reduced in a loop. The final aggregate is Spark's own and
 * sees exactly the buffers the partial one would have produced, so results do not change.
 *
 * <p>It applies only when every aggregate is a non-distinct, unfiltered {@code count(*)}, {@code
 * count(column)}, {@code min(column)} or {@code max(column)} of a type {@link ColumnExtremes}
 * supports, with no grouping, directly over our cache scan without predicates. It leaves other
 * serializers' caches alone and honours {@value TableCacheConf#AGGREGATES_FROM_STATS}{@code
 * =false}. Building the new scan reads the cache's RDD, which builds the cache if needed, as the
 * scan it replaces would have.
 */
public final class CachedAggregateRule extends Rule<SparkPlan> {

  private final SparkSession session;

  /** @param session whose conf decides (adaptive stages may be planned on other threads) */
  public CachedAggregateRule(SparkSession session) {
    this.session = session;
  }

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SQLConf conf = session.sessionState().conf();
    if (!TableCacheConf.aggregatesFromStats(conf)) {
      return plan;
    }
    return PhysicalPlans.replaceTopDown(plan, p -> replace(p, conf));
  }

  /** The scan of partial aggregate rows that replaces {@code plan}, or null. */
  private static SparkPlan replace(SparkPlan plan, SQLConf conf) {
    if (!(plan instanceof BaseAggregateExec) || plan.children().size() != 1) {
      return null;
    }
    BaseAggregateExec agg = (BaseAggregateExec) plan;
    if (!agg.groupingExpressions().isEmpty() || agg.isStreaming()) {
      return null;
    }
    InMemoryTableScanExec scan = PhysicalPlans.ourScan(plan.children().head());
    if (scan == null || !scan.predicates().isEmpty()) {
      return null;
    }
    InMemoryRelation relation = scan.relation();
    if (SerializerCore.useDefault(conf, relation.output())) {
      return null;
    }
    AggregateSlot[] slots =
        slots(
            SparkCompat.toJava(agg.aggregateExpressions()),
            SparkCompat.toJava(plan.output()),
            SparkCompat.toJava(relation.output()));
    if (slots == null) {
      return null;
    }
    RDD<CachedBatch> batches = relation.cacheBuilder().cachedColumnBuffers();
    RDD<InternalRow> rows = SerializerCore.readPartialAggregates(batches, slots);
    // Its own metrics node: the batches answered from stats are this scan's.
    return new TableCacheScanMetricsExec(
        SparkLine.rddScan(plan.output(), rows, "tablecache partial aggregates"));
  }

  /**
   * One slot per aggregate, in the partial aggregate's output order, or null when any aggregate
   * is not one this rule answers.
   */
  private static AggregateSlot[] slots(
      List<AggregateExpression> aggregates, List<Attribute> output, List<Attribute> cached) {
    if (aggregates.isEmpty() || aggregates.size() != output.size()) {
      return null;
    }
    AggregateSlot[] slots = new AggregateSlot[aggregates.size()];
    for (int i = 0; i < slots.length; i++) {
      AggregateExpression e = aggregates.get(i);
      if (e.mode() != Partial$.MODULE$ || e.isDistinct() || e.filter().isDefined()) {
        return null;
      }
      AggregateFunction f = e.aggregateFunction();
      List<AttributeReference> buffer = SparkCompat.toJava(f.aggBufferAttributes());
      // The partial aggregate outputs exactly its functions' buffers, one each, in order.
      if (buffer.size() != 1
          || !f.inputAggBufferAttributes().head().exprId().equals(output.get(i).exprId())
          || !buffer.get(0).dataType().equals(output.get(i).dataType())) {
        return null;
      }
      slots[i] = slot(f, cached);
      if (slots[i] == null) {
        return null;
      }
    }
    return slots;
  }

  private static AggregateSlot slot(AggregateFunction f, List<Attribute> cached) {
    if (f instanceof Count) {
      List<Expression> args = SparkCompat.toJava(((Count) f).children());
      if (args.size() != 1) {
        return null;
      }
      Expression arg = args.get(0);
      if (arg instanceof Literal && ((Literal) arg).value() != null) {
        return new AggregateSlot(AggregateSlot.Kind.ROWS, -1, null);
      }
      int column = columnOf(arg, cached);
      return column < 0
          ? null
          : new AggregateSlot(AggregateSlot.Kind.NON_NULL, column, arg.dataType());
    }
    boolean max = f instanceof Max;
    if (!max && !(f instanceof Min)) {
      return null;
    }
    Expression arg = max ? ((Max) f).child() : ((Min) f).child();
    int column = columnOf(arg, cached);
    if (column < 0 || !ColumnExtremes.supports(arg.dataType())) {
      return null;
    }
    return new AggregateSlot(
        max ? AggregateSlot.Kind.MAX : AggregateSlot.Kind.MIN, column, arg.dataType());
  }

  /** The cache column an aggregate's argument is, or -1 when it is not a plain column. */
  private static int columnOf(Expression arg, List<Attribute> cached) {
    if (!(arg instanceof AttributeReference)) {
      return -1;
    }
    for (int i = 0; i < cached.size(); i++) {
      Attribute a = cached.get(i);
      if (a.exprId().equals(((AttributeReference) arg).exprId())
          && a.dataType().equals(arg.dataType())) {
        return i;
      }
    }
    return -1;
  }
}
