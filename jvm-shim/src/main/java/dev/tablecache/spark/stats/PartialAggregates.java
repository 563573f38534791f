package dev.tablecache.spark.stats;

import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.heal.BlockHealer;
import dev.tablecache.spark.metrics.ScanMetrics;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.read.BatchDecoder;
import dev.tablecache.spark.read.FrameDecoder;
import dev.tablecache.spark.read.FramesToColumnar;
import dev.tablecache.spark.read.NativeColumnVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * One partial aggregate row per cached batch ({@link AggregateSlot}s): Spark's partial {@code
 * count}, {@code min} and {@code max} buffers as they would be after reading the batch's rows.
 * A value is taken from the frame's stats where the stats hold it exactly (row and null counts,
 * non-string bounds, {@link ColumnExtremes#boundIsExact}); only the columns some value still
 * needs are decoded, and only for the batches that need them.
 */
public final class PartialAggregates extends AbstractIterator<InternalRow> {

  /** Decoders kept per task, one per set of columns a batch needed; beyond it, all columns. */
  private static final int MAX_DECODERS = 8;

  private final AggregateSlot[] slots;
  /** Every column a slot may need decoded, in slot order. */
  private final List<Integer> allColumns;
  /** Only row counts: a batch is served from its header, as a scan without columns is. */
  private final boolean countsOnly;
  private final StatsFirstDecoder decoder = new StatsFirstDecoder();
  /** The SQL metrics of the scan node this iterator was built for (decoders come later). */
  private final ScanMetrics scan = ScanMetrics.current();
  private final Iterator<ColumnarBatch> batches;

  public PartialAggregates(Iterator<CachedBatch> in, AggregateSlot[] slots, BlockHealer healer) {
    this.slots = slots;
    Set<Integer> columns = new LinkedHashSet<>();
    for (AggregateSlot s : slots) {
      if (s.kind != AggregateSlot.Kind.ROWS) {
        columns.add(s.column);
      }
    }
    allColumns = new ArrayList<>(columns);
    countsOnly = allColumns.isEmpty();
    batches = new FramesToColumnar(in, decoder, healer);
  }

  @Override
  public boolean hasNext() {
    return batches.hasNext();
  }

  @Override
  public InternalRow next() {
    ColumnarBatch decoded = batches.next();
    Object[] values = decoder.values;
    for (int i = 0; i < slots.length; i++) {
      if (values[i] != PENDING) {
        continue;
      }
      ColumnVector v = decoded.column(decoder.current.positionOf(slots[i].column));
      int rows = decoded.numRows();
      switch (slots[i].kind) {
        case NON_NULL:
          values[i] = (long) (rows - v.numNulls());
          break;
        case MIN:
          values[i] = ColumnExtremes.of(v, rows, slots[i].type, false);
          break;
        case MAX:
          values[i] = ColumnExtremes.of(v, rows, slots[i].type, true);
          break;
        default:
          throw new IllegalStateException("slot " + slots[i] + " was not filled from the frame");
      }
    }
    return new GenericInternalRow(values);
  }

  /** Marks a value the stats could not give. */
  private static final Object PENDING = new Object();

  /** A decoder of some of the cache's columns, and where each lands in its batches. */
  private final class Decoding {
    final FrameDecoder frames;
    final List<Integer> columns;

    Decoding(List<Integer> columns) {
      this.columns = columns;
      DataType[] types = new DataType[columns.size()];
      for (int i = 0; i < types.length; i++) {
        types[i] = typeOf(columns.get(i));
      }
      frames =
          new FrameDecoder(columns.stream().mapToInt(Integer::intValue).toArray(), types, scan);
    }

    int positionOf(int column) {
      return columns.indexOf(column);
    }
  }

  private DataType typeOf(int column) {
    for (AggregateSlot s : slots) {
      if (s.column == column && s.type != null) {
        return s.type;
      }
    }
    throw new IllegalArgumentException("no slot reads column " + column);
  }

  /**
   * Fills each batch's values from its stats first and decodes only the columns whose values are
   * still {@link #PENDING} (strings, float zeros; every column of a frame without stats); a
   * batch that needs none is handed on without columns.
   */
  private final class StatsFirstDecoder implements BatchDecoder {
    private final Map<List<Integer>, Decoding> decodings = new HashMap<>();
    /** The values of the batch decoded last; PENDING where the decoded columns must give them. */
    Object[] values;
    /** The decoding of the batch decoded last, or null. */
    Decoding current;
    /** How every decoding's deferred decodes fail ({@link BatchDecoder#failuresThrough}). */
    UnaryOperator<RuntimeException> failures = UnaryOperator.identity();

    @Override
    public ColumnarBatch decode(CachedBatch batch) {
      if (!(batch instanceof NativeCachedBatch)) {
        throw new IllegalStateException(
            "not a tablecache batch: " + (batch == null ? "null" : batch.getClass().getName()));
      }
      NativeCachedBatch b = (NativeCachedBatch) batch;
      values = new Object[slots.length];
      // Row counts need only the batch's header: a count() does not parse the stats.
      InternalRow stats = !countsOnly && b.hasStats() ? b.stats() : null;
      Set<Integer> pending = new LinkedHashSet<>();
      for (int i = 0; i < slots.length; i++) {
        values[i] = fromStats(slots[i], b.numRows(), stats);
        if (values[i] == PENDING) {
          pending.add(slots[i].column);
        }
      }
      if (pending.isEmpty()) {
        (countsOnly ? TableCacheMetrics.BATCHES_ROWS_ONLY : TableCacheMetrics.BATCHES_FROM_STATS)
            .increment();
        scan.batchFromStats(); // a count from the header is an answer from the frame too
        return new ColumnarBatch(new ColumnVector[0], b.numRows());
      }
      Decoding next = decodingOf(new ArrayList<>(pending));
      if (current != null && current != next) {
        current.frames.release(); // free the other decoder's batch now, not at its next decode
      }
      current = next;
      return next.frames.decode(batch);
    }

    private Decoding decodingOf(List<Integer> columns) {
      Decoding d = decodings.get(columns);
      if (d == null) {
        List<Integer> key = decodings.size() < MAX_DECODERS ? columns : allColumns;
        d = decodings.computeIfAbsent(key, Decoding::new);
        d.frames.failuresThrough(failures);
      }
      return d;
    }

    /** Every decoder's deferred decodes fail through {@code failures}, present and future. */
    @Override
    public void failuresThrough(UnaryOperator<RuntimeException> failures) {
      this.failures = failures;
      for (Decoding d : decodings.values()) {
        d.frames.failuresThrough(failures);
      }
    }

    /** Closes every decoder, even when one fails; the first failure is rethrown afterwards. */
    @Override
    public void close() {
      RuntimeException first = null;
      for (Decoding d : decodings.values()) {
        try {
          d.frames.close();
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }

  /** A slot's value from the row count and stats row ({@link StatsRows}), else PENDING. */
  private static Object fromStats(AggregateSlot slot, int numRows, InternalRow stats) {
    if (slot.kind == AggregateSlot.Kind.ROWS) {
      return (long) numRows;
    }
    int base = StatsRows.FIELDS_PER_COLUMN * slot.column;
    if (stats == null || stats.isNullAt(base + 2) || stats.isNullAt(base + 3)) {
      return PENDING;
    }
    long nulls = stats.getInt(base + 2);
    long count = stats.getInt(base + 3);
    if (count != numRows) {
      return PENDING; // saturated (cannot be: a batch's rows are an int), never guess
    }
    if (slot.kind == AggregateSlot.Kind.NON_NULL) {
      // A flat column's null count is its values' nulls; a nested one's is left to its vector.
      return NativeColumnVector.supports(slot.type) ? count - nulls : PENDING;
    }
    if (nulls >= count) {
      return null; // no non-null value: Spark's min and max stay null
    }
    int ordinal = base + (slot.kind == AggregateSlot.Kind.MAX ? 1 : 0);
    Object bound = stats.isNullAt(ordinal) ? null : stats.get(ordinal, slot.type);
    return ColumnExtremes.boundIsExact(slot.type, bound) ? bound : PENDING;
  }

  @Override
  public String toString() {
    return "PartialAggregates" + Arrays.toString(slots);
  }
}
