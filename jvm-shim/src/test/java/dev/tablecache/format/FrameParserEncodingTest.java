package dev.tablecache.format;

import static dev.tablecache.Assertions2.assertKind;
import static dev.tablecache.format.FrameParserTest.A;
import static dev.tablecache.format.FrameParserTest.S;
import static dev.tablecache.format.FrameParserTest.entryAt;
import static dev.tablecache.format.FrameParserTest.good;
import static dev.tablecache.format.TestFrames.putU32;
import static dev.tablecache.format.TestFrames.putU8;
import static dev.tablecache.format.TestFrames.refreshChecksum;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Codec;
import dev.tablecache.Encoding;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.TestFrames.Payload;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Pure-Java parser tests of payload encodings (FORMAT.md section 2): directory byte 17, the
 * ENCODED flag, and the order of the directory checks, which the native parser shares.
 */
class FrameParserEncodingTest {

  static final int ENCODED = FrameParser.FLAG_ENCODED;

  /** {@link FrameParserTest#good()} with payload 1 stored lz4 and byte stream split. */
  static byte[] encoded() {
    return v3(Payload.raw(48), new Payload(new byte[40], 1, 64, 1)).build();
  }

  static TestFrames.Builder v3(Payload p0, Payload p1) {
    return TestFrames.v3().rows(5).schema(A, S).payload(p0).payload(p1);
  }

  /** Sets byte {@code k} of directory entry {@code i} and reseals the meta checksum. */
  static byte[] entryByte(byte[] f, int i, int k, int v) {
    return refreshChecksum(putU8(f, entryAt(f, i) + k, v));
  }

  static TableCacheException assertKindAndMessage(Kind kind, String message, byte[] f) {
    TableCacheException e = assertKind(kind, () -> FrameParser.parse(f));
    assertTrue(e.getMessage().contains(message), e.getMessage());
    return e;
  }

  // ---------------------------------------------------------------- valid frames

  @Test
  void encodedFrameParses() {
    byte[] f = encoded();
    assertEquals(2 | ENCODED, f[5], "the builder sets ENCODED for an encoded payload");
    ParsedFrame p = FrameParser.parse(f).validate();
    p.verifyPayloadChecksums();
    assertTrue(p.encoded());
    assertEquals(2 | ENCODED, p.flags());
    DirectoryEntry plain = p.directory().get(0);
    DirectoryEntry split = p.directory().get(1);
    assertEquals(Encoding.PLAIN.id(), plain.encodingId());
    assertEquals(Encoding.PLAIN, plain.encoding());
    assertEquals(Encoding.BYTE_STREAM_SPLIT.id(), split.encodingId());
    assertEquals(Encoding.BYTE_STREAM_SPLIT, split.encoding());
    assertEquals(Codec.LZ4, split.codec());
    assertEquals(64, split.rawLen());
  }

  @Test
  void plainFrameIsNotEncoded() {
    ParsedFrame p = FrameParser.parse(good().build());
    assertFalse(p.encoded());
    assertTrue(p.directory().stream().allMatch(e -> e.encoding() == Encoding.PLAIN));
  }

  @Test
  void encodingWithoutCompressionIsAccepted() {
    // The writer never stores an encoded payload uncompressed, but a reader decodes it.
    byte[] f = v3(Payload.raw(48).encoding(1), Payload.raw(64)).build();
    ParsedFrame p = FrameParser.parse(f);
    assertTrue(p.encoded());
    assertEquals(Encoding.BYTE_STREAM_SPLIT, p.directory().get(0).encoding());
    assertEquals(Codec.NONE, p.directory().get(0).codec());
  }

  @Test
  void encodedV2AndUnchecksummedFramesParse() {
    byte[] v2 = TestFrames.v2().rows(5).schema(A, S).payload(new Payload(new byte[40], 2, 112, 1)).build();
    assertTrue(FrameParser.parse(v2).encoded());
    byte[] none = v3(Payload.raw(48), new Payload(new byte[40], 1, 64, 1)).checksumKind(0).build();
    ParsedFrame p = FrameParser.parse(none);
    assertTrue(p.encoded());
    assertEquals(ParsedFrame.CHECKSUM_NONE, p.checksumKind());
  }

  // ---------------------------------------------------------------- rules, one at a time

  @Test
  void unknownEncodingIsUnsupportedCodec() {
    for (int e : new int[] {2, 3, 0x80, 255}) {
      // With the flag set, so only the id itself is wrong.
      assertKindAndMessage(
          Kind.UNSUPPORTED_CODEC,
          "UnsupportedEncoding: directory entry 1 encoding " + e,
          entryByte(encoded(), 1, 17, e));
    }
  }

