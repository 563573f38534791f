package dev.tablecache;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.format.FrameParser;
import dev.tablecache.format.FrameParserTest;
import dev.tablecache.format.TestFrames;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Damaged frames through the native decoder: the right kind, no crash, and (for framed formats)
 * the same kind the pure-Java parser reports for the same bytes.
 */
class RejectionTest extends NativeTestBase {

  private byte[] frame(CacheFormat f, Codec c) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 6)) {
      return TableCache.serialize(in, WriteOptions.builder().preferredFormat(f).codec(c).build());
    }
  }

  /** The kind native decoding raises, or null when it decodes. */
  private Kind nativeKind(byte[] bytes) {
    try (VectorSchemaRoot r = TableCache.deserialize(bytes, null, allocator)) {
      return null;
    } catch (TableCacheException e) {
      assertNotEquals(Kind.INTERNAL, e.kind(), "native bug: " + e.getMessage());
      assertNotEquals(Kind.NATIVE_UNAVAILABLE, e.kind());
      return e.kind();
    }
  }

  /** The kind the Java parser raises with full validation and payload checksums, or null. */
  private static Kind javaKind(byte[] bytes) {
    try {
      FrameParser.parse(bytes).validate().verifyPayloadChecksums();
      return null;
    } catch (TableCacheException e) {
      return e.kind();
    }
  }

  @ParameterizedTest
  @EnumSource(CacheFormat.class)
  void everyTruncationIsCorruptFrame(CacheFormat f) {
    byte[] frame = frame(f, Codec.LZ4);
    for (int n = 0; n < frame.length; n++) {
      byte[] cut = Arrays.copyOf(frame, n);
      Kind k = nativeKind(cut);
      assertEquals(Kind.CORRUPT_FRAME, k, "truncated to " + n + " of " + frame.length);
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = CacheFormat.class,
      names = {"V4", "V3", "V2"})
  void everyFlippedByteIsCaughtWithTheSameKindInJavaAndNative(CacheFormat f) {
    for (Codec c : new Codec[] {Codec.NONE, Codec.LZ4, Codec.ZSTD}) {
      byte[] frame = frame(f, c);
      Map<String, Integer> seen = new LinkedHashMap<>();
      for (int at = 0; at < frame.length; at++) {
        for (int bit : new int[] {0x01, 0x80}) {
          byte[] bad = frame.clone();
          bad[at] ^= (byte) bit;
          Kind n = nativeKind(bad);
          Kind j = javaKind(bad);
          String where = f + "/" + c + " byte " + at + " ^" + bit;
          assertNotNull(n, "native accepted a damaged frame: " + where);
          assertEquals(n, j, "Java and native disagree at " + where);
          seen.merge(n.name(), 1, Integer::sum);
        }
      }
      assertTrue(seen.containsKey("CHECKSUM_MISMATCH"), seen.toString());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Codec.class,
      names = {"NONE", "ZSTD"}) // LZ4: LegacyLz4IsolatedTest, in its own JVM
  void legacyFlippedBytesAreCorruptNeverInternal(Codec c) {
    checkLegacyFlips(c);
  }

  /** Flips bytes of a legacy stream; collects decodes that fail with a kind meaning a bug. */
  void checkLegacyFlips(Codec c) {
    byte[] frame = frame(CacheFormat.LEGACY, c);
    java.util.List<String> internal = new java.util.ArrayList<>(); // kinds that mean a bug
    for (int at = 0; at < frame.length; at++) {
      for (int bit : new int[] {0x01, 0x41, 0x80}) {
        byte[] bad = frame.clone();
        bad[at] ^= (byte) bit;
        Kind n;
        try (VectorSchemaRoot r = TableCache.deserialize(bad, null, allocator)) {
          n = null; // may decode: legacy streams carry no checksum
        } catch (TableCacheException e) {
          n = e.kind();
          // No checksum guards a legacy stream: a flip can make a different but valid schema,
          // which may disagree with the data (SCHEMA_MISMATCH) or be one Arrow Java cannot hold.
          if (n != Kind.CORRUPT_FRAME && n != Kind.SCHEMA_MISMATCH && n != Kind.UNSUPPORTED_TYPE) {
            internal.add("byte " + at + " ^0x" + Integer.toHexString(bit) + ": " + e.getMessage());
          }
        }
        Kind j = javaKind(bad);
        if (j != null && n != null) {
          // The Java side reads only framing and the schema; when it objects, native must too.
          assertEquals(Kind.CORRUPT_FRAME, j, "byte " + at);
        }
      }
    }
    assertTrue(
        internal.isEmpty(),
        internal.size() + " damaged legacy " + c + " streams raised a bug kind, e.g.:\n"
            + String.join("\n", internal.subList(0, Math.min(10, internal.size()))));
  }

  @Test
  void wrongVersionAndMagic() {
    byte[] frame = frame(CacheFormat.V3, Codec.LZ4);
    for (int v : new int[] {0, 1, 5, 0xFF}) {
      byte[] bad = frame.clone();
      bad[4] = (byte) v;
      assertKind(Kind.UNSUPPORTED_VERSION, () -> TableCache.deserialize(bad, null, allocator));
    }
    byte[] flags = frame.clone();
    flags[5] |= (byte) 0x40;
    assertKind(Kind.UNSUPPORTED_VERSION, () -> TableCache.deserialize(flags, null, allocator));
    byte[] magic = frame.clone();
    magic[1] = 'X';
    assertKind(Kind.CORRUPT_FRAME, () -> TableCache.deserialize(magic, null, allocator));
    assertKind(Kind.CORRUPT_FRAME, () -> TableCache.deserialize(new byte[0], null, allocator));
    assertKind(Kind.CORRUPT_FRAME, () -> TableCache.deserialize("hello world".getBytes(), null, allocator));
    assertKind(Kind.INVALID_ARGUMENT, () -> TableCache.deserialize(null, null, allocator));
  }

  @Test
  void hostileHandBuiltFramesAreRejectedByNativeToo() {
    // Built from FORMAT.md alone: the native reader must agree with the Java one on each.
    byte[] good = FrameParserTest.good().build();
    int e1 = FrameParserTest.entryAt(good, 1);
    byte[][] frames = {
      TestFrames.refreshChecksum(TestFrames.putU8(good, 6, 1)),
      TestFrames.refreshChecksum(TestFrames.putU8(good, e1 + 16, 7)),
      TestFrames.refreshChecksum(TestFrames.putU32(good, e1, 56)),
      TestFrames.refreshChecksum(TestFrames.putU32(good, 16, 0xFFFFFFF0L)),
      TestFrames.putU32(good, 24, 12345),
      Arrays.copyOf(good, good.length + 3),
      // Encodings (FORMAT.md section 2), in the directory check order both readers share.
      TestFrames.refreshChecksum(TestFrames.putU8(good, e1 + 17, 2)),
      TestFrames.refreshChecksum(TestFrames.putU8(good, e1 + 17, 1)),
      TestFrames.refreshChecksum(TestFrames.putU8(good, 5, good[5] | TestFrames.FLAG_ENCODED)),
      TestFrames.refreshChecksum(TestFrames.putU8(TestFrames.putU8(good, e1 + 17, 2), e1 + 18, 1)),
      TestFrames.refreshChecksum(TestFrames.putU8(TestFrames.putU8(good, e1 + 17, 1), e1 + 16, 7)),
      TestFrames.putU8(good, 5, good[5] | 0x10),
    };
    for (int i = 0; i < frames.length; i++) {
      Kind j = javaKind(frames[i]);
      assertNotNull(j, "case " + i);
      assertEquals(j, nativeKind(frames[i]), "case " + i);
    }
  }

  @Test
  void v3AndV4RelabelledAreRejectedByBothParsers() {
    byte[] v3;
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 6)) {
      // Plain: a V3 entry with an encoding is no V4 entry (the V4 rule, checked below).
      v3 = TableCache.serialize(in, WriteOptions.builder().encoding(Encoding.PLAIN).build());
    }
    byte[] v4 = frame(CacheFormat.V4, Codec.LZ4);
    for (byte[] f : new byte[][] {v3, v4}) {
      byte[] relabelled = TestFrames.putU8(f, 4, f[4] == 3 ? 4 : 3);
      assertEquals(Kind.CHECKSUM_MISMATCH, javaKind(relabelled));
      assertEquals(Kind.CHECKSUM_MISMATCH, nativeKind(relabelled));
      // Resealed, the directory is read with the other version's entry length (a V4 entry is 4
      // bytes longer: its decoded length), so the entries and payloads no longer line up.
      byte[] resealed = TestFrames.refreshChecksum(relabelled);
      Kind j = javaKind(resealed);
      assertNotNull(j, "version " + resealed[4]);
      assertEquals(j, nativeKind(resealed), "version " + resealed[4]);
    }
    byte[] split = frame(CacheFormat.V3, Codec.LZ4); // auto: byte stream split entries
    assertTrue(FrameParser.parse(split).encoded());
    byte[] splitAsV4 = TestFrames.refreshChecksum(TestFrames.putU8(split, 4, 4));
    assertEquals(Kind.CORRUPT_FRAME, javaKind(splitAsV4));
    assertEquals(Kind.CORRUPT_FRAME, nativeKind(splitAsV4));
  }

  @Test
  void hostileV4FramesAreRejectedWithTheSameKindOnBothSides() {
    byte[] good = frame(CacheFormat.V4, Codec.LZ4);
    assertNull(javaKind(good));
    int e1 = FrameParserTest.entryAt(good, 1);
    byte[] split = TestFrames.refreshChecksum(TestFrames.putU8(good, e1 + 17, 1));
    byte[][] frames = {
      split, // a V4 entry with a known encoding: CORRUPT_FRAME
      TestFrames.refreshChecksum(TestFrames.putU8(split, 5, split[5] | TestFrames.FLAG_ENCODED)),
      TestFrames.refreshChecksum(TestFrames.putU8(good, 5, good[5] | TestFrames.FLAG_ENCODED)),
      TestFrames.refreshChecksum(TestFrames.putU8(good, e1 + 17, 2)), // unknown: UNSUPPORTED_CODEC
      TestFrames.refreshChecksum(TestFrames.putU8(split, e1 + 18, 1)), // reserved first
      TestFrames.refreshChecksum(TestFrames.putU8(split, e1 + 16, 7)), // codec first
      TestFrames.refreshChecksum(TestFrames.putU32(split, e1, 999)), // the encoding before offsets
      TestFrames.refreshChecksum(TestFrames.putU8(good, 4, 5)), // version 5
    };
    Kind[] expected = {
      Kind.CORRUPT_FRAME,
      Kind.CORRUPT_FRAME,
      Kind.CORRUPT_FRAME,
      Kind.UNSUPPORTED_CODEC,
      Kind.CORRUPT_FRAME,
      Kind.UNSUPPORTED_CODEC,
      Kind.CORRUPT_FRAME,
      Kind.UNSUPPORTED_VERSION,
    };
    for (int i = 0; i < frames.length; i++) {
      assertEquals(expected[i], javaKind(frames[i]), "case " + i + " (Java)");
      assertEquals(expected[i], nativeKind(frames[i]), "case " + i + " (native)");
    }
  }

  @Test
  void theJvmLivesOnAfterAThousandBadFrames() {
    byte[] frame = frame(CacheFormat.V3, Codec.ZSTD);
    java.util.Random rnd = new java.util.Random(42);
    for (int i = 0; i < 1000; i++) {
      byte[] bad = frame.clone();
      for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
        bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt();
      }
      nativeKind(bad);
    }
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 6);
        VectorSchemaRoot out = TableCache.deserialize(frame, null, allocator)) {
      RoundTripTest.assertSameData(in, out);
    }
  }
}
