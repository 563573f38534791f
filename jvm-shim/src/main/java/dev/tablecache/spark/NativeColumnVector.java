package dev.tablecache.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.BinaryType;
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
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A flat decoded column read straight from its native buffers, the way Spark's own {@code
 * OffHeapColumnVector} reads: one unchecked load per value. {@code ArrowColumnVector} checks the
 * buffer's reference count and bounds on every access, which dominated row output in profiles.
 *
 * <p>The unchecked reads are safe because the native decoder validated every buffer against the
 * row count (Arrow's full validation) before handing it over, the addresses below are fixed for
 * the vector's life, and {@link FrameDecoder} frees the vector only after the batch is done with.
 * Nested, interval and null columns stay {@code ArrowColumnVector}s ({@link #supports}).
 *
 * <p>Public only because Spark's generated code casts columns to the class {@code vectorTypes}
 * names; it is created by the serializer, never by users.
 */
public final class NativeColumnVector extends ColumnVector {

  private final ValueVector vector;
  private final Layout layout;
  private final int nullCount;
  /** 0 when the column has no nulls (its validity buffer may then be absent). */
  private final long validity;

  private final long data;
  private final long offsets;

  /** How this class reads a column, and the Arrow vectors that have that layout. */
  private enum Layout {
    BIT(BitVector.class),
    BYTE(TinyIntVector.class),
    SHORT(SmallIntVector.class),
    INT(IntVector.class, DateDayVector.class),
    LONG(BigIntVector.class, TimeStampMicroTZVector.class, TimeStampMicroVector.class),
    FLOAT(Float4Vector.class),
    DOUBLE(Float8Vector.class),
    DECIMAL128(DecimalVector.class),
    VAR_32(VarCharVector.class, VarBinaryVector.class),
    VAR_64(LargeVarCharVector.class, LargeVarBinaryVector.class);

    private final Class<?>[] vectors;

    Layout(Class<?>... vectors) {
      this.vectors = vectors;
    }

    boolean holds(ValueVector v) {
      for (Class<?> c : vectors) {
        if (c.isInstance(v)) {
          return true;
        }
      }
      return false;
    }
  }

  // Shared arrays: wrap() asks once per decoded column of every batch.
  private static final Layout[] NONE = {};
  private static final Layout[] BIT = {Layout.BIT};
  private static final Layout[] BYTE = {Layout.BYTE};
  private static final Layout[] SHORT = {Layout.SHORT};
  private static final Layout[] INT = {Layout.INT};
  private static final Layout[] LONG = {Layout.LONG};
  private static final Layout[] FLOAT = {Layout.FLOAT};
  private static final Layout[] DOUBLE = {Layout.DOUBLE};
  private static final Layout[] DECIMAL128 = {Layout.DECIMAL128};
  private static final Layout[] VARIABLE = {Layout.VAR_32, Layout.VAR_64};

  /**
   * The one table of what this class reads: the layouts a decoded column of Spark type {@code t}
   * may have (Spark's Arrow mapping picks one), none for a type left to {@code
   * ArrowColumnVector}. {@link #supports} and {@link #wrap} both read it, so they cannot drift.
   */
  private static Layout[] layoutsOf(DataType t) {
    if (t instanceof BooleanType) {
      return BIT;
    } else if (t instanceof ByteType) {
      return BYTE;
    } else if (t instanceof ShortType) {
      return SHORT;
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return INT;
    } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return LONG;
    } else if (t instanceof FloatType) {
      return FLOAT;
    } else if (t instanceof DoubleType) {
      return DOUBLE;
    } else if (t instanceof DecimalType) {
      return DECIMAL128;
    } else if (t instanceof StringType || t instanceof BinaryType) {
      return VARIABLE;
    }
    return NONE;
  }

  private NativeColumnVector(ValueVector vector, DataType type, Layout layout) {
    super(type);
    this.vector = vector;
    this.layout = layout;
    int rowCount = vector.getValueCount();
    ArrowBuf bitmap = rowCount == 0 ? null : vector.getValidityBuffer();
    this.nullCount = nullCount(vector, bitmap, rowCount);
    this.validity = nullCount == 0 ? 0 : bitmap.memoryAddress();
    boolean variable = layout == Layout.VAR_32 || layout == Layout.VAR_64;
    this.data = rowCount == 0 ? 0 : vector.getDataBuffer().memoryAddress();
    this.offsets = variable && rowCount > 0 ? vector.getOffsetBuffer().memoryAddress() : 0;
  }

  /**
   * The vector's null count, by popcount over its validity bitmap 8 bytes at a time. Arrow Java's
   * {@code getNullCount} does a bounds-checked read per byte, which showed as about 8% of task
   * time when reading 1 column per batch. Falls back to it for a bitmap shorter than the rows.
   */
  private static int nullCount(ValueVector vector, ArrowBuf bitmap, int rowCount) {
    if (rowCount == 0) {
      return 0;
    }
    long bytes = (rowCount + 7L) >>> 3;
    if (bitmap == null || bitmap.capacity() < bytes) {
      return vector.getNullCount();
    }
    long address = bitmap.memoryAddress();
    long fullWords = rowCount >>> 6;
    long set = 0;
    for (long w = 0; w < fullWords; w++) {
      set += Long.bitCount(Platform.getLong(null, address + 8 * w));
    }
    for (int row = (int) (fullWords << 6); row < rowCount; row++) {
      set += (Platform.getByte(null, address + (row >>> 3)) >>> (row & 7)) & 1;
    }
    return (int) (rowCount - set);
  }

  /**
   * Whether a Spark type is read through this class: the decision {@code vectorTypes} reports
   * to Spark's code generation, so it must match {@link #wrap} exactly.
   */
  static boolean supports(DataType t) {
    return layoutsOf(t).length > 0;
  }

  /**
   * Wraps a decoded vector of a {@link #supports supported} Spark type; the Arrow vector class
   * is the one Spark's Arrow mapping gives that type.
   */
  static NativeColumnVector wrap(ValueVector v, DataType sparkType) {
    return new NativeColumnVector(v, sparkType, layoutOf(v, sparkType));
  }

  private static Layout layoutOf(ValueVector v, DataType t) {
    for (Layout layout : layoutsOf(t)) {
      if (layout.holds(v)) {
        return layout;
      }
    }
    throw new IllegalStateException(
        "decoded column "
            + v.getField()
            + " ("
            + v.getClass().getSimpleName()
            + ") does not have the Arrow layout of Spark type "
            + t.simpleString());
  }

  /** The decoded Arrow vector, for zero-copy re-caching of a cached table's output. */
  FieldVector getValueVector() {
    return (FieldVector) vector;
  }

  @Override
  public void close() {
    // The decoded batch owns the vector: FrameDecoder frees it when the task moves on.
  }

  @Override
  public boolean hasNull() {
    return nullCount > 0;
  }

  @Override
  public int numNulls() {
    return nullCount;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return validity != 0 && (Platform.getByte(null, validity + (rowId >>> 3)) & (1 << (rowId & 7))) == 0;
  }

  @Override
  public boolean getBoolean(int rowId) {
    return (Platform.getByte(null, data + (rowId >>> 3)) & (1 << (rowId & 7))) != 0;
  }

  @Override
  public byte getByte(int rowId) {
    return Platform.getByte(null, data + rowId);
  }

  @Override
  public short getShort(int rowId) {
    return Platform.getShort(null, data + 2L * rowId);
  }

  @Override
  public int getInt(int rowId) {
    return Platform.getInt(null, data + 4L * rowId);
  }

  @Override
  public long getLong(int rowId) {
    return Platform.getLong(null, data + 8L * rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return Platform.getFloat(null, data + 4L * rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return Platform.getDouble(null, data + 8L * rowId);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    if (isNullAt(rowId)) {
      return null;
    }
    long address = data + 16L * rowId;
    if (precision <= Decimal.MAX_LONG_DIGITS()) {
      // Arrow's Decimal128 is a little-endian two's complement integer: a value of at most 18
      // digits is its low 8 bytes, sign included.
      return Decimal.createUnsafe(Platform.getLong(null, address), precision, scale);
    }
    byte[] bigEndian = new byte[16];
    for (int i = 0; i < 16; i++) {
      bigEndian[i] = Platform.getByte(null, address + 15 - i);
    }
    return Decimal.apply(new BigDecimal(new BigInteger(bigEndian), scale), precision, scale);
  }

  /**
   * The unscaled value of a decimal of at most {@link Decimal#MAX_LONG_DIGITS} digits: what
   * {@code UnsafeRow} stores for it, read without creating a {@link Decimal} (the generated row
   * reader writes it as a long). Undefined for wider decimals and other columns.
   */
  public long getCompactDecimalUnscaled(int rowId) {
    return Platform.getLong(null, data + 16L * rowId);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    long start = start(rowId);
    return UTF8String.fromAddress(null, data + start, (int) (end(rowId) - start));
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    long start = start(rowId);
    byte[] bytes = new byte[(int) (end(rowId) - start)];
    Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
    return bytes;
  }

  private long start(int rowId) {
    return layout == Layout.VAR_32
        ? Platform.getInt(null, offsets + 4L * rowId)
        : Platform.getLong(null, offsets + 8L * rowId);
  }

  private long end(int rowId) {
    return start(rowId + 1);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw notNested();
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw notNested();
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw notNested();
  }

  private UnsupportedOperationException notNested() {
    return new UnsupportedOperationException(
        "NativeColumnVector holds only flat columns, not " + dataType().simpleString());
  }
}
