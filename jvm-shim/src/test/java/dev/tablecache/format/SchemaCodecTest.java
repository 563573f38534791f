package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Batches;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Schema messages both ways, and the decode cache. */
class SchemaCodecTest {

  @Test
  void schemaCodecRoundTrip() {
    Schema s = new Schema(Batches.ALL_FIELDS);
    byte[] b = SchemaCodec.encode(s);
    assertEquals(s, SchemaCodec.decode(b, 0, b.length));
    assertSame(SchemaCodec.decode(b, 0, b.length), SchemaCodec.decode(b.clone(), 0, b.length));
  }
}
