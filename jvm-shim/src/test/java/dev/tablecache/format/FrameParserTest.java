package dev.tablecache.format;

import static dev.tablecache.Assertions2.assertKind;
import static dev.tablecache.format.TestFrames.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.TestFrames.Payload;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** Pure-Java parser tests on hand-built frames: every rule of FORMAT.md sections 2 and 4. */
public class FrameParserTest {

  static final Field A = Field.nullable("a", new ArrowType.Int(64, true));
  static final Field S = Field.nullable("s", ArrowType.Utf8.INSTANCE);
  static final Field D = Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
  static final Field B = Field.nullable("b", ArrowType.Binary.INSTANCE);

  static byte[] statsA() {
    return statsEntry(1, 5, 48, BOTH, 2, i64(-3), i64(7));
  }

  static byte[] statsS() {
    return statsEntry(0, 5, 64, BOTH, 4, utf8("apple"), utf8("pear"));
  }

  public static TestFrames.Builder good() {
    return v3().rows(5)
        .schema(A, S)
        .stats(statsSection(statsA(), statsS()))
        .payload(Payload.raw(48))
        .payload(Payload.raw(64));
  }

  /** Offset of directory entry i of a frame (V3, V4: one per column; V2: one). */
  public static int entryAt(byte[] f, int i) {
    long ps = TestFrames.payloadStart(f);
    int e = f[4] == 3 || f[4] == 4 ? (f[12] & 0xFF) : 1;
    return (int) (ps - (f[4] == 4 ? 24L : 20L) * (e - i));
  }

  /** Offset of the stats section. */
  static int statsAt(byte[] f) {
    return 28 + (int) (java.nio.ByteBuffer.wrap(f).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(16));
  }

  @Test
  void parsesAValidV3Frame() {
    byte[] f = good().build();
    ParsedFrame p = FrameParser.parse(f);
    assertEquals(CacheFormat.V3, p.format());
    assertEquals(3, p.version());
    assertEquals(3, p.flags());
    assertTrue(p.statsPresent());
    assertEquals(ParsedFrame.CHECKSUM_CRC32C, p.checksumKind());
    assertEquals(5, p.rowCount());
    assertEquals(2, p.columnCount());
    assertEquals(TestFrames.metaCrc(f, (int) p.payloadStart()), p.metaChecksum());
    assertEquals(f.length - 112, p.payloadStart());
    assertEquals(2, p.directory().size());
    DirectoryEntry e1 = p.directory().get(1);
    assertEquals(48, e1.offset());
    assertEquals(64, e1.storedLen());
    assertEquals(64, e1.rawLen());
    assertEquals(Codec.NONE, e1.codec());
    assertEquals(TestFrames.crc(Payload.raw(64).stored), e1.checksum());
    assertTrue(p.hasStats());
    ColumnStats a = p.stats().get(0);
    assertEquals(1, a.nullCount());
    assertEquals(5, a.rowCount());
    assertEquals(48, a.sizeInBytes());
    assertEquals(BoundKind.INT, a.boundKind());
    assertEquals(-3L, a.lower());
    assertEquals(7L, a.upper());
    assertFalse(a.unsupported());
    ColumnStats s = p.stats().get(1);
    assertArrayEquals("apple".getBytes(StandardCharsets.UTF_8), (byte[]) s.lower());
    assertArrayEquals("pear".getBytes(StandardCharsets.UTF_8), (byte[]) s.upper());
    assertEquals(Arrays.asList(A, S), p.schema().getFields());
    p.validate();
    p.verifyPayloadChecksums();
  }

  @Test
  void parsesV2WithoutStatsAndWithoutChecksums() {
    byte[] f = v2().rows(3).schema(A, S).checksumKind(0).payload(Payload.raw(40)).build();
    ParsedFrame p = FrameParser.parse(f);
    assertEquals(CacheFormat.V2, p.format());
    assertFalse(p.hasStats());
    assertTrue(p.stats().isEmpty());
    assertEquals(0, p.checksumKind());
    assertEquals(0, p.metaChecksum());
    assertEquals(1, p.directory().size());
    assertEquals(0, p.directory().get(0).checksum());
    p.validate();
    p.verifyPayloadChecksums(); // nothing to verify
  }

