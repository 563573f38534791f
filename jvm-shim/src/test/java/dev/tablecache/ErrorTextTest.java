package dev.tablecache;

import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.format.SchemaCodecAccess;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Names quoted in messages are cut to 64 UTF-8 bytes on a character boundary. */
class ErrorTextTest {

  static String longName(String prefix, char fill) {
    StringBuilder b = new StringBuilder(prefix);
    while (b.toString().getBytes(StandardCharsets.UTF_8).length < 60_000) {
      b.append(fill);
    }
    return b.toString();
  }

  @Test
  void shortNamesAreUnchanged() {
    assertEquals("price", ErrorText.name("price"));
    String exactly = Java8.repeat("x", 64);
    assertEquals(exactly, ErrorText.name(exactly));
    assertEquals(exactly, ErrorText.name(ByteBuffer.wrap(exactly.getBytes(StandardCharsets.UTF_8))));
    assertEquals("struct<a:int,b:string>", ErrorText.text("struct<a:int,b:string>"));
  }

  @Test
  void longNamesAreCutWithTheCount() {
    String name = "prefix_" + Java8.repeat("y", 60_000);
    String q = ErrorText.name(name);
    assertEquals("prefix_" + Java8.repeat("y", 57) + "…(+" + (name.length() - 64) + " bytes)", q);
    assertEquals(q, ErrorText.name(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void multibyteNamesAreCutOnABoundary() {
    String name = Java8.repeat("a", 63) + "é" + Java8.repeat("€", 1000);
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    String expected = Java8.repeat("a", 63) + "…(+" + (bytes - 63) + " bytes)";
    assertEquals(expected, ErrorText.name(name));
    assertEquals(expected, ErrorText.name(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8))));
    String emoji = Java8.repeat("😀", 100); // 4 bytes each, a surrogate pair in Java: 16 fit
    assertEquals(Java8.repeat("😀", 16) + "…(+336 bytes)", ErrorText.name(emoji));
  }

  @Test
  void textCutsEachLongRunAndTheWhole() {
    String name = Java8.repeat("n", 60_000);
    assertEquals(
        "struct<" + Java8.repeat("n", 64) + "…(+59936 bytes):int>",
        ErrorText.text("struct<" + name + ":int>"));
    String many = Java8.repeat("word ", 1_000);
    String t = ErrorText.text(many);
    assertTrue(t.length() < ErrorText.MAX_TEXT_BYTES + 32 && t.endsWith(" bytes)"), t);
    String once = ErrorText.name(name);
    assertEquals(once, ErrorText.text(once), "cut text is not cut again");
  }

  @Test
  void aBadDecimalUnderALongNameFailsWithAShortMessage() {
    String name = longName("dec_col", 'é');
    Field f = new Field(name, FieldType.nullable(new ArrowType.Decimal(50, 2, 128)), null);
    TableCacheException e =
        assertThrows(
            TableCacheException.class,
            () -> SchemaCodecAccess.roundTrip(new Schema(Collections.singletonList(f))));
    String m = e.getMessage();
    assertTrue(m.length() < 300, m.length() + " chars: " + m);
    String kept = "dec_col" + Java8.repeat("é", 28); // 63 bytes
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    assertTrue(m.contains(kept + "…(+" + (bytes - 63) + " bytes)"), m);
  }

  @Test
  void aRejectedTypeUnderALongPathNamesEachSegmentBriefly() {
    String outer = longName("outer_", 'o');
    String inner = longName("inner_", 'i');
    Field union =
        new Field(
            inner,
            FieldType.nullable(
                new ArrowType.Union(org.apache.arrow.vector.types.UnionMode.Sparse, new int[] {0})),
            Collections.singletonList(
                new Field("u", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    Field struct =
        new Field(outer, FieldType.nullable(ArrowType.Struct.INSTANCE), Collections.singletonList(union));
    TableCacheException e =
        assertThrows(
            TableCacheException.class,
            () -> SchemaCodecAccess.roundTrip(new Schema(Collections.singletonList(struct))));
    String m = e.getMessage();
    assertTrue(m.length() < 400, m.length() + " chars: " + m);
    assertTrue(m.contains("outer_ooo") && m.contains("inner_iii"), m);
    assertTrue(m.contains("…(+" + (60_000 - 64) + " bytes)"), m);
  }
}
