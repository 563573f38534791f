package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Java8;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/**
 * A V3 frame with a dictionary-encoded string column, its schema damaged one bit at a time and
 * its checksums re-forged: whatever the damage makes of the schema, the native decoder and the
 * Java importer must agree on it. A corrupt frame is CORRUPT_FRAME or a more specific kind, never
 * INTERNAL (the importer refusing what the decoder accepted).
 */
class SchemaBitFlipTest extends NativeTestBase {

  private static final int ROWS = 3;

  @Test
  void everySchemaBitFlipOfADictionaryStringColumnIsAFrameError() {
    byte[] frame = dictionaryStringFrame();
    // The intact frame: the dictionary column cannot become a Java vector.
    assertEquals(Kind.UNSUPPORTED_TYPE, outcome(frame));
    // Nor a column read by address, which takes only the string dictionaries the decoder makes.
    TableCacheException flat =
        org.junit.jupiter.api.Assertions.assertThrows(
            TableCacheException.class, () -> TableCache.deserializeColumns(frame, new int[] {1}));
    assertEquals(Kind.UNSUPPORTED_TYPE, flat.kind(), flat.getMessage());
    int schemaLen = (int) LittleEndian.u32(frame, 16);
    List<String> internal = new ArrayList<>();
    int refused = 0;
    for (int bit = 0; bit < schemaLen * 8; bit++) {
      byte[] bad = frame.clone();
      bad[28 + bit / 8] ^= (byte) (1 << (bit % 8));
      Kind kind = outcome(TestFrames.refreshChecksum(bad));
      if (kind != null) {
        refused++;
      }
      if (kind == Kind.INTERNAL) {
        internal.add("schema bit " + bit);
      }
    }
    assertTrue(internal.isEmpty(), "INTERNAL for " + internal);
    // Every flip leaves a dictionary column, a damaged schema or a mismatching payload.
    assertEquals(schemaLen * 8, refused);
  }

  /** The kind a decode fails with, or null when it succeeds. */
  private Kind outcome(byte[] frame) {
    try (VectorSchemaRoot r = TableCache.deserialize(frame, null, allocator)) {
      return null;
    } catch (TableCacheException e) {
      return e.kind();
    }
  }

  /** Columns c1 (int32) and c2 (dictionary<int32, utf8>), one uncompressed payload each. */
  static byte[] dictionaryStringFrame() {
    Field c1 = new Field("c1", FieldType.nullable(new ArrowType.Int(32, true)), null);
    Field c2 =
        new Field(
            "c2",
            new FieldType(
                true,
                ArrowType.Utf8.INSTANCE,
                new DictionaryEncoding(0, false, new ArrowType.Int(32, true))),
            null);
    byte[] ints = body(new long[] {ROWS, 0}, new byte[0], i32s(1, 2, 3));
    byte[] values = "abcde".getBytes(StandardCharsets.UTF_8);
    byte[] dict =
        body(
            new long[] {ROWS, 0, 2, 0},
            new byte[0],
            i32s(0, 1, 0),
            new byte[0],
            i32s(0, 2, 5),
            values);
    return TestFrames.v3()
        .rows(ROWS)
        .schema(c1, c2)
        .payload(new TestFrames.Payload(ints, 0, ints.length))
        .payload(new TestFrames.Payload(dict, 0, dict.length))
        .build();
  }

  private static byte[] i32s(int... v) {
    ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int x : v) {
      b.putInt(x);
    }
    return b.array();
  }

  /** A column body (FORMAT.md section 3): counts, nodes, buffer lengths, 8-aligned buffers. */
  private static byte[] body(long[] nodes, byte[]... buffers) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Java8.writeBytes(out, TestFrames.u32(nodes.length / 2));
    Java8.writeBytes(out, TestFrames.u32(buffers.length));
    for (long n : nodes) {
      Java8.writeBytes(out, TestFrames.u32(n));
    }
    for (byte[] b : buffers) {
      Java8.writeBytes(out, TestFrames.u32(b.length));
    }
    pad(out);
    for (byte[] b : buffers) {
      Java8.writeBytes(out, b);
      pad(out);
    }
    return out.toByteArray();
  }

  private static void pad(ByteArrayOutputStream out) {
    while (out.size() % 8 != 0) {
      out.write(0);
    }
  }
}
