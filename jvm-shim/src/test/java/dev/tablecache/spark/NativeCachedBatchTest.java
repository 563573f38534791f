package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.WriteOptions;
import dev.tablecache.format.MetadataReadsAccess;
import dev.tablecache.spark.read.FrameDecoder;
import dev.tablecache.spark.stats.StatsRows;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import scala.reflect.ClassTag$;

/** The cached batch class without a Spark session: stats row, Java and Kryo encodings. */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NativeCachedBatchTest {

  static {
    TestLogging.quiet();
  }

  private static final int ROWS = 4;
  private BufferAllocator allocator;
  private byte[] frame;

  @BeforeAll
  void writeFrame() {
    allocator = new RootAllocator();
    IntVector i = new IntVector("i", allocator);
    SmallIntVector sh = new SmallIntVector("sh", allocator);
    Float8Vector d = new Float8Vector("d", allocator);
    VarCharVector s = new VarCharVector("s", allocator);
    DecimalVector dec = new DecimalVector("dec", allocator, 10, 2);
    DateDayVector dt = new DateDayVector("dt", allocator);
    TimeStampMicroTZVector ts = new TimeStampMicroTZVector("ts", allocator, "UTC");
    BitVector b = new BitVector("b", allocator);
    IntVector allNull = new IntVector("allnull", allocator);
    VarBinaryVector bin = new VarBinaryVector("bin", allocator);
    NullVector nul = new NullVector("nul");
    List<FieldVector> vectors = Arrays.asList(i, sh, d, s, dec, dt, ts, b, allNull, bin, nul);
    for (FieldVector v : vectors) {
      v.allocateNew();
    }
    int[] ints = {5, -3, 7, 0};
    double[] doubles = {1.5, Double.NaN, -0.0, -2.25};
    String[] strings = {"b", "", "ünï", "a"};
    for (int r = 0; r < ROWS; r++) {
      i.setSafe(r, ints[r]);
      sh.setSafe(r, (short) (r * 1000 - 1500));
      d.setSafe(r, doubles[r]);
      s.setSafe(r, strings[r].getBytes(StandardCharsets.UTF_8));
      dec.setSafe(r, new BigDecimal("12.34").multiply(BigDecimal.valueOf(r - 1)).setScale(2));
      dt.setSafe(r, -25000 + r);
      ts.setSafe(r, -1_000_000L * r);
      b.setSafe(r, r % 2);
      allNull.setNull(r);
      if (r == 2) {
        bin.setNull(r);
      } else {
        bin.setSafe(r, new byte[] {(byte) r});
      }
    }
    nul.setValueCount(ROWS);
    VectorSchemaRoot root = new VectorSchemaRoot(vectors);
    root.setRowCount(ROWS);
    frame = TableCache.serialize(root, WriteOptions.builder().codec(Codec.LZ4).build());
    root.close();
  }

  @AfterAll
  void close() {
    allocator.close();
  }

  private static int col(int column, int field) {
    return StatsRows.FIELDS_PER_COLUMN * column + field;
  }

  @Test
  void statsRowHoldsCatalystValues() {
    NativeCachedBatch batch = new NativeCachedBatch(ROWS, frame);
    assertEquals(CacheFormat.V3, batch.format());
    assertTrue(batch.hasStats());
    assertEquals(frame.length, batch.sizeInBytes());
    InternalRow st = batch.stats();
    assertEquals(11 * StatsRows.FIELDS_PER_COLUMN, st.numFields());
    // int
    assertEquals(-3, st.getInt(col(0, 0)));
    assertEquals(7, st.getInt(col(0, 1)));
    assertEquals(0, st.getInt(col(0, 2)));
    assertEquals(ROWS, st.getInt(col(0, 3)));
    // smallint
    assertEquals((short) -1500, st.getShort(col(1, 0)));
    assertEquals((short) 1500, st.getShort(col(1, 1)));
    // double: NaN is the upper bound, the zero bound is +0.0
    assertEquals(-2.25, st.getDouble(col(2, 0)));
    assertTrue(Double.isNaN(st.getDouble(col(2, 1))));
    // string: byte order
    assertEquals(UTF8String.fromString(""), st.getUTF8String(col(3, 0)));
    assertEquals(UTF8String.fromString("ünï"), st.getUTF8String(col(3, 1)));
    // decimal(10,2)
    assertEquals(Decimal.apply(new BigDecimal("-12.34")), st.getDecimal(col(4, 0), 10, 2));
    assertEquals(Decimal.apply(new BigDecimal("24.68")), st.getDecimal(col(4, 1), 10, 2));
    // date (Int days) and timestamp (Long micros)
    assertEquals(-25000, st.getInt(col(5, 0)));
    assertEquals(-24997, st.getInt(col(5, 1)));
    assertEquals(-3_000_000L, st.getLong(col(6, 0)));
    assertEquals(0L, st.getLong(col(6, 1)));
    // boolean
    assertFalse(st.getBoolean(col(7, 0)));
    assertTrue(st.getBoolean(col(7, 1)));
    // all null: no bounds, null count = rows
    assertTrue(st.isNullAt(col(8, 0)) && st.isNullAt(col(8, 1)));
    assertEquals(ROWS, st.getInt(col(8, 2)));
    // binary: no bounds, but real null counts (IS NULL prunes on them)
    assertTrue(st.isNullAt(col(9, 0)) && st.isNullAt(col(9, 1)));
    assertEquals(1, st.getInt(col(9, 2)));
    assertEquals(ROWS, st.getInt(col(9, 3)));
    // null type: every value is null
    assertEquals(ROWS, st.getInt(col(10, 3)));
    assertEquals(ROWS, st.getInt(col(10, 2)), "null count of a Null-typed column");
    assertTrue(st.getLong(col(0, 4)) > 0, "column size");
  }

  /**
   * The frame's metadata is parsed once per batch however it is read: decodes through both
   * import paths (by address, and Arrow Java for the Null column), the stats, again and again.
   * A decode alone does not parse the stats entries.
   */
  @Test
  void oneParseServesEveryDecodeAndTheStats() {
    NativeCachedBatch batch = new NativeCachedBatch(ROWS, frame);
    long frames = MetadataReadsAccess.frames();
    long stats = MetadataReadsAccess.stats();
    long schemas = MetadataReadsAccess.schemas();
    FrameDecoder byAddress =
        new FrameDecoder(
            new int[] {0, 3}, new DataType[] {DataTypes.IntegerType, DataTypes.StringType});
    FrameDecoder arrowJava =
        new FrameDecoder(
            new int[] {10, 0}, new DataType[] {DataTypes.NullType, DataTypes.IntegerType});
    try {
      assertEquals(5, byAddress.decode(batch).column(0).getInt(0));
      assertEquals(ROWS, arrowJava.decode(batch).numRows());
      assertEquals(0, MetadataReadsAccess.stats() - stats, "stats parsed by the decodes");
      for (int round = 0; round < 3; round++) {
        assertTrue(batch.hasStats());
        assertEquals(7, batch.stats().getInt(col(0, 1)));
        assertEquals(5, byAddress.decode(batch).column(0).getInt(0));
        assertEquals(ROWS, arrowJava.decode(batch).numRows());
      }
    } finally {
      byAddress.close();
      arrowJava.close();
    }
    assertEquals(1, MetadataReadsAccess.frames() - frames, "frames parsed");
    assertEquals(1, MetadataReadsAccess.stats() - stats, "stats sections parsed");
    assertEquals(1, MetadataReadsAccess.schemas() - schemas, "schemas looked up");
  }

  /** Tasks that read one cached block at once wait for one parse rather than each parsing. */
  @Test
  void concurrentFirstReadersShareOneParse() throws Exception {
    int threads = 8;
    for (int attempt = 0; attempt < 20; attempt++) {
      NativeCachedBatch batch = new NativeCachedBatch(ROWS, frame);
      long frames = MetadataReadsAccess.frames();
      long stats = MetadataReadsAccess.stats();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<Object>> reads = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          boolean statsRow = t % 2 == 0;
          reads.add(
              pool.submit(
                  () -> {
                    start.await();
                    return statsRow ? batch.stats() : batch.checkedFrame();
                  }));
        }
        start.countDown();
        for (Future<Object> r : reads) {
          r.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(1, MetadataReadsAccess.frames() - frames, "frames parsed, attempt " + attempt);
      assertEquals(1, MetadataReadsAccess.stats() - stats, "stats parsed, attempt " + attempt);
    }
  }

  @Test
  void javaSerializationWritesOnlyTheBytes() throws Exception {
    NativeCachedBatch batch = new NativeCachedBatch(ROWS, frame);
    batch.stats(); // parsed stats are transient
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(batch);
    }
    assertTrue(
        bytes.size() < frame.length + 120,
        "java encoding " + bytes.size() + " bytes for a frame of " + frame.length);
    NativeCachedBatch back;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (NativeCachedBatch) in.readObject();
    }
    assertEquals(ROWS, back.numRows());
    assertArrayEquals(frame, back.frame());
    assertEquals(batch.stats().getInt(col(0, 1)), back.stats().getInt(col(0, 1)));
  }

  @Test
  void kryoWritesOnlyTheBytesAndNeedsOneRegistration() {
    SparkConf conf =
        new SparkConf()
            .set("spark.kryo.registrationRequired", "true")
            .set("spark.kryo.registrator", TableCacheKryoRegistrator.class.getName());
    SerializerInstance kryo = new KryoSerializer(conf).newInstance();
    NativeCachedBatch batch = new NativeCachedBatch(ROWS, frame);
    ByteBuffer buf = kryo.serialize(batch, ClassTag$.MODULE$.apply(NativeCachedBatch.class));
    assertTrue(
        buf.remaining() < frame.length + 16,
        "kryo encoding " + buf.remaining() + " bytes for a frame of " + frame.length);
    NativeCachedBatch back =
        kryo.deserialize(buf, ClassTag$.MODULE$.apply(NativeCachedBatch.class));
    assertEquals(ROWS, back.numRows());
    assertArrayEquals(frame, back.frame());
  }

  /** The Java-serialized batch with its stored row count and frame length replaced. */
  private byte[] javaStored(int rows, int len) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new NativeCachedBatch(ROWS, frame));
    }
    byte[] b = bytes.toByteArray();
    int magic = indexOf(b, new byte[] {(byte) 0x89, 'T', 'C', 'F'});
    ByteBuffer.wrap(b, magic - 8, 8).putInt(rows).putInt(len);
    return b;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }

  private static TableCacheException readJavaFails(byte[] stored) {
    return assertThrows(
        TableCacheException.class,
        () -> {
          try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(stored))) {
            in.readObject();
          }
        });
  }

  @Test
  void javaStoredFieldsAreCheckedAgainstTheStreamAndTheFrame() throws Exception {
    for (int rows : new int[] {ROWS - 1, ROWS + 1, 0, -1}) {
      TableCacheException e = readJavaFails(javaStored(rows, frame.length));
      assertEquals(TableCacheException.Kind.CORRUPT_FRAME, e.kind(), e.getMessage());
    }
    TableCacheException e = readJavaFails(javaStored(ROWS + 1, frame.length));
    assertTrue(e.getMessage().contains("says " + (ROWS + 1) + " rows but its frame's header says "
        + ROWS), e.getMessage());
    // A length near 2 GiB on a stream of a few hundred bytes: refused when the bytes end, with
    // at most one read chunk allocated, not 2 GiB.
    e = readJavaFails(javaStored(ROWS, Integer.MAX_VALUE - 100));
    assertEquals(TableCacheException.Kind.CORRUPT_FRAME, e.kind());
    assertTrue(e.getMessage().contains("above spark.tablecache.maxFrameBytes")
        || e.getMessage().contains("stored block ends after"), e.getMessage());
    e = readJavaFails(javaStored(ROWS, StoredFormLimits.ONE_GIB));
    assertTrue(e.getMessage().contains("stored block ends after " + frame.length), e.getMessage());
    // A shorter length cuts the frame: its own header no longer fits or its parse fails later.
    NativeCachedBatch shorter;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(javaStored(ROWS, frame.length - 100)))) {
      shorter = (NativeCachedBatch) in.readObject();
    } catch (TableCacheException refused) {
      shorter = null;
    }
    if (shorter != null) {
      NativeCachedBatch cut = shorter;
      TableCacheException parse = assertThrows(TableCacheException.class, cut::stats);
      assertEquals(TableCacheException.Kind.CORRUPT_FRAME, parse.kind(), parse.getMessage());
    }
  }

  @Test
  void kryoStoredFieldsAreCheckedAgainstTheStreamAndTheFrame() {
    SparkConf conf =
        new SparkConf()
            .set("spark.kryo.registrationRequired", "true")
            .set("spark.kryo.registrator", TableCacheKryoRegistrator.class.getName());
    SerializerInstance kryo = new KryoSerializer(conf).newInstance();
    ByteBuffer buf =
        kryo.serialize(new NativeCachedBatch(ROWS, frame), ClassTag$.MODULE$.apply(NativeCachedBatch.class));
    byte[] clean = new byte[buf.remaining()];
    buf.get(clean);
    int magic = indexOf(clean, new byte[] {(byte) 0x89, 'T', 'C', 'F'});
    // numRows then the length, right before the frame. Spark's Kryo output writes both as 4
    // bytes (little-endian, no varint: its unsafe-free Output of Kryo 4 without varints here);
    // a varint length is 2 bytes for this frame. Both are tried, by value.
    ByteOrder order = ByteOrder.LITTLE_ENDIAN;
    int lengthBytes = 4;
    if (ByteBuffer.wrap(clean, magic - 4, 4).order(order).getInt() != frame.length) {
      order = ByteOrder.BIG_ENDIAN;
      lengthBytes = 2;
    }
    int rowsAt = magic - lengthBytes - 4;
    assertEquals(ROWS, ByteBuffer.wrap(clean, rowsAt, 4).order(order).getInt(), "numRows found");
    byte[] up = clean.clone();
    ByteBuffer.wrap(up, rowsAt, 4).order(order).putInt(ROWS + 1);
    TableCacheException e =
        assertThrows(
            TableCacheException.class,
            () -> kryo.deserialize(ByteBuffer.wrap(up), ClassTag$.MODULE$.apply(NativeCachedBatch.class)));
    assertEquals(TableCacheException.Kind.CORRUPT_FRAME, e.kind(), e.getMessage());
    // A length near 2 GiB: the stream ends first.
    byte[] huge = clean.clone();
    if (lengthBytes == 4) {
      ByteBuffer.wrap(huge, magic - 4, 4).order(order).putInt(Integer.MAX_VALUE - 100);
    } else {
      huge = new byte[clean.length + 3];
      System.arraycopy(clean, 0, huge, 0, magic - 2);
      byte[] big = {(byte) 0x9B, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07};
      System.arraycopy(big, 0, huge, magic - 2, 5);
      System.arraycopy(clean, magic, huge, magic + 3, clean.length - magic);
    }
    byte[] hugeStored = huge;
    e =
        assertThrows(
            TableCacheException.class,
            () ->
                kryo.deserialize(
                    ByteBuffer.wrap(hugeStored), ClassTag$.MODULE$.apply(NativeCachedBatch.class)));
    assertEquals(TableCacheException.Kind.CORRUPT_FRAME, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("stored block ends after"), e.getMessage());
  }

  /** Sizes the stored-form tests use. */
  private static final class StoredFormLimits {
    static final int ONE_GIB = 1 << 30;
  }

  @Test
  void framesWithoutStatsAreNeverPruned() {
    byte[] legacy;
    try (IntVector v = new IntVector("x", allocator)) {
      v.allocateNew(2);
      v.setSafe(0, 1);
      v.setSafe(1, 2);
      v.setValueCount(2);
      VectorSchemaRoot root = new VectorSchemaRoot(Collections.<FieldVector>singletonList(v));
      root.setRowCount(2);
      legacy =
          TableCache.serialize(
              root, WriteOptions.builder().preferredFormat(CacheFormat.LEGACY).build());
    }
    NativeCachedBatch b = new NativeCachedBatch(2, legacy);
    assertEquals(CacheFormat.LEGACY, b.format());
    assertFalse(b.hasStats());
    assertNull(b.stats().numFields() > 0 ? b.stats().get(0, null) : null);
  }
}
