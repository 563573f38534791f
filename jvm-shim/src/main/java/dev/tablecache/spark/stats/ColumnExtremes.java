package dev.tablecache.spark.stats;

import dev.tablecache.ErrorText;
import dev.tablecache.spark.compat.SparkLine;
import dev.tablecache.spark.read.NativeColumnVector;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's {@code min} and {@code max} of one decoded column, and whether a frame's stats bound
 * already is that value.
 *
 * <p>Semantics are Spark's: nulls are skipped (no non-null value gives null); floats order as
 * {@code SQLOrderingUtil} does (NaN above everything, NaN equal to NaN, {@code -0.0} equal to
 * {@code 0.0}); and of equal values the first one wins, as in Spark's {@code Greatest} and
 * {@code Least}, which its {@code Max} and {@code Min} update with. Strings compare as unsigned
 * bytes, so only string types with binary ordering qualify.
 */
public final class ColumnExtremes {

  private ColumnExtremes() {}

  /**
   * Whether min and max of this type can be computed here: the types whose stats bounds order as
   * Spark orders values ({@link StatsPredicates#hasComparableBounds}).
   */
  public static boolean supports(DataType t) {
    return StatsPredicates.hasComparableBounds(t);
  }

  /**
   * Whether {@code bound}, a frame's lower or upper stats bound (FORMAT.md section 4) as {@link
   * StatsRows} gives it, is exactly the column's min or max. Integral, date, timestamp, boolean
   * and decimal bounds are. A float bound is unless it is zero: the writer stores {@code +0.0}
   * for either sign. A string bound may be a truncated prefix, so never.
   */
  static boolean boundIsExact(DataType t, Object bound) {
    if (bound == null || t instanceof StringType) {
      return false;
    }
    if (t instanceof DoubleType) {
      return bound instanceof Double && (Double) bound != 0.0;
    }
    if (t instanceof FloatType) {
      return bound instanceof Float && (Float) bound != 0.0f;
    }
    return supports(t);
  }

  /** The min ({@code max} false) or max of the first {@code rows} values of {@code v}. */
  static Object of(ColumnVector v, int rows, DataType t, boolean max) {
    if (t instanceof StringType) {
      return string(v, rows, max);
    }
    if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return longs(v, rows, max);
    }
    if (t instanceof IntegerType || t instanceof DateType) {
      return ints(v, rows, max, Kind.INT);
    }
    if (t instanceof DoubleType) {
      return doubles(v, rows, max);
    }
    if (t instanceof FloatType) {
      return floats(v, rows, max);
    }
    if (t instanceof ShortType) {
      Object r = ints(v, rows, max, Kind.SHORT);
      return r == null ? null : (short) (int) (Integer) r;
    }
    if (t instanceof ByteType) {
      Object r = ints(v, rows, max, Kind.BYTE);
      return r == null ? null : (byte) (int) (Integer) r;
    }
    if (t instanceof BooleanType) {
      return booleans(v, rows, max);
    }
    if (t instanceof DecimalType) {
      return decimal(v, rows, (DecimalType) t, max);
    }
    throw new IllegalArgumentException("no min/max for " + ErrorText.text(t.simpleString()));
  }

  private enum Kind {
    BYTE,
    SHORT,
    INT
  }

  private static Object longs(ColumnVector v, int rows, boolean max) {
    boolean found = false;
    long best = 0;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      long x = v.getLong(i);
      if (!found || (max ? x > best : x < best)) {
        best = x;
        found = true;
      }
    }
    return found ? best : null;
  }

  private static Object ints(ColumnVector v, int rows, boolean max, Kind kind) {
    boolean found = false;
    int best = 0;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      int x = kind == Kind.INT ? v.getInt(i) : kind == Kind.SHORT ? v.getShort(i) : v.getByte(i);
      if (!found || (max ? x > best : x < best)) {
        best = x;
        found = true;
      }
    }
    return found ? best : null;
  }

  private static Object doubles(ColumnVector v, int rows, boolean max) {
    boolean found = false;
    double best = 0;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      double x = v.getDouble(i);
      if (!found || wins(compare(x, best), max)) {
        best = x;
        found = true;
      }
    }
    return found ? best : null;
  }

  private static Object floats(ColumnVector v, int rows, boolean max) {
    boolean found = false;
    float best = 0;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      float x = v.getFloat(i);
      if (!found || wins(compare(x, best), max)) {
        best = x;
        found = true;
      }
    }
    return found ? best : null;
  }

  private static Object booleans(ColumnVector v, int rows, boolean max) {
    boolean found = false;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      if (v.getBoolean(i) == max) {
        return max;
      }
      found = true;
    }
    return found ? !max : null;
  }

  private static Object decimal(ColumnVector v, int rows, DecimalType t, boolean max) {
    Decimal best = null;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      Decimal x = v.getDecimal(i, t.precision(), t.scale());
      if (best == null || wins(x.compare(best), max)) {
        best = x.clone();
      }
    }
    return best;
  }

  private static Object string(ColumnVector v, int rows, boolean max) {
    if (v instanceof NativeColumnVector) {
      NativeColumnVector dictionary = (NativeColumnVector) v;
      int entries = dictionary.dictionaryEntries();
      if (entries >= 0 && entries < rows) {
        return dictionaryString(dictionary, rows, entries, max);
      }
    }
    UTF8String best = null;
    for (int i = 0; i < rows; i++) {
      if (v.isNullAt(i)) {
        continue;
      }
      UTF8String x = v.getUTF8String(i);
      if (best == null || wins(SparkLine.compareBytes(x, best), max)) {
        best = x;
      }
    }
    // The decoded batch's memory is freed with the next batch: keep a copy.
    return best == null ? null : best.clone();
  }

  /**
   * {@link #string} of a dictionary column: the entries some non-null row names, compared once
   * each rather than once per row. Equal entries are equal bytes, so which one wins is moot.
   */
  private static Object dictionaryString(
      NativeColumnVector v, int rows, int entries, boolean max) {
    boolean[] named = new boolean[entries];
    for (int i = 0; i < rows; i++) {
      if (!v.isNullAt(i)) {
        named[v.keyAt(i)] = true;
      }
    }
    UTF8String best = null;
    for (int k = 0; k < entries; k++) {
      if (named[k]) {
        UTF8String x = v.entry(k);
        if (best == null || wins(SparkLine.compareBytes(x, best), max)) {
          best = x;
        }
      }
    }
    return best == null ? null : best.clone();
  }

  /** Strictly better: of equal values the one seen first stays, as in Greatest and Least. */
  private static boolean wins(int comparison, boolean max) {
    return max ? comparison > 0 : comparison < 0;
  }

  /** Spark's double ordering (SQLOrderingUtil.compareDoubles). */
  private static int compare(double x, double y) {
    return x == y ? 0 : Double.compare(x, y);
  }

  /** Spark's float ordering (SQLOrderingUtil.compareFloats). */
  private static int compare(float x, float y) {
    return x == y ? 0 : Float.compare(x, y);
  }
}
