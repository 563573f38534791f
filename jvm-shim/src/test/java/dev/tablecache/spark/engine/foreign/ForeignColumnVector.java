package dev.tablecache.spark.engine.foreign;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Another engine's column vector, as tablecache sees one: a class it does not know, wrapping
 * values that only the engine itself reaches ({@link #unwrap}). In {@link Mode#SEALED} every
 * getter throws, as Apache Gluten's light-batch vectors do ({@code PlaceholderVector}); in {@link
 * Mode#EDGES} only the first and last row can be read (a vector that fools a probe); in {@link
 * Mode#READABLE} every getter delegates (an engine whose vectors are readable, such as Arrow-backed
 * ones). Public and extensible so that janino can put a subclass in another engine's package.
 */
public class ForeignColumnVector extends ColumnVector {

  public enum Mode {
    SEALED,
    EDGES,
    READABLE
  }

  private final ColumnVector inner;
  private final Mode mode;
  private final int rows;

  public ForeignColumnVector(ColumnVector inner, Mode mode, int rows) {
    this(inner.dataType(), inner, mode, rows);
  }

  /** A vector that declares {@code declared} whatever {@code inner} holds. */
  public ForeignColumnVector(DataType declared, ColumnVector inner, Mode mode, int rows) {
    super(declared);
    this.inner = inner;
    this.mode = mode;
    this.rows = rows;
  }

  /** What only the engine can do: the batch with its real vectors. */
  static ColumnarBatch unwrap(ColumnarBatch batch) {
    ColumnVector[] cols = new ColumnVector[batch.numCols()];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = ((ForeignColumnVector) batch.column(i)).inner;
    }
    return new ColumnarBatch(cols, batch.numRows());
  }

  private ColumnVector open(int rowId) {
    if (mode == Mode.READABLE || (mode == Mode.EDGES && (rowId == 0 || rowId == rows - 1))) {
      return inner;
    }
    throw new UnsupportedOperationException("values are native (test engine)");
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public boolean hasNull() {
    return open(0).hasNull();
  }

  @Override
  public int numNulls() {
    return open(0).numNulls();
  }

  @Override
  public boolean isNullAt(int rowId) {
    return open(rowId).isNullAt(rowId);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return open(rowId).getBoolean(rowId);
  }

  @Override
  public byte getByte(int rowId) {
    return open(rowId).getByte(rowId);
  }

  @Override
  public short getShort(int rowId) {
    return open(rowId).getShort(rowId);
  }

  @Override
  public int getInt(int rowId) {
    return open(rowId).getInt(rowId);
  }

  @Override
  public long getLong(int rowId) {
    return open(rowId).getLong(rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return open(rowId).getFloat(rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return open(rowId).getDouble(rowId);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return open(rowId).getArray(rowId);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return open(rowId).getMap(rowId);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return open(rowId).getDecimal(rowId, precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return open(rowId).getUTF8String(rowId);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return open(rowId).getBinary(rowId);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    if (mode != Mode.READABLE) {
      throw new UnsupportedOperationException("values are native (test engine)");
    }
    return inner.getChild(ordinal);
  }
}
