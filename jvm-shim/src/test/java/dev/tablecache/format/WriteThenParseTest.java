package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Batches;
import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.Encoding;
import dev.tablecache.EncodingPolicy;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.WriteOptions;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Writes through JNI and reads the metadata back with the pure-Java parser: the loop closes. */
class WriteThenParseTest extends NativeTestBase {

  private ParsedFrame write(VectorSchemaRoot in, WriteOptions o) {
    byte[] frame = TableCache.serialize(in, o);
    ParsedFrame p = FrameParser.parse(frame).validate();
    p.verifyPayloadChecksums();
    return p;
  }

  @ParameterizedTest
  @EnumSource(
      value = CacheFormat.class,
      names = {"V4", "V3", "V2"})
  void headerDirectoryAndStatsOfAllTypes(CacheFormat f) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator)) {
      ParsedFrame p = write(in, WriteOptions.builder().preferredFormat(f).codec(Codec.NONE).build());
      assertEquals(f, p.format());
      assertEquals(Batches.ROWS, p.rowCount());
      assertTrue(p.hasStats());
      assertEquals(ParsedFrame.CHECKSUM_CRC32C, p.checksumKind());
      assertEquals(f == CacheFormat.V2 ? 1 : Batches.ALL_FIELDS.size(), p.directory().size());
      assertEquals(in.getSchema(), p.schema());
      List<ColumnStats> st = p.stats();
      long sizes = 0;
      for (int i = 0; i < st.size(); i++) {
        ColumnStats s = st.get(i);
        FieldVector v = in.getVector(i);
        String col = v.getName();
        assertEquals(Batches.ROWS, s.rowCount(), col);
        assertEquals(v.getNullCount(), s.nullCount(), col);
        assertTrue(s.sizeInBytes() > 0 || v.getNullCount() == Batches.ROWS, col);
        sizes += s.sizeInBytes();
        BoundKind expected = ParsedFrame.expectedBoundKind(v.getField());
        assertEquals(expected == null, s.unsupported(), col);
        if (expected != null && v.getNullCount() < Batches.ROWS) {
          assertEquals(expected, s.boundKind(), col);
          assertTrue(s.hasLower(), col);
        }
      }
      if (f == CacheFormat.V3) {
        for (int i = 0; i < st.size(); i++) {
          // With codec NONE the stored column body is exactly size_in_bytes.
          assertEquals(st.get(i).sizeInBytes(), p.directory().get(i).rawLen(), "column " + i);
        }
      } else if (f == CacheFormat.V4) {
        // V4 bodies state their buffers' encodings: the directory has one plain entry each.
        for (int i = 0; i < st.size(); i++) {
          DirectoryEntry e = p.directory().get(i);
          assertEquals(Encoding.PLAIN, e.encoding(), e.toString());
          assertEquals(e.storedLen(), e.rawLen(), "codec none: " + e);
          // The decoded length is the plain body's, which size_in_bytes describes; it is what
          // the read asks of Spark's memory manager.
          assertEquals(st.get(i).sizeInBytes(), e.decodedLen(), "column " + i);
        }
        int[] all = java.util.stream.IntStream.range(0, st.size()).toArray();
        assertEquals(sizes, p.checked().decodedBytes(all));
        assertFalse(p.encoded());
      } else {
        assertTrue(p.directory().get(0).rawLen() >= sizes);
      }
      ColumnStats i8 = st.get(0);
      assertEquals((long) Byte.MIN_VALUE, i8.lower());
      assertEquals((long) Byte.MAX_VALUE, i8.upper());
      ColumnStats allNull = st.get(Batches.ALL_FIELDS.indexOf(Batches.ALLNULL));
      assertFalse(allNull.unsupported());
      assertEquals(BoundKind.NONE, allNull.boundKind());
      assertFalse(allNull.hasLower() || allNull.hasUpper());
      for (Field nested : Arrays.asList(Batches.LIST, Batches.STRUCT, Batches.MAP, Batches.BIN, Batches.U32, Batches.FBIN, Batches.FSL)) {
        ColumnStats s = st.get(Batches.ALL_FIELDS.indexOf(nested));
        assertTrue(s.unsupported(), nested.getName());
        assertFalse(s.hasLower() || s.hasUpper() || s.hasNaN(), nested.getName());
      }
      ColumnStats dec = st.get(Batches.ALL_FIELDS.indexOf(Batches.DEC38));
      assertEquals(BigInteger.TEN.pow(38).subtract(BigInteger.ONE).negate(), dec.lower());
      ColumnStats d10 = st.get(Batches.ALL_FIELDS.indexOf(Batches.DEC10));
      assertEquals(BigInteger.valueOf(-1234567891L), d10.lower());
      ColumnStats bool = st.get(Batches.ALL_FIELDS.indexOf(Batches.BOOL));
      assertEquals(false, bool.lower());
      assertEquals(true, bool.upper());
    }
  }

  private VectorSchemaRoot doubles(double... values) {
    Schema s = new Schema(Collections.singletonList(Batches.F64));
    VectorSchemaRoot root = VectorSchemaRoot.create(s, allocator);
    Float8Vector v = (Float8Vector) root.getVector(0);
    v.allocateNew(values.length + 1);
    for (int i = 0; i < values.length; i++) {
      v.set(i, values[i]);
    }
    v.setNull(values.length); // one null always
    root.setRowCount(values.length + 1);
    return root;
  }

  private ColumnStats statsOf(VectorSchemaRoot root, int limit) {
    try (VectorSchemaRoot r = root) {
      return write(r, WriteOptions.builder().stringBoundLimit(limit).build()).stats().get(0);
    }
  }

  @Test
  void floatBoundsFollowSparkOrdering() {
    ColumnStats s = statsOf(doubles(1.5, Double.NaN, -2.0), 256);
    assertTrue(s.hasNaN());
    assertEquals(-2.0, s.lower());
    assertTrue(Double.isNaN((Double) s.upper()), "NaN is the largest value");
    assertEquals(1, s.nullCount());
    ColumnStats allNaN = statsOf(doubles(Double.NaN, Double.NaN), 256);
    assertTrue(Double.isNaN((Double) allNaN.lower()));
    assertTrue(Double.isNaN((Double) allNaN.upper()));
    ColumnStats zeros = statsOf(doubles(-0.0, 0.0, -0.0), 256);
    assertEquals(0L, Double.doubleToRawLongBits((Double) zeros.lower()), "zero bound is +0.0");
    assertEquals(0L, Double.doubleToRawLongBits((Double) zeros.upper()));
    assertFalse(zeros.hasNaN());
    ColumnStats inf = statsOf(doubles(Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY), 256);
    assertEquals(Double.NEGATIVE_INFINITY, inf.lower());
    assertEquals(Double.POSITIVE_INFINITY, inf.upper());
  }

  private VectorSchemaRoot strings(String... values) {
    Schema s = new Schema(Collections.singletonList(Batches.STR));
    VectorSchemaRoot root = VectorSchemaRoot.create(s, allocator);
    VarCharVector v = (VarCharVector) root.getVector(0);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    root.setRowCount(values.length);
    return root;
  }

  private static String str(Object bound) {
    return new String((byte[]) bound, StandardCharsets.UTF_8);
  }

  @Test
  void stringBoundsAreTruncatedAtCharacterBoundaries() {
    ColumnStats s = statsOf(strings("banana", null, "apple", "cherry"), 256);
    assertEquals("apple", str(s.lower()));
    assertEquals("cherry", str(s.upper()));
    ColumnStats cut = statsOf(strings("abcdef", "abcxyz"), 3);
    assertEquals("abc", str(cut.lower()));
    assertEquals("abd", str(cut.upper()), "prefix with its last character incremented");
    // 'é' is 2 bytes: a 2-byte limit inside "aé" keeps only "a".
    ColumnStats boundary = statsOf(strings("aéz", "aéz"), 2);
    assertEquals("a", str(boundary.lower()));
    assertEquals("b", str(boundary.upper()));
    ColumnStats surrogateGap = statsOf(strings("\uD7FF\uD7FFx"), 3);
    assertEquals("\uE000", str(surrogateGap.upper()), "U+D7FF increments to U+E000");
    String max = new String(Character.toChars(0x10FFFF));
    ColumnStats noUpper = statsOf(strings(max + max + "a"), 8);
    assertTrue(noUpper.hasLower());
    assertFalse(noUpper.hasUpper(), "no character can be incremented");
    ColumnStats mixed = statsOf(strings("a" + max + "zz"), 5);
    assertEquals("b", str(mixed.upper()), "U+10FFFF dropped, 'a' incremented");
    ColumnStats empty = statsOf(strings("", "a"), 256);
    assertEquals("", str(empty.lower()));
    ColumnStats allNull = statsOf(strings(null, null), 256);
    assertEquals(BoundKind.NONE, allNull.boundKind());
    assertFalse(allNull.unsupported());
  }

  @Test
  void statsOffWritesNoStatsSection() {
    try (VectorSchemaRoot in = Batches.small(allocator, 10, 1)) {
      // Plain, so that the flags byte holds exactly what this test is about.
      ParsedFrame p = write(in, WriteOptions.builder().stats(false).encoding(Encoding.PLAIN).build());
      assertEquals(CacheFormat.V3, p.format());
      assertFalse(p.hasStats());
      assertEquals(0, p.statsLength());
      assertEquals(2, p.flags(), "checksum kind CRC32C, no STATS flag");
    }
  }

  @Test
  void codecsAreRecordedInTheDirectory() {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 3000)) {
      for (Codec c : Codec.values()) {
        ParsedFrame p = write(in, WriteOptions.builder().codec(c).build());
        for (DirectoryEntry e : p.directory()) {
          switch (c) {
            case NONE:
              assertEquals(0, e.codecId());
              assertEquals(e.storedLen(), e.rawLen());
              break;
            case LZ4:
              assertEquals(1, e.codecId());
              break;
            case ZSTD:
              assertEquals(2, e.codecId());
              break;
            case ADAPTIVE: // lz4, zstd where it stores 4/5 of lz4's bytes, or raw
              if (e.codecId() == 0) {
                assertEquals(e.storedLen(), e.rawLen());
              } else {
                assertTrue(e.storedLen() * 8 <= e.rawLen() * 7, e.toString());
              }
              break;
            default: // AUTO: lz4, or raw when compression saves less than 1/8
              assertTrue(e.codecId() == 0 || e.codecId() == 1);
              if (e.codecId() == 1) {
                assertTrue(e.storedLen() * 8 <= e.rawLen() * 7, e.toString());
              }
          }
          assertEquals(0, e.rawLen() % 8, "column bodies are padded to 8");
        }
      }
    }
  }

  /** Auto, and each encoding pinned. */
  private static List<EncodingPolicy> policies() {
    List<EncodingPolicy> all = new ArrayList<>();
    all.add(EncodingPolicy.AUTO);
    for (Encoding e : Encoding.values()) {
      all.add(EncodingPolicy.pinned(e));
    }
    return all;
  }

  /** Auto (the default) writes what BYTE_STREAM_SPLIT pinned, the default before it, writes. */
  @ParameterizedTest
  @EnumSource(
      value = CacheFormat.class,
      names = {"V3", "V2"})
  void autoWritesTheBytesOfTheDefaultBeforeIt(CacheFormat f) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 3000)) {
      for (Codec c : Codec.values()) {
        WriteOptions auto = WriteOptions.builder().preferredFormat(f).codec(c).build();
        assertEquals(EncodingPolicy.AUTO, auto.encodingPolicy());
        WriteOptions split = auto.toBuilder().encoding(Encoding.BYTE_STREAM_SPLIT).build();
        assertArrayEquals(
            TableCache.serialize(in, split), TableCache.serialize(in, auto), f + " " + c);
      }
    }
  }

  /** V4 states every buffer's encoding in its body: whatever the policy, the entries are plain. */
  @Test
  void v4DirectoryEntriesArePlainWhateverThePolicy() {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 3000)) {
      for (Codec c : Codec.values()) {
        for (EncodingPolicy policy : policies()) {
          WriteOptions o =
              WriteOptions.builder()
                  .preferredFormat(CacheFormat.V4)
                  .codec(c)
                  .encodingPolicy(policy)
                  .build();
          ParsedFrame p = write(in, o);
          assertEquals(CacheFormat.V4, p.format(), o.toString());
          assertEquals(Batches.ALL_FIELDS.size(), p.directory().size());
          assertFalse(p.encoded(), o + ": ENCODED flag");
          for (DirectoryEntry e : p.directory()) {
            assertEquals(Encoding.PLAIN, e.encoding(), o + " " + e);
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = CacheFormat.class,
      names = {"V3", "V2"})
  void encodingsAreRecordedInTheDirectory(CacheFormat f) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 3000)) {
      for (Codec c : Codec.values()) {
        for (EncodingPolicy policy : policies()) {
          WriteOptions o =
              WriteOptions.builder().preferredFormat(f).codec(c).encodingPolicy(policy).build();
          ParsedFrame p = write(in, o);
          boolean splitting = policy.pinnedEncoding() != Encoding.PLAIN; // auto splits today
          boolean any = false;
          for (DirectoryEntry e : p.directory()) {
            // Only compressed payloads are encoded: splitting alone saves nothing.
            if (!splitting || e.codecId() == Codec.NONE.id()) {
              assertEquals(Encoding.PLAIN, e.encoding(), o + " " + e);
            }
            any |= e.encodingId() != Encoding.PLAIN.id();
          }
          assertEquals(any, p.encoded(), o + ": ENCODED flag");
          if (c == Codec.LZ4 || c == Codec.ZSTD) {
            // The batch has 2-, 4- and 8-byte columns, which are split whenever compressed.
            assertEquals(splitting, any, o + ": some payload encoded");
          }
        }
      }
    }
  }
}
