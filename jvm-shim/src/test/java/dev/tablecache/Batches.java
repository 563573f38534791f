package dev.tablecache;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionFixedSizeListWriter;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.complex.writer.BaseWriter.StructWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Arrow Java batches covering every type the format carries, with edge values. */
public final class Batches {

  private Batches() {}

  public static final Field I8 = Field.nullable("i8", new ArrowType.Int(8, true));
  public static final Field I16 = Field.nullable("i16", new ArrowType.Int(16, true));
  public static final Field I32 = Field.nullable("i32", new ArrowType.Int(32, true));
  public static final Field I64 = Field.nullable("i64", new ArrowType.Int(64, true));
  public static final Field U32 = Field.nullable("u32", new ArrowType.Int(32, false));
  public static final Field F32 = Field.nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
  public static final Field F64 = Field.nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
  public static final Field STR = Field.nullable("str", ArrowType.Utf8.INSTANCE);
  public static final Field LSTR = Field.nullable("lstr", ArrowType.LargeUtf8.INSTANCE);
  public static final Field BIN = Field.nullable("bin", ArrowType.Binary.INSTANCE);
  public static final Field FBIN = Field.nullable("fbin", new ArrowType.FixedSizeBinary(3));
  public static final Field DEC10 = Field.nullable("dec10_2", new ArrowType.Decimal(10, 2, 128));
  public static final Field DEC38 = Field.nullable("dec38_0", new ArrowType.Decimal(38, 0, 128));
  public static final Field DATE = Field.nullable("date", new ArrowType.Date(DateUnit.DAY));
  public static final Field TS = Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
  public static final Field TSTZ = Field.nullable("ts_tz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/Los_Angeles"));
  public static final Field BOOL = Field.nullable("bool", ArrowType.Bool.INSTANCE);
  public static final Field NOTNULL = Field.notNullable("req", new ArrowType.Int(64, true));
  public static final Field ALLNULL = Field.nullable("all_null", new ArrowType.Int(32, true));
  public static final Field LIST =
      new Field("list", FieldType.nullable(ArrowType.List.INSTANCE), Collections.singletonList(Field.nullable("item", new ArrowType.Int(32, true))));
  public static final Field FSL =
      new Field("fsl", FieldType.nullable(new ArrowType.FixedSizeList(2)), Collections.singletonList(Field.nullable("item", new ArrowType.Int(32, true))));
  public static final Field STRUCT =
      new Field(
          "struct",
          FieldType.nullable(ArrowType.Struct.INSTANCE),
          Arrays.asList(Field.nullable("x", new ArrowType.Int(32, true)), Field.nullable("y", ArrowType.Utf8.INSTANCE)));
  public static final Field MAP =
      new Field(
          "map",
          FieldType.nullable(new ArrowType.Map(false)),
          Collections.singletonList(
              new Field(
                  "entries",
                  FieldType.notNullable(ArrowType.Struct.INSTANCE),
                  Arrays.asList(Field.notNullable("key", ArrowType.Utf8.INSTANCE), Field.nullable("value", new ArrowType.Int(64, true))))));

  public static final List<Field> ALL_FIELDS =
      Arrays.asList(I8, I16, I32, I64, U32, F32, F64, STR, LSTR, BIN, FBIN, DEC10, DEC38, DATE, TS, TSTZ, BOOL, NOTNULL, ALLNULL, LIST, FSL, STRUCT, MAP);

  public static final int ROWS = 9;

  static final String[] STRINGS = {"", "héllo", "日本語", "😀 emoji", null, Java8.repeat("x", 300), "\u0000nul", "z", "A"};

  /** Every supported type, {@link #ROWS} rows with nulls, extremes, NaN, -0.0, unicode. */
  public static VectorSchemaRoot allTypes(BufferAllocator a) {
    return allTypes(a, ROWS);
  }

  public static VectorSchemaRoot allTypes(BufferAllocator a, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(ALL_FIELDS), a);
    for (FieldVector v : root.getFieldVectors()) {
      v.allocateNew();
    }
    for (int row = 0; row < rows; row++) {
      final int i = row;
      boolean nul = i % 5 == 4;
      setOrNull((TinyIntVector) root.getVector("i8"), i, nul, () -> new byte[] {Byte.MIN_VALUE, Byte.MAX_VALUE, 0, -1, 0, 7, 8, 9, 10}[i % 9]);
      setOrNull((SmallIntVector) root.getVector("i16"), i, nul, () -> (short) (i % 2 == 0 ? Short.MIN_VALUE + i : Short.MAX_VALUE - i));
      setOrNull((IntVector) root.getVector("i32"), i, nul, () -> i % 3 == 0 ? Integer.MIN_VALUE : i * 1000);
      setOrNull((BigIntVector) root.getVector("i64"), i, nul, () -> i % 3 == 1 ? Long.MAX_VALUE : -i * 1_000_000_007L);
      UInt4Vector u = (UInt4Vector) root.getVector("u32");
      if (nul) {
        u.setNull(i);
      } else {
        u.setSafe(i, i == 0 ? -1 : i); // -1 is 0xFFFFFFFF unsigned
      }
      float[] fs = {Float.NaN, -0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0, 1.5f, Float.MIN_VALUE, Float.MAX_VALUE, -3.25f};
      Float4Vector f4 = (Float4Vector) root.getVector("f32");
      if (nul) {
        f4.setNull(i);
      } else {
        f4.setSafe(i, fs[i % 9]);
      }
      double[] ds = {-0.0, Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 0, 1e300, Double.MIN_VALUE, -2.5, 0.1};
      Float8Vector f8 = (Float8Vector) root.getVector("f64");
      if (nul) {
        f8.setNull(i);
      } else {
        f8.setSafe(i, ds[i % 9]);
      }
      String s = STRINGS[i % STRINGS.length];
      VarCharVector str = (VarCharVector) root.getVector("str");
      LargeVarCharVector lstr = (LargeVarCharVector) root.getVector("lstr");
      if (s == null) {
        str.setNull(i);
        lstr.setNull(i);
      } else {
        str.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
        lstr.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
      }
      VarBinaryVector bin = (VarBinaryVector) root.getVector("bin");
      if (nul) {
        bin.setNull(i);
      } else {
        byte[] b = new byte[i];
        for (int k = 0; k < i; k++) {
          b[k] = (byte) (k * 37 - 100);
        }
        bin.setSafe(i, b);
      }
      FixedSizeBinaryVector fbin = (FixedSizeBinaryVector) root.getVector("fbin");
      if (nul) {
        fbin.setNull(i);
      } else {
        fbin.setSafe(i, new byte[] {(byte) i, (byte) 0xFF, 0});
      }
      DecimalVector d10 = (DecimalVector) root.getVector("dec10_2");
      DecimalVector d38 = (DecimalVector) root.getVector("dec38_0");
      if (nul) {
        d10.setNull(i);
        d38.setNull(i);
      } else {
        d10.setSafe(i, i % 2 == 0 ? new BigDecimal("-12345678.91") : BigDecimal.valueOf(i, 2));
        BigInteger big = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);
        d38.setSafe(i, new BigDecimal(i % 2 == 0 ? big.negate() : BigInteger.valueOf(i)));
      }
      setOrNull((DateDayVector) root.getVector("date"), i, nul, () -> i % 2 == 0 ? -719162 + i : 19000 + i);
      TimeStampMicroVector ts = (TimeStampMicroVector) root.getVector("ts");
      TimeStampMicroTZVector tstz = (TimeStampMicroTZVector) root.getVector("ts_tz");
      if (nul) {
        ts.setNull(i);
        tstz.setNull(i);
      } else {
        ts.setSafe(i, i % 2 == 0 ? -62135596800000000L + i : 1_700_000_000_000_000L + i);
        tstz.setSafe(i, 1_000_000L * i - 5);
      }
      BitVector bool = (BitVector) root.getVector("bool");
      if (nul) {
        bool.setNull(i);
      } else {
        bool.setSafe(i, i % 3 == 0 ? 1 : 0);
      }
      ((BigIntVector) root.getVector("req")).setSafe(i, i);
      ((IntVector) root.getVector("all_null")).setNull(i);
    }
    writeList((ListVector) root.getVector("list"), rows);
    writeFixedSizeList((FixedSizeListVector) root.getVector("fsl"), rows);
    writeStruct((StructVector) root.getVector("struct"), rows);
    writeMap((MapVector) root.getVector("map"), rows);
    root.setRowCount(rows);
    return root;
  }

  interface ByteSupplier {
    byte get();
  }

  private static void setOrNull(TinyIntVector v, int i, boolean nul, ByteSupplier s) {
    if (nul) {
      v.setNull(i);
    } else {
      v.setSafe(i, s.get());
    }
  }

  interface ShortSupplier {
    short get();
  }

  private static void setOrNull(SmallIntVector v, int i, boolean nul, ShortSupplier s) {
    if (nul) {
      v.setNull(i);
    } else {
      v.setSafe(i, s.get());
    }
  }

  interface IntSupplier {
    int get();
  }

  private static void setOrNull(IntVector v, int i, boolean nul, IntSupplier s) {
    if (nul) {
      v.setNull(i);
    } else {
      v.setSafe(i, s.get());
    }
  }

  private static void setOrNull(DateDayVector v, int i, boolean nul, IntSupplier s) {
    if (nul) {
      v.setNull(i);
    } else {
      v.setSafe(i, s.get());
    }
  }

  interface LongSupplier {
    long get();
  }

  private static void setOrNull(BigIntVector v, int i, boolean nul, LongSupplier s) {
    if (nul) {
      v.setNull(i);
    } else {
      v.setSafe(i, s.get());
    }
  }

  private static void writeList(ListVector list, int rows) {
    UnionListWriter w = list.getWriter();
    for (int i = 0; i < rows; i++) {
      w.setPosition(i);
      if (i % 4 == 3) {
        w.writeNull();
        continue;
      }
      w.startList();
      for (int k = 0; k < i % 4; k++) {
        if (k == 1) {
          w.integer().writeNull();
        } else {
          w.integer().writeInt(i * 10 + k);
        }
      }
      w.endList();
    }
    w.setValueCount(rows);
  }

  private static void writeFixedSizeList(FixedSizeListVector list, int rows) {
    UnionFixedSizeListWriter w = list.getWriter();
    for (int i = 0; i < rows; i++) {
      w.setPosition(i);
      if (i % 3 == 2) {
        w.writeNull();
        continue;
      }
      w.startList();
      w.integer().writeInt(i);
      w.integer().writeInt(-i);
      w.endList();
    }
    w.setValueCount(rows);
  }

  private static void writeStruct(StructVector struct, int rows) {
    StructWriter w = struct.getWriter();
    for (int i = 0; i < rows; i++) {
      w.setPosition(i);
      if (i % 4 == 2) {
        w.writeNull();
        continue;
      }
      w.start();
      if (i % 3 == 0) {
        w.integer("x").writeNull();
      } else {
        w.integer("x").writeInt(i);
      }
      byte[] y = ("y" + i).getBytes(StandardCharsets.UTF_8);
      try (org.apache.arrow.memory.ArrowBuf buf = struct.getAllocator().buffer(y.length)) {
        buf.setBytes(0, y);
        w.varChar("y").writeVarChar(0, y.length, buf);
      }
      w.end();
    }
    struct.setValueCount(rows);
  }

  private static void writeMap(MapVector map, int rows) {
    UnionMapWriter w = map.getWriter();
    for (int i = 0; i < rows; i++) {
      w.setPosition(i);
      if (i % 5 == 1) {
        w.writeNull();
        continue;
      }
      w.startMap();
      for (int k = 0; k < i % 3; k++) {
        w.startEntry();
        byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
        try (org.apache.arrow.memory.ArrowBuf buf = map.getAllocator().buffer(key.length)) {
          buf.setBytes(0, key);
          w.key().varChar().writeVarChar(0, key.length, buf);
        }
        if (k == 1) {
          w.value().bigInt().writeNull();
        } else {
          w.value().bigInt().writeBigInt(i * 100L + k);
        }
        w.endEntry();
      }
      w.endMap();
    }
    w.setValueCount(rows);
  }

  /** A small batch for the concurrency and leak tests: id, a string, a double. */
  public static VectorSchemaRoot small(BufferAllocator a, int rows, int seed) {
    Schema schema = new Schema(Arrays.asList(I64, STR, F64));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, a);
    BigIntVector id = (BigIntVector) root.getVector(0);
    VarCharVector s = (VarCharVector) root.getVector(1);
    Float8Vector d = (Float8Vector) root.getVector(2);
    id.allocateNew(rows);
    s.allocateNew(rows);
    d.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      id.set(i, (long) seed * 1000 + i);
      if ((i + seed) % 7 == 0) {
        s.setNull(i);
      } else {
        s.setSafe(i, ("s" + seed + "-" + i).getBytes(StandardCharsets.UTF_8));
      }
      d.set(i, seed + i / 8.0);
    }
    root.setRowCount(rows);
    return root;
  }

  static List<String> names(VectorSchemaRoot root) {
    List<String> out = new ArrayList<>();
    root.getSchema().getFields().forEach(f -> out.add(f.getName()));
    return out;
  }
}
