package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Batches;
import dev.tablecache.CacheFormat;
import dev.tablecache.GoldenParityTest;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * {@link FlatbufferVerifier} on hand-built schema messages ({@link HandBuiltMessage}), each
 * breaking one rule of the flatbuffers crate's verifier at a known byte, and on every schema the
 * golden frames and the writer carry. The native side of the same rules is pinned by the
 * {@code schema_*} structure cases of {@code golden/reject/} ({@link RejectCorpusTest}).
 */
class FlatbufferVerifierTest {

  private static void verify(byte[] flatbuffer) {
    FlatbufferVerifier.verifySchemaMessage(flatbuffer, 0, flatbuffer.length);
  }

  /** {@code edit} applied to a valid message must make the verifier refuse it, naming {@code what}. */
  private static void refused(String what, Consumer<HandBuiltMessage> edit) {
    refused(what, HandBuiltMessage.valid(), edit);
  }

  private static void refused(String what, HandBuiltMessage m, Consumer<HandBuiltMessage> edit) {
    verify(m.b); // valid before the edit
    edit.accept(m);
    TableCacheException e = assertThrows(TableCacheException.class, () -> verify(m.b));
    assertEquals(Kind.CORRUPT_FRAME, e.kind());
    assertTrue(e.getMessage().contains(what), e.getMessage());
  }

  @Test
  void handBuiltMessagesAreValidForBothTheVerifierAndArrowJava() {
    for (HandBuiltMessage m :
        Arrays.asList(HandBuiltMessage.valid(), HandBuiltMessage.of(5, 1), HandBuiltMessage.of(1, 8))) {
      verify(m.b);
      byte[] message = m.encapsulated();
      Schema s = SchemaCodec.decode(message, 0, message.length);
      assertFalse(s.getFields().isEmpty());
    }
  }

  @Test
  void everyGoldenSchemaIsAccepted() throws IOException {
    List<Path> files = GoldenParityTest.goldenFiles();
    assertFalse(files.isEmpty());
    for (Path bin : files) {
      byte[] frame = Files.readAllBytes(bin);
      byte[] section =
          CacheFormat.detect(frame) == CacheFormat.LEGACY
              ? new LegacyLayout(frame).schemaSection()
              : new FramedLayout(frame).schemaSection();
      int metaLen = LittleEndian.i32(section, 4);
      FlatbufferVerifier.verifySchemaMessage(section, 8, metaLen);
    }
  }

  @Test
  void schemasArrowJavaWritesAreAccepted() {
    byte[] b = SchemaCodec.encode(new Schema(Batches.ALL_FIELDS));
    FlatbufferVerifier.verifySchemaMessage(b, 8, LittleEndian.i32(b, 4));
  }

  @Test
  void misalignedOffset() {
    // The name's offset field moves 2 bytes into the table: a u32 at a position not 4-aligned.
    refused(
        "4-byte value that is not aligned",
        m -> m.put16(m.entry(m.fieldVtable[0], HandBuiltMessage.FIELD_NAME), 6));
  }

  @Test
  void misalignedTable() {
    refused("not aligned", m -> m.offset(0, m.messageTable + 1));
  }

  @Test
  void rootOffsetPastTheEnd() {
    refused("outside the buffer", m -> m.put32(0, m.b.length));
  }

  @Test
  void vtableOutsideTheBuffer() {
    // A negative soffset puts the vtable after the table: here past the end.
    refused(
        "points outside the buffer",
        m -> m.put32(m.schemaTable, m.schemaTable - m.b.length - 8));
    refused("points outside the buffer", m -> m.put32(m.schemaTable, m.schemaTable + 8));
  }

  @Test
  void vtableLengthRunsPastTheEnd() {
    refused("outside the buffer", m -> m.put16(m.fieldVtable[1], m.b.length));
  }

  @Test
  void vtableOfOddLength() {
    refused("odd length", m -> m.put16(m.schemaVtable, 7));
  }

  @Test
  void vtableShorterThanItsHeaderOnlyWhereTheSchemaWalkReadsIt() {
    // schema_bounds.rs refuses it for a Field; the crate's verifier alone accepts it elsewhere,
    // so an Int type table with a 2-byte vtable (all fields defaulted) is still valid.
    refused("shorter than its header", m -> m.put16(m.fieldVtable[0], 2));
    HandBuiltMessage m = HandBuiltMessage.valid();
    m.put16(m.intVtable0, 2);
    verify(m.b);
  }

  @Test
  void unterminatedString() {
    refused("without its zero terminator", m -> m.b[m.nameString[0] + 5] = 'x');
  }

  @Test
  void stringLengthPastTheEnd() {
    refused("outside the buffer", m -> m.put32(m.nameString[1], m.b.length));
  }

  @Test
  void stringThatIsNotUtf8() {
    refused("not UTF-8", m -> m.b[m.nameString[0] + 4] = (byte) 0xC0);
  }

  @Test
  void vectorLengthPastTheEnd() {
    refused("outside the buffer", m -> m.put32(m.fieldsVector, 1_000_000));
    // 2^30 entries of 4 bytes: the byte count does not fit an int, and nothing is allocated.
    refused("outside the buffer", m -> m.put32(m.fieldsVector, 1 << 30));
    refused("outside the buffer", m -> m.put32(m.fieldsVector, -1));
  }

  @Test
  void featuresVectorMustBeAlignedToItsI64Elements() {
    verify(withFeatures(true).b);
    TableCacheException e =
        assertThrows(TableCacheException.class, () -> verify(withFeatures(false).b));
    assertTrue(e.getMessage().contains("8-byte value that is not aligned"), e.getMessage());
  }

