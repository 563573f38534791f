package dev.tablecache.format;

import static dev.tablecache.Assertions2.assertKind;
import static dev.tablecache.format.FrameParserTest.A;
import static dev.tablecache.format.FrameParserTest.S;
import static dev.tablecache.format.FrameParserTest.entryAt;
import static dev.tablecache.format.FrameParserTest.statsA;
import static dev.tablecache.format.FrameParserTest.statsS;
import static dev.tablecache.format.TestFrames.putU8;
import static dev.tablecache.format.TestFrames.refreshChecksum;
import static dev.tablecache.format.TestFrames.statsSection;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.CacheFormat;
import dev.tablecache.Encoding;
import dev.tablecache.GoldenParityTest;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.TestFrames.Payload;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * V4 through the pure-Java parser: header and stats read exactly as V3's, the directory too but for
 * each entry's decoded length, the column bodies (which state their own encodings) never read; a
 * directory entry's encoding must be 0,
 * checked where the native parser checks it (after the reserved bytes, the codec and whether the
 * encoding is known; before the ENCODED flag and the offsets).
 */
class FrameParserV4Test {

  static final int ENCODED = FrameParser.FLAG_ENCODED;
  static final String V4_ENCODING = "in a V4 frame (V4 bodies state their own encodings)";

  /** A golden V4 frame written by the Rust writer: two of its entries are lz4, one raw. */
  static byte[] golden() throws IOException {
    return Files.readAllBytes(GoldenParityTest.goldenDir().resolve("v4_stats_lz4_encodings.bin"));
  }

  /** Sets byte {@code k} of directory entry {@code i} and reseals the meta checksum. */
  static byte[] entryByte(byte[] f, int i, int k, int v) {
    return refreshChecksum(putU8(f, entryAt(f, i) + k, v));
  }

  static TableCacheException assertKindAndMessage(Kind kind, String message, byte[] f) {
    TableCacheException e = assertKind(kind, () -> FrameParser.parse(f).validate());
    assertTrue(e.getMessage().contains(message), e.getMessage());
    return e;
  }

  @Test
  void aHandBuiltV4FrameParsesLikeV3Metadata() {
    // The payloads are not V4 bodies: the Java parser never reads a body.
    byte[] f =
        TestFrames.v4()
            .rows(5)
            .schema(A, S)
            .stats(statsSection(statsA(), statsS()))
            .payload(Payload.raw(48))
            .payload(Payload.raw(64))
            .build();
    ParsedFrame p = FrameParser.parse(f).validate();
    p.verifyPayloadChecksums();
    assertEquals(CacheFormat.V4, p.format());
    assertEquals(4, p.version());
    assertEquals(3, p.flags());
    assertFalse(p.encoded());
    assertEquals(2, p.directory().size(), "one entry per column, as V3");
    assertEquals(48, p.directory().get(1).offset());
    assertEquals(-3L, p.stats().get(0).lower());
    // V3's metadata, with 4 bytes more per entry (the decoded length).
    assertEquals(
        FrameParser.parse(FrameParserTest.good().build()).payloadStart() + 2 * 4, p.payloadStart());
    assertEquals(64, p.directory().get(1).decodedLen());
  }

  @Test
  void goldenV4FramesParse() throws IOException {
    byte[] f = golden();
    ParsedFrame p = FrameParser.parse(f).validate();
    p.verifyPayloadChecksums();
    assertEquals(CacheFormat.V4, p.format());
    assertEquals(p.columnCount(), p.directory().size());
    assertTrue(p.directory().stream().allMatch(e -> e.encoding() == Encoding.PLAIN));
    assertFalse(p.encoded(), "V4 never sets the ENCODED flag");
  }

