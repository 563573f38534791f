package dev.tablecache.spark.stats;

import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.metrics.ScanMetrics;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.columnar.CachedBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.runtime.AbstractFunction2;

/**
 * The function {@code buildFilter} returns: per partition, keeps the cached batches whose stats
 * say a row might satisfy the scan's predicates (see {@link StatsPredicates}), preserving order.
 * Batches without stats (legacy frames, stats off) and batches of any other class are always
 * kept. It is shipped to executors, so it holds only the (serializable) stats predicate and
 * which cached columns the predicates read: the partition's decoder takes those from the filtered
 * iterator ({@link #predicateColumnsOf}) to choose which columns to decode on first read.
 */
public final class StatsFilter
    extends AbstractFunction2<Object, Iterator<CachedBatch>, Iterator<CachedBatch>>
    implements Serializable {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(StatsFilter.class);
  private static final AtomicBoolean EVAL_FAILURE_LOGGED = new AtomicBoolean();

  /** Over the stats row (BoundReferences); null when no predicate can prune. */
  private final Expression statsPredicate;

  /** Cache indices of the columns the scan's predicates read; null when it has no predicate. */
  private final int[] predicateColumns;

  private StatsFilter(Expression statsPredicate, int[] predicateColumns) {
    this.statsPredicate = statsPredicate;
    this.predicateColumns = predicateColumns;
  }

  public static StatsFilter build(List<Expression> predicates, List<Attribute> cachedAttributes) {
    Expression p = new StatsPredicates(cachedAttributes).translateAll(predicates);
    if (p != null && LOG.isDebugEnabled()) {
      LOG.debug("tablecache: predicates {} prune batches with {}", predicates, p);
    }
    return new StatsFilter(
        p, predicates.isEmpty() ? null : columnsRead(predicates, cachedAttributes));
  }

  /**
   * The cache indices of the columns the scan's predicates read, when {@code batches} is what
   * this filter returned for a scan with predicates; null otherwise (no predicate, partition
   * pruning off, or another iterator).
   */
  public static int[] predicateColumnsOf(Iterator<?> batches) {
    return batches instanceof Filtered ? ((Filtered) batches).predicateColumns : null;
  }

  /** Cache indices (ascending) of the cached attributes that {@code predicates} reference. */
  static int[] columnsRead(List<Expression> predicates, List<Attribute> cachedAttributes) {
    TreeSet<Integer> read = new TreeSet<>();
    Deque<Expression> pending = new ArrayDeque<>(predicates);
    while (!pending.isEmpty()) {
      Expression e = pending.pop();
      if (e instanceof AttributeReference) {
        for (int i = 0; i < cachedAttributes.size(); i++) {
          if (cachedAttributes.get(i).exprId().equals(((AttributeReference) e).exprId())) {
            read.add(i);
          }
        }
      }
      pending.addAll(SparkCompat.toJava(e.children()));
    }
    return read.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The cache columns the predicates read, for tests; null when there is no predicate. */
  int[] predicateColumns() {
    return predicateColumns;
  }

  /** The stats predicate, for tests and logs; null when nothing prunes. */
  Expression statsPredicate() {
    return statsPredicate;
  }

  @Override
  public Iterator<CachedBatch> apply(Object partitionIndex, Iterator<CachedBatch> batches) {
    BasePredicate predicate = null;
    if (statsPredicate != null) {
      predicate = SparkCompat.createPredicate(statsPredicate);
      predicate.initialize((Integer) partitionIndex);
    }
    return new Filtered(batches, predicate, predicateColumns);
  }

  private static boolean mightMatch(BasePredicate predicate, CachedBatch batch) {
    if (predicate == null || !(batch instanceof NativeCachedBatch)) {
      return true;
    }
    NativeCachedBatch b = (NativeCachedBatch) batch;
    try {
      return !b.hasStats() || predicate.eval(b.stats());
    } catch (RuntimeException e) {
      // Pruning is an optimization: a batch whose stats cannot be evaluated is scanned.
      if (EVAL_FAILURE_LOGGED.compareAndSet(false, true)) {
        LOG.warn("tablecache: could not evaluate batch stats, scanning the batch", e);
      }
      return true;
    }
  }

  /** An order-preserving lazy filter (one batch of lookahead). */
  private static final class Filtered extends AbstractIterator<CachedBatch> {
    private final Iterator<CachedBatch> in;
    private final BasePredicate predicate;
    private final int[] predicateColumns;
    /** The SQL metrics of the scan node this filter was built for. */
    private final ScanMetrics scan = ScanMetrics.current();
    private CachedBatch next;

    Filtered(Iterator<CachedBatch> in, BasePredicate predicate, int[] predicateColumns) {
      this.in = in;
      this.predicate = predicate;
      this.predicateColumns = predicateColumns;
    }

    @Override
    public boolean hasNext() {
      while (next == null && in.hasNext()) {
        CachedBatch b = in.next();
        if (mightMatch(predicate, b)) {
          TableCacheMetrics.BATCHES_KEPT.increment();
          next = b;
        } else {
          TableCacheMetrics.BATCHES_PRUNED.increment();
          scan.batchPruned();
        }
      }
      return next != null;
    }

    @Override
    public CachedBatch next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      CachedBatch b = next;
      next = null;
      return b;
    }
  }
}