  @Test
  void parsesAllBoundKinds() {
    Field bool = Field.nullable("bool", ArrowType.Bool.INSTANCE);
    Field dec = Field.nullable("dec", new ArrowType.Decimal(38, 0, 128));
    Field ts = Field.nullable("ts", new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC"));
    BigInteger big = BigInteger.TEN.pow(37).negate();
    byte[] f =
        v3().rows(4)
            .schema(bool, D, dec, ts, B)
            .stats(
                statsSection(
                    statsEntry(0, 4, 8, BOTH, 1, bool(false), bool(true)),
                    statsEntry(0, 4, 32, BOTH | HAS_NAN, 3, f64(-0.0 + 0.0), f64(Double.NaN)),
                    statsEntry(4, 4, 64, 0, 0),
                    statsEntry(0, 4, 32, BOTH, 2, i64(Long.MIN_VALUE), i64(Long.MAX_VALUE)),
                    statsEntry(0, 4, 24, UNSUPPORTED, 0)))
            .payload(Payload.raw(8))
            .payload(Payload.raw(32))
            .payload(Payload.raw(64))
            .payload(Payload.raw(32))
            .payload(Payload.raw(24))
            .build();
    ParsedFrame p = FrameParser.parse(f).validate();
    List<ColumnStats> st = p.stats();
    assertEquals(false, st.get(0).lower());
    assertEquals(true, st.get(0).upper());
    assertTrue(st.get(1).hasNaN());
    assertEquals(0.0, (Double) st.get(1).lower());
    assertTrue(Double.isNaN((Double) st.get(1).upper()));
    assertEquals(BoundKind.NONE, st.get(2).boundKind());
    assertNull(st.get(2).lower());
    assertFalse(st.get(2).hasLower());
    assertEquals(Long.MIN_VALUE, st.get(3).lower());
    assertTrue(st.get(4).unsupported());
    // Decimal bounds: built separately to check i128 decoding, including negatives.
    byte[] g =
        v3().rows(2)
            .schema(dec)
            .stats(statsSection(statsEntry(0, 2, 32, BOTH, 5, dec(big), dec(BigInteger.valueOf(12345)))))
            .payload(Payload.raw(32))
            .build();
    ColumnStats ds = FrameParser.parse(g).validate().stats().get(0);
    assertEquals(big, ds.lower());
    assertEquals(BigInteger.valueOf(12345), ds.upper());
  }

  @Test
  void stringColumnMayLackAnUpperBound() {
    byte[] f =
        v3().rows(1)
            .schema(S)
            .stats(statsSection(statsEntry(0, 1, 16, HAS_LOWER, 4, utf8("\uDBFF\uDFFF"))))
            .payload(Payload.raw(16))
            .build();
    ColumnStats s = FrameParser.parse(f).validate().stats().get(0);
    assertTrue(s.hasLower());
    assertFalse(s.hasUpper());
    assertNull(s.upper());
  }

  @Test
  void zeroColumnFrame() {
    byte[] f = v3().rows(7).schema().stats(statsSection()).build();
    ParsedFrame p = FrameParser.parse(f).validate();
    assertEquals(0, p.columnCount());
    assertEquals(7, p.rowCount());
    assertTrue(p.directory().isEmpty());
    assertEquals(f.length, p.payloadStart());
  }

  // ---------------------------------------------------------------- header rules

  @Test
  void everyTruncationIsCorruptFrame() {
    byte[] f = good().build();
    for (int n = 0; n < f.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(f, n);
      int len = n;
      assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(cut));
    }
  }

  @Test
  void reservedFlagBitsAreUnsupportedVersion() {
    for (int bit = 4; bit < 8; bit++) { // bit 3 is ENCODED: FrameParserEncodingTest
      byte[] f = putU8(good().build(), 5, 3 | (1 << bit));
      assertKind(Kind.UNSUPPORTED_VERSION, () -> FrameParser.parse(f));
    }
    // Checked before the length: a 6-byte frame with a bad flag is a version problem.
    byte[] shortFrame = {(byte) 0x89, 0x54, 0x43, 0x46, 3, (byte) 0x80};
    assertKind(Kind.UNSUPPORTED_VERSION, () -> FrameParser.parse(shortFrame));
  }

  @Test
  void unknownChecksumKindsAreUnsupportedVersion() {
    for (int kind = 2; kind < 4; kind++) {
      byte[] f = putU8(good().build(), 5, 1 | (kind << 1));
      assertKind(Kind.UNSUPPORTED_VERSION, () -> FrameParser.parse(f));
    }
  }

