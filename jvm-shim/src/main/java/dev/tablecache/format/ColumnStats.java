package dev.tablecache.format;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Objects;

/**
 * One column's partition statistics from a frame's stats section (FORMAT.md section 4), in Spark's
 * pruning semantics. A missing bound means "unbounded", never "null".
 *
 * <p>Typed bounds: {@link BoundKind#BOOL} → {@link Boolean}, {@link BoundKind#INT} → {@link Long},
 * {@link BoundKind#FLOAT} → {@link Double}, {@link BoundKind#UTF8} → {@code byte[]} (raw UTF-8,
 * not decoded; compare as unsigned bytes), {@link BoundKind#DECIMAL128} → {@link BigInteger}
 * (the unscaled value; the scale is the schema's).
 */
public final class ColumnStats {

  static final int FLAG_UNSUPPORTED = 1;
  static final int FLAG_HAS_NAN = 1 << 1;
  static final int FLAG_HAS_LOWER = 1 << 2;
  static final int FLAG_HAS_UPPER = 1 << 3;

  private final long nullCount;
  private final long rowCount;
  private final long sizeInBytes;
  private final int flags;
  private final BoundKind boundKind;
  private final Object lower;
  private final Object upper;

  ColumnStats(
      long nullCount,
      long rowCount,
      long sizeInBytes,
      int flags,
      BoundKind boundKind,
      Object lower,
      Object upper) {
    this.nullCount = nullCount;
    this.rowCount = rowCount;
    this.sizeInBytes = sizeInBytes;
    this.flags = flags;
    this.boundKind = boundKind;
    this.lower = lower;
    this.upper = upper;
  }

  public long nullCount() {
    return nullCount;
  }

  /** Rows, nulls included. */
  public long rowCount() {
    return rowCount;
  }

  /** The column's uncompressed body length (an unsigned 64-bit value). */
  public long sizeInBytes() {
    return sizeInBytes;
  }

  /** The raw flags byte. */
  public int flags() {
    return flags;
  }

  /** The type has no bounds: never prune on this column. */
  public boolean unsupported() {
    return (flags & FLAG_UNSUPPORTED) != 0;
  }

  /** Some value is NaN (the upper bound is then NaN). */
  public boolean hasNaN() {
    return (flags & FLAG_HAS_NAN) != 0;
  }

  public BoundKind boundKind() {
    return boundKind;
  }

  public boolean hasLower() {
    return (flags & FLAG_HAS_LOWER) != 0;
  }

  public boolean hasUpper() {
    return (flags & FLAG_HAS_UPPER) != 0;
  }

  /** The lower bound (typed per {@link #boundKind()}), or null when absent. */
  public Object lower() {
    return copyIfBytes(lower);
  }

  /** The upper bound (typed per {@link #boundKind()}), or null when absent. */
  public Object upper() {
    return copyIfBytes(upper);
  }

  private static Object copyIfBytes(Object o) {
    // byte[] is the one mutable bound type; hand out copies so stats stay immutable.
    return o instanceof byte[] ? ((byte[]) o).clone() : o;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ColumnStats)) {
      return false;
    }
    ColumnStats c = (ColumnStats) o;
    return nullCount == c.nullCount
        && rowCount == c.rowCount
        && sizeInBytes == c.sizeInBytes
        && flags == c.flags
        && boundKind == c.boundKind
        && boundEquals(lower, c.lower)
        && boundEquals(upper, c.upper);
  }

  private static boolean boundEquals(Object a, Object b) {
    if (a instanceof byte[] && b instanceof byte[]) {
      return Arrays.equals((byte[]) a, (byte[]) b);
    }
    return Objects.equals(a, b); // Double.equals treats NaN as equal to NaN, as wanted here
  }

  @Override
  public int hashCode() {
    return Objects.hash(nullCount, rowCount, sizeInBytes, flags, boundKind);
  }

  @Override
  public String toString() {
    return "ColumnStats{nullCount="
        + nullCount
        + ", rowCount="
        + rowCount
        + ", sizeInBytes="
        + Long.toUnsignedString(sizeInBytes)
        + ", flags=0x"
        + Integer.toHexString(flags)
        + ", boundKind="
        + boundKind
        + ", lower="
        + show(lower)
        + ", upper="
        + show(upper)
        + "}";
  }

  private static String show(Object o) {
    if (o instanceof byte[]) {
      return "utf8:" + new String((byte[]) o, java.nio.charset.StandardCharsets.UTF_8);
    }
    return String.valueOf(o);
  }
}
