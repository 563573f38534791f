package dev.tablecache;

import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.format.FrameParser;
import dev.tablecache.format.ParsedFrame;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every supported type through JNI and back, for each format, codec and stats setting. */
class RoundTripTest extends NativeTestBase {

  static Stream<Arguments> options() {
    List<Arguments> out = new ArrayList<>();
    for (CacheFormat f : CacheFormat.values()) {
      for (Codec c : Codec.values()) {
        for (boolean stats : new boolean[] {true, false}) {
          if (f == CacheFormat.LEGACY && stats) {
            continue; // legacy ignores stats
          }
          out.add(Arguments.of(f, c, stats));
        }
      }
    }
    return out.stream();
  }

  private static WriteOptions opts(CacheFormat f, Codec c, boolean stats) {
    return WriteOptions.builder().preferredFormat(f).codec(c).stats(stats).build();
  }

  /** Serializes, checks the format written, decodes, compares; returns the frame. */
  private byte[] roundTrip(VectorSchemaRoot in, WriteOptions o) {
    byte[] frame = TableCache.serialize(in, o);
    CacheFormat expected = TableCache.formatFor(o);
    assertEquals(expected, CacheFormat.detect(frame));
    ParsedFrame parsed = FrameParser.parse(frame).validate();
    parsed.verifyPayloadChecksums();
    assertEquals(in.getRowCount(), parsed.rowCount());
    assertEquals(in.getSchema().getFields().size(), parsed.columnCount());
    try (VectorSchemaRoot out = TableCache.deserialize(frame, null, allocator)) {
      assertSameData(in, out);
    }
    return frame;
  }

  static void assertSameData(VectorSchemaRoot in, VectorSchemaRoot out) {
    assertEquals(in.getRowCount(), out.getRowCount());
    assertEquals(in.getSchema(), out.getSchema(), "schema changed on the way");
    assertEquals(Canonical.root(in), Canonical.root(out));
    for (int i = 0; i < in.getFieldVectors().size(); i++) {
      FieldVector a = in.getVector(i);
      FieldVector b = out.getVector(i);
      assertTrue(VectorEqualsVisitor.vectorEquals(a, b), "column " + a.getName() + " differs");
    }
  }

  @ParameterizedTest(name = "{0} {1} stats={2}")
  @MethodSource("options")
  void allTypes(CacheFormat f, Codec c, boolean stats) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator)) {
      roundTrip(in, opts(f, c, stats));
    }
  }

  @ParameterizedTest(name = "{0} {1} stats={2}")
  @MethodSource("options")
  void zeroRows(CacheFormat f, Codec c, boolean stats) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 0)) {
      roundTrip(in, opts(f, c, stats));
    }
  }

  @ParameterizedTest(name = "{0} {1} stats={2}")
  @MethodSource("options")
  void manyRowsCompress(CacheFormat f, Codec c, boolean stats) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 4000)) {
      byte[] frame = roundTrip(in, opts(f, c, stats));
      if (c != Codec.NONE && CacheFormat.detect(frame) != CacheFormat.LEGACY) {
        ParsedFrame p = FrameParser.parse(frame);
        assertTrue(
            p.directory().stream().anyMatch(e -> e.codecId() != 0),
            "a compressible batch was stored raw with " + c);
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"V4, LZ4", "V4, ZSTD", "V3, LZ4", "V3, ZSTD", "V2, LZ4", "V2, ZSTD"})
  void plainEncodingRoundTrips(CacheFormat f, Codec c) {
    // The option matrix above writes the default (byte stream split); plain is the other layout.
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 4000)) {
      byte[] frame = roundTrip(in, opts(f, c, true).toBuilder().encoding(Encoding.PLAIN).build());
      assertFalse(FrameParser.parse(frame).encoded(), "plain frame has the ENCODED flag");
    }
  }

  @Test
  void zeroColumnBatch() {
    try (VectorSchemaRoot in = new VectorSchemaRoot(Collections.emptyList(), Collections.emptyList(), 5)) {
      for (CacheFormat f : CacheFormat.values()) {
        byte[] frame = TableCache.serialize(in, opts(f, Codec.LZ4, true));
        try (VectorSchemaRoot out = TableCache.deserialize(frame, null, allocator)) {
          assertEquals(5, out.getRowCount());
          assertTrue(out.getFieldVectors().isEmpty());
        }
      }
    }
  }

  @Test
  void slicedInputIsWrittenFromOffsetZero() {
    // A root whose vectors were produced by a transfer/split starts at offset 0 in Java anyway;
    // check a split half round-trips exactly.
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 20);
        VectorSchemaRoot half = in.slice(7, 9)) {
      byte[] frame = TableCache.serialize(half, WriteOptions.defaults());
      try (VectorSchemaRoot out = TableCache.deserialize(frame, null, allocator)) {
        assertSameData(half, out);
      }
    }
  }
}
