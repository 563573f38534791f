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

  private enum Layout {
    BIT,
    BYTE,
    SHORT,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    DECIMAL128,
    VAR_32,
    VAR_64
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
    return t instanceof BooleanType
        || t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof DateType
        || t instanceof LongType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType
        || t instanceof FloatType
        || t instanceof DoubleType
        || t instanceof DecimalType
        || t instanceof StringType
        || t instanceof BinaryType;
  }

  /**
   * Wraps a decoded vector of a {@link #supports supported} Spark type; the Arrow vector class
   * is the one Spark's Arrow mapping gives that type.
   */
  static NativeColumnVector wrap(ValueVector v, DataType sparkType) {
    return new NativeColumnVector(v, sparkType, layoutOf(v, sparkType));
  }

  private static Layout layoutOf(ValueVector v, DataType t) {
    if (v instanceof BitVector && t instanceof BooleanType) {
      return Layout.BIT;
    } else if (v instanceof TinyIntVector && t instanceof ByteType) {
      return Layout.BYTE;
    } else if (v instanceof SmallIntVector && t instanceof ShortType) {
      return Layout.SHORT;
    } else if ((v instanceof IntVector && t instanceof IntegerType)
        || (v instanceof DateDayVector && t instanceof DateType)) {
      return Layout.INT;
    } else if ((v instanceof BigIntVector && t instanceof LongType)
        || (v instanceof TimeStampMicroTZVector && t instanceof TimestampType)
        || (v instanceof TimeStampMicroVector && t instanceof TimestampNTZType)) {
      return Layout.LONG;
    } else if (v instanceof Float4Vector && t instanceof FloatType) {
      return Layout.FLOAT;
    } else if (v instanceof Float8Vector && t instanceof DoubleType) {
      return Layout.DOUBLE;
    } else if (v instanceof DecimalVector && t instanceof DecimalType) {
      return Layout.DECIMAL128;
    } else if ((v instanceof VarCharVector && t instanceof StringType)
        || (v instanceof VarBinaryVector && t instanceof BinaryType)) {
      return Layout.VAR_32;
    } else if ((v instanceof LargeVarCharVector && t instanceof StringType)
        || (v instanceof LargeVarBinaryVector && t instanceof BinaryType)) {
      return Layout.VAR_64;
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
