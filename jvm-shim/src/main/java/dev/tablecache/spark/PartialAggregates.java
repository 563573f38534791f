package dev.tablecache.spark;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
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
final class PartialAggregates extends AbstractIterator<InternalRow> {

  private final AggregateSlot[] slots;
  /** For each slot, its column's position in the decoded batch; -1 for ROWS. */
  private final int[] decodedPosition;
  /** Only row counts: a batch is served from its header, as a scan without columns is. */
  private final boolean countsOnly;
  private final StatsFirstDecoder decoder;
  private final Iterator<ColumnarBatch> batches;

  PartialAggregates(Iterator<CachedBatch> in, AggregateSlot[] slots, BlockHealer healer) {
    this.slots = slots;
    Map<Integer, Integer> positions = new LinkedHashMap<>();
    Map<Integer, DataType> types = new LinkedHashMap<>();
    decodedPosition = new int[slots.length];
    for (int i = 0; i < slots.length; i++) {
      AggregateSlot s = slots[i];
      if (s.kind == AggregateSlot.Kind.ROWS) {
        decodedPosition[i] = -1;
        continue;
      }
      decodedPosition[i] = positions.computeIfAbsent(s.column, c -> positions.size());
      types.putIfAbsent(s.column, s.type);
    }
    int[] projection = positions.keySet().stream().mapToInt(Integer::intValue).toArray();
    DataType[] decodeTypes = types.values().toArray(new DataType[0]);
    countsOnly = projection.length == 0;
    decoder = new StatsFirstDecoder(new FrameDecoder(projection, decodeTypes));
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
      ColumnVector v = decoded.column(decodedPosition[i]);
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

  /**
   * Fills each batch's values from its stats first and decodes the frame only when one is still
   * {@link #PENDING}; otherwise it hands on a batch without columns.
   */
  private final class StatsFirstDecoder implements BatchDecoder {
    private final FrameDecoder frames;
    /** The values of the batch decoded last; PENDING where the decoded columns must give them. */
    Object[] values;

    StatsFirstDecoder(FrameDecoder frames) {
      this.frames = frames;
    }

    @Override
    public ColumnarBatch decode(CachedBatch batch) {
      if (!(batch instanceof NativeCachedBatch)) {
        throw new IllegalStateException(
            "not a tablecache batch: " + (batch == null ? "null" : batch.getClass().getName()));
      }
      NativeCachedBatch b = (NativeCachedBatch) batch;
      values = new Object[slots.length];
      boolean pending = false;
      // Row counts need only the batch's header: a count() does not parse the stats.
      InternalRow stats = !countsOnly && b.hasStats() ? b.stats() : null;
      for (int i = 0; i < slots.length; i++) {
        values[i] = fromStats(slots[i], b.numRows(), stats);
        pending |= values[i] == PENDING;
      }
      if (pending) {
        return frames.decode(batch);
      }
      (countsOnly ? TableCacheMetrics.BATCHES_ROWS_ONLY : TableCacheMetrics.BATCHES_FROM_STATS)
          .increment();
      return new ColumnarBatch(new ColumnVector[0], b.numRows());
    }

    @Override
    public void close() {
      frames.close();
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
