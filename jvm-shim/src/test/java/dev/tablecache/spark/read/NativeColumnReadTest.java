package dev.tablecache.spark.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Batches;
import dev.tablecache.CacheFormat;
import dev.tablecache.WriteOptions;
import dev.tablecache.format.FrameParser;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.jni.NativeColumn;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link NativeColumnVector} reads a column the same whether it comes straight from the native
 * descriptor ({@link NativeColumnVector#of}, no Arrow Java vector) or through the Arrow Java
 * import ({@link NativeColumnVector#wrap}), for every flat type, with nulls, extremes and
 * empty batches; a column whose Arrow type is not the Spark type's, or a nested one, is refused
 * with a clear error and no native handle left behind.
 */
class NativeColumnReadTest extends NativeTestBase {

  /** Flat columns of {@link Batches#ALL_FIELDS} and the Spark type each is read as. */
  private static final int[] COLUMNS = {0, 1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18};

  private static final DataType[] TYPES = {
    DataTypes.ByteType,
    DataTypes.ShortType,
    DataTypes.IntegerType,
    DataTypes.LongType,
    DataTypes.FloatType,
    DataTypes.DoubleType,
    DataTypes.StringType,
    DataTypes.StringType,
    DataTypes.BinaryType,
    DataTypes.createDecimalType(10, 2),
    DataTypes.createDecimalType(38, 0),
    DataTypes.DateType,
    DataTypes.TimestampNTZType,
    DataTypes.TimestampType,
    DataTypes.BooleanType,
    DataTypes.LongType,
    DataTypes.IntegerType,
  };

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 9, 130})
  void readsByAddressAsThroughArrowJava(int rows) {
    byte[] frame;
    try (VectorSchemaRoot root = Batches.allTypes(allocator, rows)) {
      frame = TableCache.serialize(root, null);
    }
    NativeColumn[] columns = TableCache.deserializeColumns(frame, COLUMNS);
    try (VectorSchemaRoot viaArrow = TableCache.deserialize(frame, COLUMNS, allocator)) {
      for (int c = 0; c < COLUMNS.length; c++) {
        NativeColumnVector direct = NativeColumnVector.of(columns[c], TYPES[c]);
        NativeColumnVector wrapped = NativeColumnVector.wrap(viaArrow.getVector(c), TYPES[c]);
        assertEquals(rows, columns[c].length);
        assertEquals(wrapped.numNulls(), direct.numNulls(), columns[c].field + " nulls");
        for (int r = 0; r < rows; r++) {
          String what = columns[c].field + " row " + r;
          assertEquals(wrapped.isNullAt(r), direct.isNullAt(r), what);
          if (!wrapped.isNullAt(r)) {
            assertSameValue(wrapped, direct, TYPES[c], r, what);
          }
        }
      }
    } finally {
      for (NativeColumn c : columns) {
        c.release();
      }
    }
  }

  private static void assertSameValue(
      NativeColumnVector expected, NativeColumnVector actual, DataType t, int r, String what) {
    if (t == DataTypes.ByteType) {
      assertEquals(expected.getByte(r), actual.getByte(r), what);
    } else if (t == DataTypes.ShortType) {
      assertEquals(expected.getShort(r), actual.getShort(r), what);
    } else if (t == DataTypes.IntegerType || t == DataTypes.DateType) {
      assertEquals(expected.getInt(r), actual.getInt(r), what);
    } else if (t == DataTypes.LongType || t == DataTypes.TimestampType || t == DataTypes.TimestampNTZType) {
      assertEquals(expected.getLong(r), actual.getLong(r), what);
    } else if (t == DataTypes.FloatType) {
      assertEquals(Float.floatToRawIntBits(expected.getFloat(r)), Float.floatToRawIntBits(actual.getFloat(r)), what);
    } else if (t == DataTypes.DoubleType) {
      assertEquals(
          Double.doubleToRawLongBits(expected.getDouble(r)), Double.doubleToRawLongBits(actual.getDouble(r)), what);
    } else if (t == DataTypes.StringType) {
      assertEquals(expected.getUTF8String(r), actual.getUTF8String(r), what);
    } else if (t == DataTypes.BinaryType) {
      assertArrayEquals(expected.getBinary(r), actual.getBinary(r), what);
    } else if (t instanceof DecimalType) {
      DecimalType d = (DecimalType) t;
      assertEquals(
          expected.getDecimal(r, d.precision(), d.scale()), actual.getDecimal(r, d.precision(), d.scale()), what);
    } else if (t == DataTypes.BooleanType) {
      assertEquals(expected.getBoolean(r), actual.getBoolean(r), what);
    } else {
      throw new AssertionError("no check for " + t);
    }
  }

  @Test
  void refusesAColumnOfAnotherTypeOrShape() {
    byte[] frame;
    try (VectorSchemaRoot root = Batches.allTypes(allocator)) {
      frame = TableCache.serialize(root, null);
    }
    NativeColumn[] longs = TableCache.deserializeColumns(frame, new int[] {3});
    try {
      TableCacheException e =
          assertThrows(TableCacheException.class, () -> NativeColumnVector.of(longs[0], DataTypes.StringType));
      assertEquals(TableCacheException.Kind.SCHEMA_MISMATCH, e.kind());
      assertTrue(e.getMessage().contains("string"), e.getMessage());
    } finally {
      longs[0].release();
    }
    int list = Batches.ALL_FIELDS.indexOf(Batches.LIST);
    TableCacheException e =
        assertThrows(TableCacheException.class, () -> TableCache.deserializeColumns(frame, new int[] {3, list}));
    assertEquals(TableCacheException.Kind.UNSUPPORTED_TYPE, e.kind());
    assertTrue(e.getMessage().contains("not flat"), e.getMessage());
    // NativeTestBase checks that no column handle is left.
  }

  /**
   * Strings of few distinct values (stored as a string dictionary) come back as keys over their
   * entries, never materialised, and read the same as the plain decode through Arrow Java: nulls,
   * the empty string, unicode, binary that is not UTF-8.
   */
  @ParameterizedTest
  @ValueSource(ints = {200, 2000})
  void readsAStringDictionaryByKeyAsThroughArrowJava(int rows) {
    String[] words = {"GET /index.html", "", "ünïcödé ✓", "POST /api/v1/items?id=7"};
    byte[] frame;
    Schema schema =
        new Schema(
            Arrays.asList(
                Field.nullable("s", ArrowType.Utf8.INSTANCE),
                Field.nullable("b", ArrowType.Binary.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector s = (VarCharVector) root.getVector(0);
      VarBinaryVector b = (VarBinaryVector) root.getVector(1);
      root.allocateNew();
      for (int r = 0; r < rows; r++) {
        if (r % 5 != 2) {
          s.setSafe(r, words[(r * 7) % words.length].getBytes(StandardCharsets.UTF_8));
        }
        b.setSafe(r, new byte[] {(byte) 0xff, 0, (byte) (r % 3)});
      }
      root.setRowCount(rows);
      frame = TableCache.serialize(root, WriteOptions.builder().preferredFormat(CacheFormat.V4).build());
    }
    int[] projection = {1, 0};
    DataType[] types = {DataTypes.BinaryType, DataTypes.StringType};
    NativeColumn[] columns = TableCache.deserializeColumns(frame, projection);
    try (VectorSchemaRoot viaArrow = TableCache.deserialize(frame, projection, allocator)) {
      for (int c = 0; c < projection.length; c++) {
        assertTrue(columns[c].dictionary, columns[c].field + " comes back as a dictionary");
        NativeColumnVector keyed = NativeColumnVector.of(columns[c], types[c]);
        NativeColumnVector plain = NativeColumnVector.wrap(viaArrow.getVector(c), types[c]);
        assertEquals(plain.numNulls(), keyed.numNulls());
        assertEquals(-1, plain.dictionaryEntries(), "a plain column has no entries");
        int entries = keyed.dictionaryEntries();
        assertTrue(entries >= 1 && entries <= words.length, entries + " entries");
        for (int r = 0; r < rows; r++) {
          String what = columns[c].field + " row " + r;
          assertEquals(plain.isNullAt(r), keyed.isNullAt(r), what);
          if (!plain.isNullAt(r)) {
            assertSameValue(plain, keyed, types[c], r, what);
            int key = keyed.keyAt(r);
            assertTrue(key >= 0 && key < entries, what + ": key " + key);
            assertArrayEquals(keyed.getBinary(r), keyed.entry(key).getBytes(), what + ": its entry");
          }
        }
      }
    } finally {
      NativeColumn.releaseAll(columns);
    }
    // Asked for plain columns, the same frame gives each in its type's Arrow layout.
    NativeColumn[] plain =
        TableCache.deserializeColumnsChecked(FrameParser.check(frame), projection, false);
    try {
      for (int c = 0; c < projection.length; c++) {
        assertFalse(plain[c].dictionary, plain[c].field + " materialised");
        NativeColumnVector v = NativeColumnVector.of(plain[c], types[c]);
        for (int r = 0; r < rows; r++) {
          byte[] expected =
              c == 0
                  ? new byte[] {(byte) 0xff, 0, (byte) (r % 3)}
                  : r % 5 == 2 ? null : words[(r * 7) % words.length].getBytes(StandardCharsets.UTF_8);
          assertArrayEquals(expected, v.getBinary(r), plain[c].field + " row " + r);
        }
      }
    } finally {
      NativeColumn.releaseAll(plain);
    }
  }

  /**
   * A deferred string column decodes on its first read, once, and then reads as the eager one; a
   * decode that fails leaves it pending and fails again on the next read; only string and binary
   * columns are deferred.
   */
  @Test
  void aDeferredColumnDecodesOnItsFirstReadOnly() {
    byte[] frame;
    try (VectorSchemaRoot root = Batches.allTypes(allocator)) {
      frame = TableCache.serialize(root, null);
    }
    NativeColumn[] columns = TableCache.deserializeColumns(frame, new int[] {7});
    try {
      NativeColumnVector eager = NativeColumnVector.of(columns[0], DataTypes.StringType);
      int[] decodes = {0};
      NativeColumnVector deferred =
          NativeColumnVector.deferred(
              DataTypes.StringType,
              () -> {
                decodes[0]++;
                return NativeColumnVector.of(columns[0], DataTypes.StringType);
              });
      assertTrue(deferred.isPending());
      assertEquals(0, decodes[0], "nothing decoded before the first read");
      for (int row = 0; row < columns[0].length; row++) {
        assertEquals(eager.isNullAt(row), deferred.isNullAt(row), "row " + row);
        assertEquals(eager.getUTF8String(row), deferred.getUTF8String(row), "row " + row);
      }
      assertEquals(eager.numNulls(), deferred.numNulls());
      assertFalse(deferred.isPending());
      assertEquals(1, decodes[0], "decoded once");

      int[] attempts = {0};
      NativeColumnVector failing =
          NativeColumnVector.deferred(
              DataTypes.BinaryType,
              () -> {
                attempts[0]++;
                throw new TableCacheException(TableCacheException.Kind.CORRUPT_FRAME, "damaged");
              });
      assertThrows(TableCacheException.class, () -> failing.getBinary(0));
      assertTrue(failing.isPending());
      assertThrows(TableCacheException.class, failing::hasNull);
      assertEquals(2, attempts[0]);
      assertThrows(
          IllegalArgumentException.class,
          () -> NativeColumnVector.deferred(DataTypes.LongType, () -> eager));
    } finally {
      columns[0].release();
    }
  }

  @Test
  void releasingTwiceFreesOnce() {
    byte[] frame;
    try (VectorSchemaRoot root = Batches.allTypes(allocator)) {
      frame = TableCache.serialize(root, null);
    }
    NativeColumn[] columns = TableCache.deserializeColumns(frame, new int[] {7});
    assertNull(NativeColumnVector.of(columns[0], DataTypes.StringType).getValueVector());
    columns[0].release();
    columns[0].release(); // NativeTestBase checks the handle count: freed once, not twice
  }
}
