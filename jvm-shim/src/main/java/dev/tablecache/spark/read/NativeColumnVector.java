package dev.tablecache.spark.read;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.ArrowLayout;
import dev.tablecache.jni.NativeColumn;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
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
 * row count (Arrow's full validation) before handing it over, this class checks the buffer
 * sizes against the row count once more when it is created, the addresses below are fixed for
 * the vector's life, and {@link FrameDecoder} frees the column only after the batch is done
 * with. A column comes either straight from the native descriptor ({@link #of}: no Arrow Java
 * vector, the usual case) or from an Arrow Java vector ({@link #wrap}: batches that also hold
 * nested columns). Nested, interval and null columns stay {@code ArrowColumnVector}s ({@link
 * #supports}).
 *
 * <p>A string or binary column the frame stores as a string dictionary arrives as keys over its
 * entries ({@link NativeColumn#dictionary}): a value is then its key's entry, read in place, so
 * the decoder never copies each value's bytes out of the dictionary. Every key of a value that
 * is not null names an entry (checked by the native decoder), and a null value's key is never
 * read.
 *
 * <p>A string or binary column of a batch that decodes several columns may be {@link #deferred}:
 * decoded on its first read, so a filter that rejects a whole batch never pays for its other
 * string columns. Each read first checks that it is decoded (one predictable branch).
 *
 * <p>Public only because Spark's generated code casts columns to the class {@code vectorTypes}
 * names; it is created by the serializer, never by users.
 */
public final class NativeColumnVector extends ColumnVector {

  /** The Arrow Java vector read, or null for a column read from its native descriptor. */
  private final ValueVector vector;

  /**
   * Until the first read, the decode of a {@link #deferred} column; null once decoded (and for
   * every other column). The fields below are set once, by the constructor or by that decode.
   */
  private DeferredColumn pending;

  /** The native column read, or null for an Arrow Java vector. */
  private NativeColumn column;

  /** 8-byte offsets (LargeUtf8, LargeBinary) rather than 4-byte ones. */
  private boolean longOffsets;
  private int nullCount;
  /** 0 when the column has no nulls (its validity buffer may then be absent). */
  private long validity;

  private long data;
  private long offsets;
  /**
   * 0, or for a {@link NativeColumn#dictionary dictionary} column the address of its keys: value
   * {@code i} is then entry {@code keys[i]}, whose bytes {@code offsets} and {@code data} hold.
   */
  private long keys;
  /** For a dictionary column, its entry count; else 0. */
  private int entryCount;

  /** A column whose native decode waits for its first read ({@link #deferred}). */
  interface DeferredColumn {
    /**
     * Decodes the column and reads it ({@link #of}); the native column stays owned by the
     * caller, who frees it with its batch.
     *
     * @throws RuntimeException whatever the decode or {@link #of} throws, healing arranged
     */
    NativeColumnVector decode();
  }

  /**
   * The one table of the Spark types this class reads, and the Arrow types each arrives as
   * (Spark's Arrow mapping picks one; a string column may also be stored as binary, FORMAT.md
   * "Strings that are not UTF-8"). How a column of that Arrow type lies in memory (value width,
   * offsets and their width) is {@link ArrowLayout}'s to say, not this table's. {@link
   * #supports}, {@link #of} and {@link #wrap} all read it, so they cannot drift.
   */
  private enum Values {
    BOOLEAN,
    BYTE,
    SHORT,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    DECIMAL,
    BYTES;

    /** What a column of Spark type {@code t} holds, or null for a type left to Arrow Java. */
    static Values of(DataType t) {
      if (t instanceof BooleanType) {
        return BOOLEAN;
      } else if (t instanceof ByteType) {
        return BYTE;
      } else if (t instanceof ShortType) {
        return SHORT;
      } else if (t instanceof IntegerType || t instanceof DateType) {
        return INT;
      } else if (t instanceof LongType
          || t instanceof TimestampType
          || t instanceof TimestampNTZType) {
        return LONG;
      } else if (t instanceof FloatType) {
        return FLOAT;
      } else if (t instanceof DoubleType) {
        return DOUBLE;
      } else if (t instanceof DecimalType) {
        return DECIMAL;
      } else if (t instanceof StringType || t instanceof BinaryType) {
        return BYTES;
      }
      return null;
    }

    /** Whether Arrow type {@code t} holds these values (Spark's Arrow mapping of a flat type). */
    boolean heldBy(ArrowType t) {
      switch (this) {
        case BOOLEAN:
          return t instanceof ArrowType.Bool;
        case BYTE:
          return isSignedInt(t, 8);
        case SHORT:
          return isSignedInt(t, 16);
        case INT:
          return isSignedInt(t, 32)
              || (t instanceof ArrowType.Date && ((ArrowType.Date) t).getUnit() == DateUnit.DAY);
        case LONG:
          return isSignedInt(t, 64)
              || (t instanceof ArrowType.Timestamp
                  && ((ArrowType.Timestamp) t).getUnit() == TimeUnit.MICROSECOND);
        case FLOAT:
          return t instanceof ArrowType.FloatingPoint
              && ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.SINGLE;
        case DOUBLE:
          return t instanceof ArrowType.FloatingPoint
              && ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.DOUBLE;
        case DECIMAL:
          return t instanceof ArrowType.Decimal && ((ArrowType.Decimal) t).getBitWidth() == 128;
        case BYTES:
          return t instanceof ArrowType.Utf8
              || t instanceof ArrowType.Binary
              || t instanceof ArrowType.LargeUtf8
              || t instanceof ArrowType.LargeBinary;
        default:
          return false;
      }
    }

    private static boolean isSignedInt(ArrowType t, int bits) {
      return t instanceof ArrowType.Int
          && ((ArrowType.Int) t).getIsSigned()
          && ((ArrowType.Int) t).getBitWidth() == bits;
    }
  }

  private NativeColumnVector(
      DataType type,
      ArrowLayout layout,
      ValueVector vector,
      NativeColumn column,
      int nullCount,
      long validity,
      long data,
      long offsets,
      long keys) {
    super(type);
    this.vector = vector;
    this.column = column;
    this.longOffsets = layout.shape() == ArrowLayout.Shape.VARIABLE && layout.width() == 8;
    this.nullCount = nullCount;
    this.validity = nullCount == 0 ? 0 : validity;
    this.data = data;
    this.offsets = offsets;
    this.keys = keys;
  }

  /**
   * A string or binary column decoded on its first read rather than with its batch: a filter
   * that rejects every row of a batch never reads the batch's other columns (Spark's generated
   * code reads a column only for rows that pass), so their decode is skipped.
   */
  static NativeColumnVector deferred(DataType sparkType, DeferredColumn decode) {
    if (!deferrable(sparkType)) {
      throw new IllegalArgumentException(
          "only string and binary columns are deferred, not " + sparkType.simpleString());
    }
    NativeColumnVector v =
        new NativeColumnVector(
            sparkType, ArrowLayout.of(ArrowType.Utf8.INSTANCE), null, null, 0, 0, 0, 0, 0);
    v.pending = decode;
    return v;
  }

  /** Whether this is a {@link #deferred} column not decoded yet. */
  boolean isPending() {
    return pending != null;
  }

  /**
   * Decodes a deferred column and takes its addresses, checked by {@link #of}. On failure the
   * column stays pending: the task fails, and nothing reads it again.
   */
  private void decodePending() {
    NativeColumnVector decoded = pending.decode();
    column = decoded.column;
    longOffsets = decoded.longOffsets;
    nullCount = decoded.nullCount;
    validity = decoded.validity;
    data = decoded.data;
    offsets = decoded.offsets;
    keys = decoded.keys;
    entryCount = decoded.entryCount;
    pending = null;
  }

  /**
   * Reads a native column of a {@link #supports supported} Spark type; the column stays owned by
   * the caller.
   *
   * @throws TableCacheException SCHEMA_MISMATCH when the column's Arrow type is not one the Spark
   *     type maps to, INTERNAL when a buffer is smaller than the row count needs
   */
  static NativeColumnVector of(NativeColumn c, DataType sparkType) {
    ArrowLayout layout = layoutOf(c.field.getType(), sparkType, c.field.toString());
    int rows = c.length;
    // A dictionary has a keys buffer before its entries' offsets and bytes.
    int keysBuffers = c.dictionary ? 1 : 0;
    if (c.bufferCount() != layout.buffers() + keysBuffers
        || (c.dictionary && !(variable(layout) && layout.width() == 4))) {
      throw badColumn(c, c.bufferCount() + " buffers" + (c.dictionary ? " as a dictionary" : ""));
    }
    if (rows == 0) {
      return new NativeColumnVector(sparkType, layout, null, c, 0, 0, 0, 0, 0);
    }
    long validityBytes = (rows + 7L) >>> 3;
    if (c.nullCount > 0 && c.size(0) < validityBytes) {
      throw badColumn(c, "a validity buffer of " + c.size(0) + " bytes");
    }
    if (c.dictionary) {
      return dictionaryOf(c, sparkType, layout);
    }
    long offsets = 0;
    int dataBuffer = 1;
    long dataBytes;
    if (variable(layout)) {
      offsets = c.address(1);
      dataBuffer = 2;
      if (c.size(1) < (rows + 1L) * layout.width()) {
        throw badColumn(c, "an offsets buffer of " + c.size(1) + " bytes");
      }
      long first = readOffset(layout, offsets, 0);
      dataBytes = readOffset(layout, offsets, rows);
      if (first != 0 || dataBytes < 0) {
        throw badColumn(c, "offsets from " + first + " to " + dataBytes);
      }
    } else {
      dataBytes =
          layout.shape() == ArrowLayout.Shape.BOOLEAN ? validityBytes : (long) rows * layout.width();
    }
    if (dataBytes > 0 && c.size(dataBuffer) < dataBytes) {
      throw badColumn(c, "a data buffer of " + c.size(dataBuffer) + " bytes");
    }
    return new NativeColumnVector(
        sparkType, layout, null, c, c.nullCount, c.address(0), c.address(dataBuffer), offsets, 0);
  }

  /**
   * {@link #of} for a dictionary column of at least one row: its keys cover the rows, and its
   * entries' offsets start at 0 and end inside the entries' bytes. The native decoder checked
   * that every key of a value that is not null names an entry and that the offsets never fall.
   */
  private static NativeColumnVector dictionaryOf(
      NativeColumn c, DataType sparkType, ArrowLayout layout) {
    if (c.size(1) < 4L * c.length) {
      throw badColumn(c, "a keys buffer of " + c.size(1) + " bytes");
    }
    long offsets = c.address(2);
    long entries = c.size(2) / 4 - 1;
    if (entries < 0) {
      throw badColumn(c, "an entry offsets buffer of " + c.size(2) + " bytes");
    }
    long first = Platform.getInt(null, offsets);
    long end = Platform.getInt(null, offsets + 4 * entries);
    if (first != 0 || end < 0 || end > c.size(3)) {
      throw badColumn(
          c, "entry offsets from " + first + " to " + end + " over " + c.size(3) + " bytes");
    }
    NativeColumnVector v =
        new NativeColumnVector(
            sparkType, layout, null, c, c.nullCount, c.address(0), c.address(3), offsets, c.address(1));
    v.entryCount = (int) entries;
    return v;
  }

  /**
   * Wraps a decoded Arrow Java vector of a {@link #supports supported} Spark type, whose Arrow
   * type is one Spark's Arrow mapping gives that type.
   */
  static NativeColumnVector wrap(ValueVector v, DataType sparkType) {
    ArrowLayout layout = layoutOf(v.getField().getType(), sparkType, v.getField().toString());
    int rowCount = v.getValueCount();
    ArrowBuf bitmap = rowCount == 0 ? null : v.getValidityBuffer();
    int nulls = nullCount(v, bitmap, rowCount);
    return new NativeColumnVector(
        sparkType,
        layout,
        v,
        null,
        nulls,
        nulls == 0 ? 0 : bitmap.memoryAddress(),
        rowCount == 0 ? 0 : v.getDataBuffer().memoryAddress(),
        variable(layout) && rowCount > 0 ? v.getOffsetBuffer().memoryAddress() : 0,
        0);
  }

  private static boolean variable(ArrowLayout layout) {
    return layout.shape() == ArrowLayout.Shape.VARIABLE;
  }

  private static long readOffset(ArrowLayout layout, long offsets, int i) {
    return layout.width() == 4
        ? Platform.getInt(null, offsets + 4L * i)
        : Platform.getLong(null, offsets + 8L * i);
  }

  private static TableCacheException badColumn(NativeColumn c, String what) {
    return new TableCacheException(
        TableCacheException.Kind.INTERNAL,
        "decoded column " + ErrorText.text(c.field) + " of " + c.length + " rows has " + what);
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
   * to Spark's code generation, so it must match {@link #of} and {@link #wrap} exactly.
   */
  public static boolean supports(DataType t) {
    return Values.of(t) != null;
  }

  /** Whether a column of Spark type {@code t} may be {@link #deferred}: strings and binary. */
  static boolean deferrable(DataType t) {
    return Values.of(t) == Values.BYTES;
  }

  /** The layout of a column of {@code arrowType} read as Spark type {@code t}. */
  private static ArrowLayout layoutOf(ArrowType arrowType, DataType t, String what) {
    Values values = Values.of(t);
    if (values != null && values.heldBy(arrowType)) {
      return ArrowLayout.of(arrowType);
    }
    throw new TableCacheException(
        TableCacheException.Kind.SCHEMA_MISMATCH,
        "decoded column "
            + ErrorText.text(what)
            + " does not have the Arrow layout of Spark type "
            + ErrorText.text(t.simpleString()));
  }

  /**
   * The decoded Arrow Java vector, for zero-copy re-caching of a cached table's output; null for
   * a column read from its native descriptor ({@link #nativeColumn}).
   */
  public FieldVector getValueVector() {
    return (FieldVector) vector;
  }

  /** The native column read, for zero-copy re-caching; null for a wrapped Arrow Java vector. */
  public NativeColumn nativeColumn() {
    if (pending != null) {
      decodePending();
    }
    return column;
  }

  @Override
  public void close() {
    // The decoded batch owns the vector: FrameDecoder frees it when the task moves on.
  }

  @Override
  public boolean hasNull() {
    if (pending != null) {
      decodePending();
    }
    return nullCount > 0;
  }

  @Override
  public int numNulls() {
    if (pending != null) {
      decodePending();
    }
    return nullCount;
  }

  @Override
  public boolean isNullAt(int rowId) {
    if (pending != null) {
      decodePending();
    }
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
    int slot = slot(rowId);
    long start = offset(slot);
    return UTF8String.fromAddress(null, data + start, (int) (offset(slot + 1) - start));
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    int slot = slot(rowId);
    long start = offset(slot);
    byte[] bytes = new byte[(int) (offset(slot + 1) - start)];
    Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
    return bytes;
  }

  /**
   * For a dictionary column (value {@code i} is entry {@link #keyAt}{@code (i)}), its number of
   * entries; -1 for every other column. Lets a reader work per entry rather than per row.
   */
  public int dictionaryEntries() {
    if (pending != null) {
      decodePending();
    }
    return keys == 0 ? -1 : entryCount;
  }

  /**
   * The entry of row {@code rowId} of a {@link #dictionaryEntries dictionary} column, whose value
   * is not null: below the entry count (the native decoder checked every such key).
   */
  public int keyAt(int rowId) {
    return Platform.getInt(null, keys + 4L * rowId);
  }

  /** Entry {@code key} of a {@link #dictionaryEntries dictionary} column, not copied. */
  public UTF8String entry(int key) {
    long start = Platform.getInt(null, offsets + 4L * key);
    long end = Platform.getInt(null, offsets + 4L * key + 4);
    return UTF8String.fromAddress(null, data + start, (int) (end - start));
  }

  /** Where row {@code rowId}'s bytes are named: the row itself, or its entry's key. */
  private int slot(int rowId) {
    return keys == 0 ? rowId : Platform.getInt(null, keys + 4L * rowId);
  }

  /** Offset {@code i} of the values, or of the entries of a dictionary. */
  private long offset(int i) {
    return longOffsets
        ? Platform.getLong(null, offsets + 8L * i)
        : Platform.getInt(null, offsets + 4L * i);
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
        "NativeColumnVector holds only flat columns, not " + ErrorText.text(dataType().simpleString()));
  }
}