  @Test
  void aV4EntryWithAKnownEncodingIsCorrupt() throws IOException {
    byte[] f = golden();
    for (int entry : new int[] {0, 1}) { // an lz4 entry and a raw one
      byte[] bad = entryByte(f, entry, 17, Encoding.BYTE_STREAM_SPLIT.id());
      assertKindAndMessage(
          Kind.CORRUPT_FRAME, "entry " + entry + " has encoding 1 " + V4_ENCODING, bad);
      // Before the ENCODED flag: with the flag set too, the V4 rule still speaks first.
      byte[] flagged = refreshChecksum(putU8(bad, 5, bad[5] | ENCODED));
      assertKindAndMessage(Kind.CORRUPT_FRAME, V4_ENCODING, flagged);
    }
  }

  @Test
  void theV4RuleComesAfterReservedBytesCodecAndUnknownEncodings() throws IOException {
    byte[] f = golden();
    byte[] split = entryByte(f, 1, 17, 1);
    assertKindAndMessage(Kind.CORRUPT_FRAME, "reserved bytes", entryByte(split, 1, 18, 1));
    assertKind(Kind.UNSUPPORTED_CODEC, () -> FrameParser.parse(entryByte(split, 1, 16, 7)));
    for (int unknown : new int[] {2, 255}) {
      assertKindAndMessage(Kind.UNSUPPORTED_CODEC, "UnsupportedEncoding", entryByte(f, 1, 17, unknown));
    }
    // And before the offsets: a bad offset behind an encoded entry is reported as the encoding.
    byte[] offset = refreshChecksum(TestFrames.putU32(split, entryAt(split, 1), 999));
    assertKindAndMessage(Kind.CORRUPT_FRAME, V4_ENCODING, offset);
  }

  @Test
  void theEncodedFlagAloneIsCorruptInV4() throws IOException {
    byte[] f = golden();
    byte[] flagged = refreshChecksum(putU8(f, 5, f[5] | ENCODED));
    assertKindAndMessage(Kind.CORRUPT_FRAME, "the ENCODED flag is set but no payload is encoded", flagged);
  }

  @Test
  void versionFiveIsUnsupported() throws IOException {
    for (byte[] f : new byte[][] {golden(), FrameParserTest.good().build()}) {
      byte[] v5 = refreshChecksum(putU8(f, 4, 5));
      assertKind(Kind.UNSUPPORTED_VERSION, () -> FrameParser.parse(v5));
      assertKind(Kind.UNSUPPORTED_VERSION, () -> CacheFormat.detect(v5));
    }
  }

  @Test
  void relabellingBetweenV3AndV4() throws IOException {
    // The version byte is under the meta checksum.
    byte[] v3 = FrameParserTest.good().build();
    assertKind(Kind.CHECKSUM_MISMATCH, () -> FrameParser.parse(putU8(v3, 4, 4)));
    assertKind(Kind.CHECKSUM_MISMATCH, () -> FrameParser.parse(putU8(golden(), 4, 3)));
    // Resealed, neither reads as the other: a V4 entry is 4 bytes longer (its decoded length),
    // so the directory and the payloads no longer line up.
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(refreshChecksum(putU8(v3, 4, 4))));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(refreshChecksum(putU8(golden(), 4, 3))));
  }

  @Test
  void aV4EntryStatesAnAlignedDecodedLength() {
    TestFrames.Builder b =
        TestFrames.v4().rows(5).schema(A, S).stats(statsSection(statsA(), statsS()));
    byte[] f = b.payload(Payload.raw(48)).payload(Payload.raw(64)).build();
    assertEquals(64, FrameParser.parse(f).directory().get(1).decodedLen());
    // The plain body it decodes to is 8-byte aligned (checked after the codec rule, as natively).
    byte[] unaligned = refreshChecksum(TestFrames.putU32(f, entryAt(f, 1) + 20, 1 << 20 | 4));
    assertKindAndMessage(Kind.CORRUPT_FRAME, "decoded length 1048580 is not a multiple of 8", unaligned);
    // Far above its raw length is the native decode budget's to refuse, with the schema.
    byte[] large = refreshChecksum(TestFrames.putU32(f, entryAt(f, 1) + 20, 1 << 20));
    assertEquals(1 << 20, FrameParser.parse(large).directory().get(1).decodedLen());
    assertEquals(48 + (1 << 20), FrameParser.check(large).decodedBytes(new int[] {0, 1}));
  }
}