  /**
   * The valid message whose Schema gets a new vtable with a {@code features} entry: one i64,
   * its elements 8-aligned or not. The field sits past the table's inline bytes, which the
   * crate's verifier allows (it checks each field, not the table's size).
   */
  private static HandBuiltMessage withFeatures(boolean aligned) {
    HandBuiltMessage m = HandBuiltMessage.valid();
    int vtable = m.b.length; // 8-aligned
    int offsetField = vtable + 12;
    int vector = aligned ? offsetField + 8 : offsetField + 4; // elements at vector + 4
    m.b = java.util.Arrays.copyOf(m.b, vector + 4 + 8 + 8);
    m.put16(vtable, 12);
    m.put16(vtable + 2, 8);
    m.put16(vtable + HandBuiltMessage.SCHEMA_FIELDS, 4);
    m.put16(vtable + HandBuiltMessage.SCHEMA_FEATURES, offsetField - m.schemaTable);
    m.put32(m.schemaTable, m.schemaTable - vtable); // negative: the vtable follows the table
    m.offset(offsetField, vector);
    m.put32(vector, 1);
    return m;
  }

  @Test
  void unionTypeWithoutValue() {
    refused(
        "not both present",
        m -> m.put16(m.entry(m.fieldVtable[0], HandBuiltMessage.FIELD_TYPE), 0));
  }

  @Test
  void unionValueWithoutType() {
    refused(
        "not both present",
        m -> m.put16(m.entry(m.fieldVtable[1], HandBuiltMessage.FIELD_TYPE_TYPE), 0));
  }

  @Test
  void messageHeaderWithoutValue() {
    refused(
        "not both present",
        m -> m.put16(m.entry(m.messageVtable, HandBuiltMessage.MESSAGE_HEADER), 0));
  }

  @Test
  void messageHeaderThatIsNotASchema() {
    refused("not a schema", m -> m.b[m.messageTable + 6] = 3);
  }

  @Test
  void schemaWithoutFieldsVector() {
    refused(
        "no fields vector",
        m -> m.put16(m.entry(m.schemaVtable, HandBuiltMessage.SCHEMA_FIELDS), 0));
  }

  @Test
  void unknownTypeIdIsNotReadAsATable() {
    // The crate's verifier skips union variants it does not know (SchemaBounds refuses the id).
    HandBuiltMessage m = HandBuiltMessage.valid();
    m.b[m.fieldTable[0] + 8] = 99;
    m.offset(m.fieldTable[0] + 12, m.b.length - 1); // would be misaligned if it were read
    verify(m.b);
  }

  @Test
  void nestingAtTheDepthLimitIsAcceptedOneDeeperIsNot() {
    // Message and Schema are 2 tables; a chain of n fields puts its leaf's Int table at n + 3.
    int atLimit = FlatbufferVerifier.MAX_DEPTH - 3;
    verify(HandBuiltMessage.of(1, atLimit).b);
    TableCacheException e =
        assertThrows(TableCacheException.class, () -> verify(HandBuiltMessage.of(1, atLimit + 1).b));
    assertTrue(e.getMessage().contains("nested deeper than 64"), e.getMessage());
  }

  @Test
  void farTooDeepFailsWithoutStackOverflow() {
    byte[] b = HandBuiltMessage.of(1, 20_000).b;
    TableCacheException e = assertThrows(TableCacheException.class, () -> verify(b));
    assertEquals(Kind.CORRUPT_FRAME, e.kind());
  }

  @Test
  void tooManyTables() {
    // One field referenced 500,001 times: 2 tables per reference (the field and its Int).
    HandBuiltMessage m = HandBuiltMessage.valid();
    m.shareOneField(FlatbufferVerifier.MAX_TABLES / 2 + 1, 12);
    TableCacheException e = assertThrows(TableCacheException.class, () -> verify(m.b));
    assertTrue(e.getMessage().contains("more than 1000000 tables"), e.getMessage());
    HandBuiltMessage fewer = HandBuiltMessage.valid();
    fewer.shareOneField(FlatbufferVerifier.MAX_TABLES / 2 - 1, 12); // 999,998 + 2 tables
    verify(fewer.b);
  }

  @Test
  void apparentSizeOverTwoGibibytes() {
    // One field whose vtable is 65,534 bytes, referenced 33,000 times: 2.16 GB counted, well
    // under the table limit, from a buffer of about 200 KB.
    HandBuiltMessage m = HandBuiltMessage.valid();
    m.shareOneField(33_000, 65_534);
    TableCacheException e = assertThrows(TableCacheException.class, () -> verify(m.b));
    assertTrue(e.getMessage().contains("apparent size"), e.getMessage());
    HandBuiltMessage fewer = HandBuiltMessage.valid();
    fewer.shareOneField(32_000, 65_534); // 2.1 GB
    verify(fewer.b);
  }

  @Test
  void throughSchemaCodecTheMessageIsRefusedAsCorruptFrame() {
    HandBuiltMessage m = HandBuiltMessage.valid();
    m.b[m.nameString[0] + 5] = 'x'; // Arrow Java alone would read the name "a"
    byte[] message = m.encapsulated();
    TableCacheException e =
        assertThrows(TableCacheException.class, () -> SchemaCodec.decode(message, 0, message.length));
    assertEquals(Kind.CORRUPT_FRAME, e.kind());
    assertTrue(e.getMessage().contains("zero terminator"), e.getMessage());
  }
}
