package dev.tablecache.format;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.CacheFormat;
import dev.tablecache.TableCacheException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.Collections;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pure-Java tests of legacy (plain Arrow IPC stream) recognition, streams written by Arrow Java. */
class LegacyStreamParserTest {

  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private VectorSchemaRoot root(int rows) {
    Schema schema =
        new Schema(
            Arrays.asList(
                Field.nullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    BigIntVector id = (BigIntVector) root.getVector(0);
    VarCharVector name = (VarCharVector) root.getVector(1);
    for (int i = 0; i < rows; i++) {
      id.setSafe(i, i * 10L);
      name.setSafe(i, ("n" + i).getBytes());
    }
    root.setRowCount(rows);
    return root;
  }

  private byte[] stream(int batches, int rows) throws IOException {
    try (VectorSchemaRoot root = root(rows)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
        w.start();
        for (int i = 0; i < batches; i++) {
          w.writeBatch();
        }
        w.end();
      }
      return out.toByteArray();
    }
  }

  @Test
  void recognizesALegacyStream() throws IOException {
    byte[] s = stream(1, 7);
    assertEquals(CacheFormat.LEGACY, CacheFormat.detect(s));
    ParsedFrame p = FrameParser.parse(s);
    assertEquals(CacheFormat.LEGACY, p.format());
    assertEquals(7, p.rowCount());
    assertEquals(2, p.columnCount());
    assertEquals("id", p.schema().getFields().get(0).getName());
    assertFalse(p.hasStats());
    assertTrue(p.directory().isEmpty());
    assertEquals(0, p.version());
    p.validate();
    p.verifyPayloadChecksums();
    assertEquals(p.schema(), TestFrames.schemaOf(p.schemaBytes()));
  }

  @Test
  void zeroRowBatch() throws IOException {
    ParsedFrame p = FrameParser.parse(stream(1, 0));
    assertEquals(0, p.rowCount());
  }

  @Test
  void rejectsNoBatchOrTwoBatches() throws IOException {
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(stream(0, 3)));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(stream(2, 3)));
  }

  @Test
  void rejectsBytesAfterTheEndOfStream() throws IOException {
    byte[] s = stream(1, 3);
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(Arrays.copyOf(s, s.length + 1)));
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(Arrays.copyOf(s, s.length + 8)));
  }

  @Test
  void everyTruncationIsCorrupt() throws IOException {
    byte[] s = stream(1, 3);
    for (int n = 4; n < s.length; n++) {
      byte[] cut = Arrays.copyOf(s, n);
      assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(cut));
    }
  }

  @Test
  void hugeMetadataLengthDoesNotAllocate() throws IOException {
    byte[] s = stream(1, 3);
    byte[] t = s.clone();
    t[4] = (byte) 0xF0;
    t[5] = (byte) 0xFF;
    t[6] = (byte) 0xFF;
    t[7] = (byte) 0x7F;
    assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(t));
  }

  @Test
  void rejectsDictionaryBatches() throws IOException {
    try (VarCharVector dictVector = new VarCharVector("dict", allocator);
        VarCharVector raw = new VarCharVector("c", allocator)) {
      dictVector.allocateNew();
      dictVector.setSafe(0, "a".getBytes());
      dictVector.setSafe(1, "b".getBytes());
      dictVector.setValueCount(2);
      raw.allocateNew();
      raw.setSafe(0, "b".getBytes());
      raw.setSafe(1, "a".getBytes());
      raw.setValueCount(2);
      Dictionary dict = new Dictionary(dictVector, new DictionaryEncoding(1L, false, null));
      DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(dict);
      try (org.apache.arrow.vector.FieldVector encoded =
          (org.apache.arrow.vector.FieldVector) DictionaryEncoder.encode(raw, dict)) {
        VectorSchemaRoot root = new VectorSchemaRoot(Collections.singletonList(encoded.getField()), Collections.singletonList(encoded), 2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ArrowStreamWriter w = new ArrowStreamWriter(root, provider, Channels.newChannel(out))) {
          w.start();
          w.writeBatch();
          w.end();
        }
        assertKind(Kind.CORRUPT_FRAME, () -> FrameParser.parse(out.toByteArray()));
      }
    }
  }
}
