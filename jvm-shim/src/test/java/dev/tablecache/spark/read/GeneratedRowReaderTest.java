package dev.tablecache.spark.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tablecache.spark.TestLogging;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.fallback.ArrowShapes;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import scala.collection.Iterator;

/**
 * The generated row reader writes, for every cached type, exactly the {@code UnsafeRow} bytes
 * Spark's {@code UnsafeProjection} writes from a generic row view of the same batch (the
 * previous row path, {@link ProjectedRows}): nulls, NaN and -0.0, compact and wide decimals,
 * strings and binary, dates, timestamps, intervals, nested and all-null columns, across batch
 * boundaries and empty batches, and with no column at all. Batches are built by Spark's own
 * Arrow writer and wrapped as the decoder wraps decoded columns.
 */
class GeneratedRowReaderTest {

  static {
    TestLogging.quiet();
  }

  private BufferAllocator allocator;
  private final List<VectorSchemaRoot> roots = new ArrayList<>();

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    for (VectorSchemaRoot r : roots) {
      r.close();
    }
    roots.clear();
    allocator.close();
  }

  private static final DataType[] ALL_TYPES = {
    DataTypes.BooleanType,
    DataTypes.ByteType,
    DataTypes.ShortType,
    DataTypes.IntegerType,
    DataTypes.LongType,
    DataTypes.FloatType,
    DataTypes.DoubleType,
    DataTypes.createDecimalType(10, 2),
    DataTypes.createDecimalType(18, 4),
    DataTypes.createDecimalType(38, 0),
    DataTypes.createDecimalType(20, 5),
    DataTypes.StringType,
    DataTypes.BinaryType,
    DataTypes.DateType,
    DataTypes.TimestampType,
    DataTypes.TimestampNTZType,
    DataTypes.CalendarIntervalType,
    YearMonthIntervalType.apply(),
    DayTimeIntervalType.apply(),
    DataTypes.NullType,
    DataTypes.IntegerType, // all null
    new ArrayType(DataTypes.IntegerType, true),
    new MapType(DataTypes.StringType, DataTypes.IntegerType, true),
    new StructType(
        new StructField[] {
          new StructField("a", DataTypes.IntegerType, true, Metadata.empty()),
          new StructField("b", DataTypes.StringType, true, Metadata.empty())
        }),
  };

  /** Column k of row r (Catalyst values); nulls in a per-column pattern. */
  private static Object value(int k, int r) {
    if (k == 19 || k == 20 || (r + k) % 5 == 3) {
      return null;
    }
    switch (k) {
      case 0:
        return r % 3 == 0;
      case 1:
        return (byte) (r * 37 - 128);
      case 2:
        return (short) (r * 1031 - 32768);
      case 3:
        return r == 1 ? Integer.MIN_VALUE : r == 2 ? Integer.MAX_VALUE : r * 7919 - 50000;
      case 4:
        return r == 1 ? Long.MIN_VALUE : r == 2 ? Long.MAX_VALUE : r * 1000000007L - 3;
      case 5:
        return new float[] {Float.NaN, -0.0f, 0.0f, Float.NEGATIVE_INFINITY, 1.5f, -3e30f}[r % 6];
      case 6:
        return new double[] {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, 2.25, -1e300}[r % 6];
      case 7:
        return Decimal.apply(new BigDecimal((r * 12345 - 99999) + ".25"), 10, 2);
      case 8:
        return Decimal.apply(
            new BigDecimal(r % 2 == 0 ? "99999999999999.9999" : "-99999999999999.9999"), 18, 4);
      case 9:
        return Decimal.apply(
            new BigDecimal(
                r % 3 == 0
                    ? "99999999999999999999999999999999999999"
                    : r % 3 == 1 ? "-99999999999999999999999999999999999999" : "-" + r),
            38,
            0);
      case 10:
        return Decimal.apply(new BigDecimal("-" + r + "123456789012.34567"), 20, 5);
      case 11:
        return UTF8String.fromString(
            r % 4 == 0 ? "" : r % 4 == 1 ? "ünïcødé ✓ 日本語 😀" : "k" + r + "zzzzzzzzzzzzzzzzzzzzzz");
      case 12:
        return r % 4 == 0 ? new byte[0] : ("b" + r).getBytes(StandardCharsets.UTF_8);
      case 13:
        return r * 13 - 25000; // days, pre-epoch first
      case 14:
      case 15:
        return r * 86400000001L - 2208988800000000L; // micros
      case 16:
        return new CalendarInterval(r - 3, r * 2, r * 1000003L - 7);
      case 17:
        return r - 10; // months
      case 18:
        return r * 3600000000L - 1; // micros
      case 21:
        return new GenericArrayData(new Object[] {r, null, -r});
      case 22:
        return new ArrayBasedMapData(
            new GenericArrayData(
                new Object[] {UTF8String.fromString("k1"), UTF8String.fromString("k2")}),
            new GenericArrayData(new Object[] {r, null}));
      case 23:
        return new GenericInternalRow(new Object[] {r, UTF8String.fromString("s" + r)});
      default:
        throw new IllegalArgumentException("column " + k);
    }
  }

  /** A batch of {@code rows} rows of {@code types}, read through the decoder's vector classes. */
  private ColumnarBatch batch(DataType[] types, int rows, int firstRow, int[] columns) {
    StructField[] fields = new StructField[types.length];
    for (int k = 0; k < types.length; k++) {
      fields[k] = new StructField("c" + k, types[k], true, Metadata.empty());
    }
    VectorSchemaRoot root =
        VectorSchemaRoot.create(
            SparkCompat.toArrowSchema(new StructType(fields), "UTC"), allocator);
    roots.add(root);
    ArrowWriter writer = SparkCompat.createArrowWriter(root);
    for (int r = 0; r < rows; r++) {
      Object[] values = new Object[types.length];
      for (int k = 0; k < types.length; k++) {
        values[k] = value(columns[k], firstRow + r);
      }
      writer.write(new GenericInternalRow(values));
    }
    writer.finish();
    ColumnVector[] vectors = new ColumnVector[types.length];
    List<FieldVector> decoded = root.getFieldVectors();
    for (int k = 0; k < types.length; k++) {
      vectors[k] = FrameDecoder.vectorOf(decoded.get(k), types[k]);
    }
    return new ColumnarBatch(vectors, rows);
  }

  private static int[] identity(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }

  private static Iterator<ColumnarBatch> iterator(ColumnarBatch... batches) {
    return SparkCompat.toScala(Arrays.asList(batches)).iterator();
  }

  /** Every row of both readers, as copies. */
  private static List<UnsafeRow> drain(scala.collection.Iterator<InternalRow> rows) {
    List<UnsafeRow> out = new ArrayList<>();
    while (rows.hasNext()) {
      InternalRow row = rows.next();
      assertTrue(row instanceof UnsafeRow, "rows are UnsafeRows");
      // Rows live in the reader's on-heap buffer, never in a decoded batch's native memory.
      assertTrue(((UnsafeRow) row).getBaseObject() instanceof byte[], "row bytes on heap");
      out.add(((UnsafeRow) row).copy());
    }
    return out;
  }

  /** Generated rows equal, byte for byte, the projected rows of the same batches. */
  private List<UnsafeRow> assertSameAsProjection(
      DataType[] types, IntFunction<ColumnarBatch[]> batches) {
    GeneratedRowReader reader = RowReaderCodegen.newReader(types);
    assertNotNull(reader, "a generated reader");
    List<UnsafeRow> generated = drain(reader.reading(iterator(batches.apply(0))));
    List<UnsafeRow> projected = drain(new ProjectedRows(iterator(batches.apply(1)), types));
    assertEquals(projected.size(), generated.size(), "row count");
    for (int r = 0; r < generated.size(); r++) {
      assertEquals(projected.get(r), generated.get(r), "row " + r);
      assertEquals(types.length, generated.get(r).numFields());
    }
    return generated;
  }

  @Test
  void everyTypeMatchesTheProjectionAcrossBatchBoundariesAndEmptyBatches() {
    // Spark 3.5's Arrow mapping has no calendar interval, so its caches of one use Spark's
    // default serializer and never reach this reader; the other tests cover 3.5's types.
    assumeTrue(
        ArrowShapes.canCache(new StructType().add("c", DataTypes.CalendarIntervalType)),
        "this Spark line caches calendar intervals with its default serializer");
    int[] columns = identity(ALL_TYPES.length);
    List<UnsafeRow> rows =
        assertSameAsProjection(
            ALL_TYPES,
            i ->
                new ColumnarBatch[] {
                  batch(ALL_TYPES, 70, 0, columns),
                  batch(ALL_TYPES, 0, 70, columns),
                  batch(ALL_TYPES, 1, 70, columns),
                  batch(ALL_TYPES, 0, 71, columns),
                  batch(ALL_TYPES, 129, 71, columns),
                });
    assertEquals(200, rows.size());
    // Flat values against what was written, independently of the projection: NaN and -0.0 by
    // their bits (Float/Double.equals), decimals, strings, binary, intervals, nulls.
    for (int r = 0; r < rows.size(); r++) {
      for (int k = 0; k <= 20; k++) {
        Object expected = value(k, r);
        UnsafeRow row = rows.get(r);
        String what = "row " + r + ", column " + k;
        if (expected == null) {
          assertTrue(row.isNullAt(k), what);
        } else if (expected instanceof byte[]) {
          assertArrayEquals((byte[]) expected, row.getBinary(k), what);
        } else {
          assertEquals(expected, row.get(k, ALL_TYPES[k]), what);
        }
      }
    }
  }

  @Test
  void projectionsOfSomeColumnsAndRepeatedColumns() {
    DataType[] types = {DataTypes.StringType, DataTypes.LongType, DataTypes.StringType};
    int[] columns = {11, 4, 11};
    assertSameAsProjection(
        types,
        i -> new ColumnarBatch[] {batch(types, 33, 0, columns), batch(types, 65, 33, columns)});
  }

  @Test
  void flatColumnsAreReadThroughTheFinalVectorClass() {
    String source =
        RowReaderCodegen.sourceOf(
            DataTypes.LongType,
            DataTypes.BinaryType,
            DataTypes.createDecimalType(12, 2),
            DataTypes.createDecimalType(30, 2),
            YearMonthIntervalType.apply());
    String vector = NativeColumnVector.class.getName();
    assertTrue(source.contains("private " + vector + " column0;"), source);
    assertTrue(source.contains("column0.getLong("), source);
    assertTrue(source.contains("column1.getUTF8String("), source);
    assertTrue(source.contains("column2.getCompactDecimalUnscaled("), source);
    assertTrue(source.contains("column3.getDecimal("), source);
    assertTrue(
        source.contains("private org.apache.spark.sql.vectorized.ArrowColumnVector column4;"),
        source);
    // No generic row view: nothing reads through ColumnarBatchRow / InternalRow getters.
    assertFalse(source.contains("ColumnarBatchRow"), source);
    assertFalse(source.contains("rowIterator"), source);
  }

  /** A user-defined type stored as its SQL type, an array of longs (cached, read as rows only). */
  static final class LongsUDT extends UserDefinedType<long[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public DataType sqlType() {
      return new ArrayType(DataTypes.LongType, true);
    }

    @Override
    public Object serialize(long[] values) {
      return UnsafeArrayData.fromPrimitiveArray(values);
    }

    @Override
    public long[] deserialize(Object datum) {
      return ((ArrayData) datum).toLongArray();
    }

    @Override
    public Class<long[]> userClass() {
      return long[].class;
    }
  }

  @Test
  void userDefinedTypesAreWrittenAsTheirSqlType() {
    DataType[] types = {new LongsUDT(), DataTypes.LongType};
    assertSameAsProjection(
        types,
        i -> {
          StructField[] fields = {
            new StructField("u", types[0], true, Metadata.empty()),
            new StructField("l", types[1], true, Metadata.empty())
          };
          VectorSchemaRoot root =
              VectorSchemaRoot.create(
                  SparkCompat.toArrowSchema(new StructType(fields), "UTC"), allocator);
          roots.add(root);
          ArrowWriter writer = SparkCompat.createArrowWriter(root);
          for (int r = 0; r < 50; r++) {
            writer.write(
                new GenericInternalRow(
                    new Object[] {
                      r % 7 == 0 ? null : UnsafeArrayData.fromPrimitiveArray(new long[] {r, -r}),
                      (long) r
                    }));
          }
          writer.finish();
          ColumnVector[] vectors = new ColumnVector[2];
          for (int k = 0; k < 2; k++) {
            vectors[k] = FrameDecoder.vectorOf(root.getFieldVectors().get(k), types[k]);
          }
          return new ColumnarBatch[] {new ColumnarBatch(vectors, 50)};
        });
  }

  @Test
  void zeroColumnsGiveRowsWithoutFields() {
    DataType[] none = new DataType[0];
    List<UnsafeRow> rows =
        assertSameAsProjection(
            none,
            i ->
                new ColumnarBatch[] {
                  new ColumnarBatch(new ColumnVector[0], 3),
                  new ColumnarBatch(new ColumnVector[0], 0),
                  new ColumnarBatch(new ColumnVector[0], 2)
                });
    assertEquals(5, rows.size());
    assertEquals(0, rows.get(4).numFields());
  }

  @Test
  void noBatchesGiveNoRows() {
    GeneratedRowReader reader = RowReaderCodegen.newReader(new DataType[] {DataTypes.LongType});
    reader.reading(iterator());
    assertFalse(reader.hasNext());
    assertFalse(reader.hasNext());
  }

  @Test
  void aRepeatedSignatureCompilesOnce() {
    // A signature no other test uses, built twice from distinct type objects.
    DataType[] a = {DataTypes.createDecimalType(17, 3), DataTypes.ShortType, DataTypes.DateType};
    DataType[] b = {DataTypes.createDecimalType(17, 3), DataTypes.ShortType, DataTypes.DateType};
    long before = RowReaderCodegen.compilations();
    GeneratedRowReader first = RowReaderCodegen.newReader(a);
    GeneratedRowReader second = RowReaderCodegen.newReader(b);
    assertEquals(before + 1, RowReaderCodegen.compilations());
    assertSame(first.getClass(), second.getClass());
    assertTrue(first != second, "each task gets its own reader (its own row buffer)");
  }

  @Test
  void aProjectionTooWideToJitGoesThroughTheProjection() {
    DataType[] wide = new DataType[400];
    Arrays.fill(wide, DataTypes.StringType);
    assertNull(RowReaderCodegen.newReader(wide));
    long before = TableCacheMetrics.ROW_READERS_PROJECTED.sum();
    assertTrue(
        FramesToRows.read(
                SparkCompat.toScala(new ArrayList<CachedBatch>()).iterator(),
                new int[400],
                wide,
                FramesToRows.Codegen.FALLBACK)
            instanceof ProjectedRows);
    assertEquals(before + 1, TableCacheMetrics.ROW_READERS_PROJECTED.sum());
  }

  @Test
  void codegenModes() {
    DataType[] t = {DataTypes.LongType};
    assertTrue(
        FramesToRows.read(
                SparkCompat.toScala(new ArrayList<CachedBatch>()).iterator(),
                new int[1],
                t,
                FramesToRows.Codegen.of("NO_CODEGEN"))
            instanceof ProjectedRows);
    assertTrue(
        FramesToRows.read(
                SparkCompat.toScala(new ArrayList<CachedBatch>()).iterator(),
                new int[1],
                t,
                FramesToRows.Codegen.of("codegen_only"))
            instanceof GeneratedRowReader);
    assertEquals(FramesToRows.Codegen.FALLBACK, FramesToRows.Codegen.of("FALLBACK"));
    assertEquals(FramesToRows.Codegen.FALLBACK, FramesToRows.Codegen.of(null));
  }
}