  @Test
  void unknownVersionIsUnsupportedVersion() {
    for (int v : new int[] {0, 1, 5, 255}) { // 4 is V4: FrameParserV4Test
      byte[] f = putU8(good().build(), 4, v);
      assertKind(Kind.UNSUPPORTED_VERSION, () -> FrameParser.parse(f));
    }
  }

  @Test
  void reservedHeaderBytesAreCorrupt() {
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(refreshChecksum(putU8(good().build(), 6, 1))));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(refreshChecksum(putU8(good().build(), 7, 1))));
  }

  @Test
  void statsFlagMustMatchStatsLength() {
    byte[] noStats = v3().rows(5).schema(A, S).payload(Payload.raw(48)).payload(Payload.raw(64)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(refreshChecksum(putU8(noStats, 5, 3))));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(refreshChecksum(putU8(good().build(), 5, 2))));
  }

  @Test
  void metaChecksumMismatch() {
    byte[] f = good().build();
    byte[] bad = putU32(f, 24, (TestFrames.metaCrc(f, (int) TestFrames.payloadStart(f)) + 1) & 0xFFFFFFFFL);
    assertKind(Kind.CHECKSUM_MISMATCH, () -> FrameParser.parse(bad));
    // A flipped row count, schema byte, stats byte or directory byte is caught by it.
    int ps = (int) TestFrames.payloadStart(f);
    for (int at : new int[] {8, 9, 30, 40, statsAt(f) + 5, statsAt(f) + 30, ps - 1, ps - 30}) {
      byte[] g = f.clone();
      g[at] ^= 0x10;
      assertKind(Kind.CHECKSUM_MISMATCH, () -> FrameParser.parse(g));
    }
  }

  @Test
  void checksumFieldsMustBeZeroWithoutChecksums() {
    byte[] f = v3().rows(5).schema(A, S).checksumKind(0).payload(Payload.raw(48)).payload(Payload.raw(64)).build();
    FrameParser.parse(f).validate();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(putU32(f, 24, 1)));
    int e0 = entryAt(f, 0);
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(putU32(f, e0 + 12, 5)));
  }

  @Test
  void sectionLengthsPastTheEndAreCorruptWithoutHugeAllocations() {
    byte[] f = good().build();
    for (int field : new int[] {12, 16, 20}) {
      byte[] g = refreshChecksum(putU32(f, field, 0xFFFFFFFFL));
      assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(g));
    }
  }

  @Test
  void hugeColumnCountInAV2FrameDoesNotAllocate() {
    // V2 has one directory entry whatever the column count, so only the stats bound it.
    long cols = 1_000_000_000L;
    byte[] f =
        v2().rows(1).schema(A).columns(cols)
            .stats(concat(u32(cols), statsEntry(0, 1, 8, BOTH, 2, i64(1), i64(1))))
            .payload(Payload.raw(8))
            .build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(f));
    byte[] g = v2().rows(1).schema(A).columns(0xFFFFFFFFL).payload(Payload.raw(8)).build();
    assertKind(Kind.SCHEMA_MISMATCH, () -> FrameParser.parse(g).schema());
  }

  // ---------------------------------------------------------------- directory rules

  @Test
  void directoryReservedBytesAreCorrupt() {
    byte[] f = good().build();
    for (int k = 18; k < 20; k++) { // byte 17 is the encoding: FrameParserEncodingTest
      byte[] g = refreshChecksum(putU8(f, entryAt(f, 1) + k, 1));
      assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(g));
    }
  }

  @Test
  void unknownCodecIsUnsupportedCodec() {
    byte[] f = good().build();
    for (int codec : new int[] {3, 4, 255}) {
      byte[] g = refreshChecksum(putU8(f, entryAt(f, 0) + 16, codec));
      assertKind(Kind.UNSUPPORTED_CODEC, () -> FrameParser.parse(g));
    }
  }

  @Test
  void offsetsMustBeContiguous() {
    byte[] f = good().build();
    byte[] gap = refreshChecksum(putU32(f, entryAt(f, 1), 56));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(gap));
    byte[] first = refreshChecksum(putU32(f, entryAt(f, 0), 8));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(first));
  }

  @Test
  void payloadPastTheEndIsCorrupt() {
    byte[] f = good().build();
    byte[] g = refreshChecksum(putU32(putU32(f, entryAt(f, 1) + 4, 65), entryAt(f, 1) + 8, 65));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(g));
  }

  @Test
  void trailingBytesAreCorrupt() {
    byte[] f = good().build();
    byte[] g = java.util.Arrays.copyOf(f, f.length + 1);
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(g));
    byte[] shorter = refreshChecksum(putU32(putU32(f, entryAt(f, 1) + 4, 56), entryAt(f, 1) + 8, 56));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(shorter));
  }

  @Test
  void uncompressedStoredMustEqualRaw() {
    byte[] f = good().build();
    byte[] g = refreshChecksum(putU32(f, entryAt(f, 0) + 8, 40));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(g));
  }

  @Test
  void compressionRatioBounds() {
    byte[] lz4Ok = v3().rows(5).schema(A).payload(new Payload(new byte[10], 1, 255 * 10 + 16)).build();
    FrameParser.parse(lz4Ok);
    byte[] lz4Bad = v3().rows(5).schema(A).payload(new Payload(new byte[10], 1, 255 * 10 + 17)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(lz4Bad));
    byte[] zstdOk = v3().rows(5).schema(A).payload(new Payload(new byte[10], 2, 32768 * 10 + 1024)).build();
    FrameParser.parse(zstdOk);
    byte[] zstdBad = v3().rows(5).schema(A).payload(new Payload(new byte[10], 2, 32768 * 10 + 1025)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(zstdBad));
    byte[] tooBig = v3().rows(5).schema(A).payload(new Payload(new byte[70000], 2, (1L << 31) - 64)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(tooBig));
    byte[] atLimit = v3().rows(5).schema(A).payload(new Payload(new byte[70000], 2, (1L << 31) - 65)).build();
    FrameParser.parse(atLimit);
  }

  @Test
  void payloadChecksumIsVerifiedOnDemand() {
    byte[] f = good().build();
    f[f.length - 1] ^= 1;
    ParsedFrame p = FrameParser.parse(f); // metadata is fine
    assertKind(Kind.CHECKSUM_MISMATCH, p::verifyPayloadChecksums);
  }

  // ---------------------------------------------------------------- stats rules

  static byte[] withStats(byte[]... entries) {
    return v3().rows(5).schema(A, S).stats(statsSection(entries))
        .payload(Payload.raw(48)).payload(Payload.raw(64)).build();
  }

  @Test
  void statsColumnCountMustMatch() {
    byte[] f = v3().rows(5).schema(A, S).stats(statsSection(statsA()))
        .payload(Payload.raw(48)).payload(Payload.raw(64)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(f));
  }

  @Test
  void statsEntryRules() {
    byte[][] bad = {
      statsEntry(1, 5, 48, BOTH | 0x10, 2, i64(-3), i64(7)), // reserved flag bit
      statsEntry(1, 5, 48, BOTH, 6, i64(-3), i64(7)), // unknown bound kind
      statsEntry(1, 5, 48, 0, 2), // kind without bounds
      statsEntry(1, 5, 48, BOTH, 0, i64(-3), i64(7)), // bounds without kind
      statsEntry(1, 5, 48, UNSUPPORTED | BOTH, 2, i64(-3), i64(7)), // unsupported with bounds
      statsEntry(1, 5, 48, UNSUPPORTED | HAS_NAN, 0), // unsupported with NaN
      statsEntry(1, 4, 48, BOTH, 2, i64(-3), i64(7)), // row count differs from header
      statsEntry(6, 5, 48, BOTH, 2, i64(-3), i64(7)), // more nulls than rows
      statsEntry(1, 5, 48, BOTH, 2, i64(-3)), // upper bound missing (truncated section)
      statsEntry(1, 5, 48, 0, 0), // non-null values but no bounds
      statsEntry(5, 5, 48, BOTH, 2, i64(-3), i64(7)), // all-null with bounds
      statsEntry(1, 5, 48, HAS_LOWER, 2, i64(-3)), // int column without upper bound
      statsEntry(1, 5, 48, BOTH | HAS_NAN, 2, i64(-3), i64(7)), // HAS_NAN on ints
    };
    for (int i = 0; i < bad.length; i++) {
      byte[] f = withStats(bad[i], statsS());
      int which = i;
      TableCacheException e = assertThrows(TableCacheException.class, () -> FrameParser.parse(f), "case " + i);
      assertEquals(Kind.CORRUPT_FRAME, e.kind(), "case " + which + ": " + e.getMessage());
    }
  }

  @Test
  void boundEncodingRules() {
    Field bool = Field.nullable("bool", ArrowType.Bool.INSTANCE);
    byte[] badBool = v3().rows(1).schema(bool).stats(statsSection(statsEntry(0, 1, 8, BOTH, 1, new byte[] {2}, bool(true))))
        .payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(badBool));
    byte[] longString = withStats(statsA(), statsEntry(0, 5, 64, BOTH, 4, utf8("apple"), u32(1000), new byte[4]));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(longString));
    byte[] badUtf8 = withStats(statsA(), statsEntry(0, 5, 64, BOTH, 4, utf8Raw(new byte[] {(byte) 0xC3}), utf8("z")));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(badUtf8));
    byte[] surrogate = withStats(statsA(), statsEntry(0, 5, 64, BOTH, 4, utf8Raw(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}), utf8("z")));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(surrogate));
    byte[] nanMismatch = v3().rows(2).schema(D).stats(statsSection(statsEntry(0, 2, 16, BOTH | HAS_NAN, 3, f64(1), f64(2))))
        .payload(Payload.raw(16)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(nanMismatch));
    byte[] nanWithoutFlag = v3().rows(2).schema(D).stats(statsSection(statsEntry(0, 2, 16, BOTH, 3, f64(1), f64(Double.NaN))))
        .payload(Payload.raw(16)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(nanWithoutFlag));
  }

  @Test
  void trailingBytesInTheStatsSectionAreCorrupt() {
    byte[] section = concat(statsSection(statsA(), statsS()), new byte[] {0});
    byte[] f = v3().rows(5).schema(A, S).stats(section).payload(Payload.raw(48)).payload(Payload.raw(64)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(f));
  }

  @Test
  void statsMustFitTheSchemaTypes() {
    byte[] intOnString = withStats(statsA(), statsEntry(0, 5, 64, BOTH, 2, i64(1), i64(2)));
    ParsedFrame p = FrameParser.parse(intOnString); // structurally fine
    assertKind(Kind.CORRUPT_FRAME, p::validate);
    byte[] binaryNotUnsupported = v3().rows(1).schema(B).stats(statsSection(statsEntry(1, 1, 8, 0, 0)))
        .payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(binaryNotUnsupported).validate());
    byte[] intUnsupported = v3().rows(1).schema(A).stats(statsSection(statsEntry(0, 1, 8, UNSUPPORTED, 0)))
        .payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(intUnsupported).validate());
  }

  // ---------------------------------------------------------------- schema rules

  @Test
  void schemaFieldCountMustMatch() {
    byte[] f = v3().rows(5).schema(A).columns(2).payload(Payload.raw(48)).payload(Payload.raw(64)).build();
    ParsedFrame p = FrameParser.parse(f);
    assertKind(Kind.SCHEMA_MISMATCH, p::schema);
    assertKind(Kind.SCHEMA_MISMATCH, p::validate);
  }

  @Test
  void undecodableSchemaIsCorrupt() {
    byte[] garbage = new byte[48];
    java.util.Arrays.fill(garbage, (byte) 0x5A);
    byte[] f = v3().rows(5).columns(1).schemaBytes(garbage).payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(f).schema());
    // A continuation marker and a metadata length far past the section: rejected before
    // Arrow would allocate it.
    byte[] huge = concat(u32(0xFFFFFFFFL), u32(0x7FFFFFF0L), new byte[16]);
    byte[] g = v3().rows(5).columns(1).schemaBytes(huge).payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(g).schema());
    // Flatbuffer garbage behind a plausible length.
    byte[] junk = concat(u32(0xFFFFFFFFL), u32(24), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24});
    byte[] h = v3().rows(5).columns(1).schemaBytes(junk).payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(h).schema());
  }

  @Test
  void unsupportedTypesInTheSchemaAreCorrupt() {
    Field union =
        new Field(
            "u",
            FieldType.nullable(new ArrowType.Union(UnionMode.Sparse, new int[] {0})),
            Collections.singletonList(Field.nullable("i", new ArrowType.Int(32, true))));
    byte[] f = v3().rows(1).schema(union).payload(Payload.raw(8)).build();
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(f).schema());
  }

  @Test
  void schemaBytesAreACopy() {
    byte[] f = good().build();
    ParsedFrame p = FrameParser.parse(f);
    byte[] s = p.schemaBytes();
    assertArrayEquals(schemaMessage(A, S), s);
    s[0] = 0;
    assertArrayEquals(schemaMessage(A, S), p.schemaBytes());
  }
}
