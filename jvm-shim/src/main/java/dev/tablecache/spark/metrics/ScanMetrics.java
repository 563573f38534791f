package dev.tablecache.spark.metrics;

import java.io.Serializable;
import org.apache.spark.sql.execution.metric.SQLMetric;

/**
 * The SQL metrics of one scan node of a query (the Spark UI's SQL tab): what the stats filter,
 * the frame decoder and the stats-answered aggregates did for the batches that node read. The
 * node owns the metrics ({@code TableCacheScanMetricsExec}); its tasks install them as the
 * thread's current scan ({@link #install}) while they build the partition's iterators, and each
 * iterator keeps the {@link #current()} scan it was built under, so two scans in one task count
 * apart. Outside a scan node (tests, other callers) {@link #NONE} counts nothing.
 *
 * <p>Each update is per batch, never per row; the executor-wide {@link TableCacheMetrics} count
 * the same events as well.
 */
public final class ScanMetrics implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Counts nothing: the scan metrics where no node installed any. */
  public static final ScanMetrics NONE = new ScanMetrics(null, null, null, null, null, null);

  private static final ThreadLocal<ScanMetrics> CURRENT = new ThreadLocal<>();

  private final SQLMetric batchesRead;
  private final SQLMetric batchesPruned;
  private final SQLMetric batchesDecoded;
  private final SQLMetric batchesFromStats;
  private final SQLMetric bytesDecoded;
  private final SQLMetric decodeNanos;

  /** The metrics to add to; each may be null (not counted). */
  public ScanMetrics(
      SQLMetric batchesRead,
      SQLMetric batchesPruned,
      SQLMetric batchesDecoded,
      SQLMetric batchesFromStats,
      SQLMetric bytesDecoded,
      SQLMetric decodeNanos) {
    this.batchesRead = batchesRead;
    this.batchesPruned = batchesPruned;
    this.batchesDecoded = batchesDecoded;
    this.batchesFromStats = batchesFromStats;
    this.bytesDecoded = bytesDecoded;
    this.decodeNanos = decodeNanos;
  }

  /** The scan whose iterators this thread is building now, else {@link #NONE}. */
  public static ScanMetrics current() {
    ScanMetrics m = CURRENT.get();
    return m != null ? m : NONE;
  }

  /**
   * Makes {@code metrics} this thread's current scan; returns the one it replaces (null for
   * none), which the caller hands to {@link #restore} in a {@code finally}.
   */
  public static ScanMetrics install(ScanMetrics metrics) {
    ScanMetrics previous = CURRENT.get();
    CURRENT.set(metrics);
    return previous;
  }

  /** Puts back what {@link #install} returned. */
  public static void restore(ScanMetrics previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }

  /** A batch the scan took from the cache after pruning, to decode or answer. */
  public void batchRead() {
    add(batchesRead, 1);
  }

  /** A batch the stats filter skipped. */
  public void batchPruned() {
    add(batchesPruned, 1);
  }

  /** A batch whose selected columns were decoded: {@code bytes} decoded in {@code nanos}. */
  public void batchDecoded(long bytes, long nanos) {
    add(batchesDecoded, 1);
    add(bytesDecoded, bytes);
    add(decodeNanos, nanos);
  }

  /** A column of a decoded batch decoded later, on its first read (a deferred column). */
  public void columnDecoded(long bytes, long nanos) {
    add(bytesDecoded, bytes);
    add(decodeNanos, nanos);
  }

  /** A batch whose partial aggregates came from its header and stats, without a decode. */
  public void batchFromStats() {
    add(batchesFromStats, 1);
  }

  private static void add(SQLMetric metric, long value) {
    if (metric != null) {
      metric.add(value);
    }
  }
}