  @Test
  void encodedEntryWithoutTheFlagIsCorrupt() {
    byte[] f = entryByte(good().build(), 1, 17, 1);
    assertKindAndMessage(
        Kind.CORRUPT_FRAME, "CorruptDirectory: entry 1 is encoded but the ENCODED flag is clear", f);
    byte[] cleared = refreshChecksum(putU8(encoded(), 5, 2));
    assertKindAndMessage(Kind.CORRUPT_FRAME, "entry 1 is encoded but the ENCODED flag is clear", cleared);
  }

  @Test
  void flagWithoutAnEncodedEntryIsCorrupt() {
    String msg = "CorruptDirectory: the ENCODED flag is set but no payload is encoded";
    assertKindAndMessage(Kind.CORRUPT_FRAME, msg, refreshChecksum(putU8(good().build(), 5, 3 | ENCODED)));
    assertKindAndMessage(Kind.CORRUPT_FRAME, msg, entryByte(encoded(), 1, 17, 0));
    byte[] noColumns = TestFrames.v3().rows(7).schema().flags(2 | ENCODED).build();
    assertKindAndMessage(Kind.CORRUPT_FRAME, msg, noColumns);
    byte[] unchecked = v3(Payload.raw(48), Payload.raw(64)).checksumKind(0).flags(ENCODED).build();
    assertKindAndMessage(Kind.CORRUPT_FRAME, msg, unchecked);
  }

  @Test
  void reservedEntryBytesAreStillCorrupt() {
    for (byte[] f : new byte[][] {good().build(), encoded()}) {
      for (int k = 18; k < 20; k++) {
        assertKindAndMessage(
            Kind.CORRUPT_FRAME, "CorruptDirectory: entry 1 reserved bytes are not zero", entryByte(f, 1, k, 1));
      }
    }
  }

  @Test
  void flagBitsAboveEncodedAreReserved() {
    for (byte[] f : new byte[][] {good().build(), encoded()}) {
      for (int bit = 4; bit < 8; bit++) {
        byte[] g = putU8(f, 5, f[5] | 1 << bit);
        assertKind(Kind.UNSUPPORTED_VERSION, () -> FrameParser.parse(g));
      }
    }
  }

  // ---------------------------------------------------------------- check order

  @Test
  void reservedBytesComeBeforeCodecAndEncoding() {
    byte[] f = entryByte(entryByte(entryByte(good().build(), 1, 16, 7), 1, 17, 9), 1, 19, 1);
    assertKindAndMessage(Kind.CORRUPT_FRAME, "reserved bytes are not zero", f);
  }

  @Test
  void codecComesBeforeEncoding() {
    byte[] f = entryByte(entryByte(encoded(), 1, 16, 7), 1, 17, 9);
    assertKindAndMessage(Kind.UNSUPPORTED_CODEC, "UnsupportedCodec: directory entry 1 codec 7", f);
  }

  @Test
  void unknownEncodingComesBeforeTheFlag() {
    byte[] f = entryByte(good().build(), 1, 17, 2); // flag clear as well
    assertKindAndMessage(Kind.UNSUPPORTED_CODEC, "UnsupportedEncoding: directory entry 1 encoding 2", f);
  }

  @Test
  void flagMismatchComesBeforeOffsetsAndLengths() {
    byte[] f = entryByte(good().build(), 1, 17, 1);
    byte[] badOffset = refreshChecksum(putU32(f, entryAt(f, 1), 56));
    assertKindAndMessage(Kind.CORRUPT_FRAME, "ENCODED flag is clear", badOffset);
    byte[] badRaw = refreshChecksum(putU32(f, entryAt(f, 1) + 8, 40));
    assertKindAndMessage(Kind.CORRUPT_FRAME, "ENCODED flag is clear", badRaw);
  }

  @Test
  void flagWithoutEncodingComesAfterTheEntriesButBeforeTrailingBytes() {
    byte[] flagged = refreshChecksum(putU8(good().build(), 5, 3 | ENCODED));
    // A later entry's own problem is found first: the flag is judged after the loop.
    byte[] badOffset = refreshChecksum(putU32(flagged, entryAt(flagged, 1), 56));
    assertKindAndMessage(Kind.CORRUPT_FRAME, "has offset 56", badOffset);
    // ... but before the frame's length is compared with the payloads'.
    byte[] trailing = Arrays.copyOf(flagged, flagged.length + 1);
    assertKindAndMessage(Kind.CORRUPT_FRAME, "no payload is encoded", trailing);
  }
}
