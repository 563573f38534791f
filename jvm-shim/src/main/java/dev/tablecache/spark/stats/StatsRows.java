package dev.tablecache.spark.stats;

import dev.tablecache.format.ColumnStats;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds the {@code SimpleMetricsCachedBatch.stats} row of a frame: for cached column i, fields
 * 5i..5i+4 = lowerBound, upperBound, nullCount (Int), count (Int, nulls included), sizeInBytes
 * (Long). Bounds are Catalyst internal values chosen by the column's Arrow type, which the
 * serializer derived from the Spark type with Spark's own mapping: Byte/Short/Int/Long, Int days
 * for Date32, Long micros for Timestamp(µs), Float/Double, UTF8String, Decimal, Boolean.
 *
 * <p>A bound is null when the frame carries none: all-null columns, UNSUPPORTED types (binary,
 * nested, intervals, ...) and a string column whose maximum has no finite truncated upper bound.
 * {@link StatsFilter} therefore never reads a null bound as "no value matches" unless the column
 * really holds no non-null value.
 */
public final class StatsRows {

  public static final int FIELDS_PER_COLUMN = 5;

  private StatsRows() {}

  public static InternalRow build(List<Field> fields, List<ColumnStats> stats) {
    Object[] values = new Object[FIELDS_PER_COLUMN * stats.size()];
    for (int i = 0; i < stats.size(); i++) {
      ColumnStats s = stats.get(i);
      ArrowType type = i < fields.size() ? fields.get(i).getType() : null;
      int base = FIELDS_PER_COLUMN * i;
      values[base] = s.hasLower() ? toCatalyst(type, s.lower()) : null;
      values[base + 1] = s.hasUpper() ? toCatalyst(type, s.upper()) : null;
      // A Null-typed column's stats count every row as null: the writer counts logical nulls
      // and both parsers reject a frame that says otherwise (FORMAT.md section 4).
      values[base + 2] = saturatedInt(s.nullCount());
      values[base + 3] = saturatedInt(s.rowCount());
      values[base + 4] = s.sizeInBytes() < 0 ? Long.MAX_VALUE : s.sizeInBytes();
    }
    return new GenericInternalRow(values);
  }

  /**
   * The row of a frame without stats (legacy, or written with stats off): no bounds, unknown null
   * counts (null), and the row count. {@link StatsFilter} never evaluates predicates on it.
   */
  public static InternalRow withoutStats(int columnCount, int numRows) {
    Object[] values = new Object[FIELDS_PER_COLUMN * columnCount];
    for (int i = 0; i < columnCount; i++) {
      values[FIELDS_PER_COLUMN * i + 3] = numRows;
      values[FIELDS_PER_COLUMN * i + 4] = 0L;
    }
    return new GenericInternalRow(values);
  }

  /** The Catalyst value of a bound for this Arrow type, or null when the pair is unexpected. */
  static Object toCatalyst(ArrowType type, Object bound) {
    if (type == null || bound == null) {
      return null;
    }
    switch (type.getTypeID()) {
      case Bool:
        return bound instanceof Boolean ? bound : null;
      case Int:
        {
          if (!(bound instanceof Long)) {
            return null;
          }
          ArrowType.Int t = (ArrowType.Int) type;
          long v = (Long) bound;
          if (!t.getIsSigned()) {
            return null;
          }
          switch (t.getBitWidth()) {
            case 8:
              return (byte) v;
            case 16:
              return (short) v;
            case 32:
              return (int) v;
            case 64:
              return v;
            default:
              return null;
          }
        }
      case Date:
        if (bound instanceof Long && ((ArrowType.Date) type).getUnit() == DateUnit.DAY) {
          return (int) (long) (Long) bound;
        }
        return null;
      case Timestamp:
        if (bound instanceof Long
            && ((ArrowType.Timestamp) type).getUnit() == TimeUnit.MICROSECOND) {
          return bound;
        }
        return null;
      case FloatingPoint:
        {
          if (!(bound instanceof Double)) {
            return null;
          }
          FloatingPointPrecision p = ((ArrowType.FloatingPoint) type).getPrecision();
          if (p == FloatingPointPrecision.SINGLE) {
            return (float) (double) (Double) bound;
          }
          return p == FloatingPointPrecision.DOUBLE ? bound : null;
        }
      case Utf8:
      case LargeUtf8:
        return bound instanceof byte[] ? UTF8String.fromBytes((byte[]) bound) : null;
      case Decimal:
        {
          ArrowType.Decimal t = (ArrowType.Decimal) type;
          if (!(bound instanceof BigInteger) || t.getPrecision() > 38) {
            return null;
          }
          return Decimal.apply(
              new BigDecimal((BigInteger) bound, t.getScale()), t.getPrecision(), t.getScale());
        }
      default:
        return null;
    }
  }

  private static int saturatedInt(long v) {
    return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(0, v);
  }
}
