package dev.tablecache.jni;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Batches;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.format.TestFrames;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** The by-address description of a batch, checked without the native library. */
class BatchExporterTest {

  static int[] layout(List<Field> fields) {
    int[] c = new int[2];
    for (Field f : fields) {
      count(f, c);
    }
    return c;
  }

  private static void count(Field f, int[] c) {
    c[0]++;
    c[1] += TypeLayout.getTypeBufferCount(f.getType());
    f.getChildren().forEach(ch -> count(ch, c));
  }

  @Test
  void describesEveryNodeAndBuffer() {
    try (BufferAllocator a = new RootAllocator()) {
      try (VectorSchemaRoot root = Batches.allTypes(a)) {
        int[] expected = layout(root.getSchema().getFields());
        try (BatchExporter.Exported e = BatchExporter.export(root)) {
          assertEquals(Batches.ROWS, e.rowCount);
          assertEquals(2 * expected[0], e.nodes.length);
          assertEquals(2 * expected[1], e.buffers.length);
          assertEquals(Batches.ROWS, e.nodes[0]); // top-level length
          for (int i = 0; i < e.buffers.length; i += 2) {
            assertTrue(e.buffers[i + 1] >= 0);
            assertEquals(e.buffers[i + 1] == 0, e.buffers[i] == 0, "address 0 exactly when size 0");
          }
          assertArrayEquals(TestFrames.schemaMessage(root.getSchema()), e.schema);
          try (BatchExporter.Exported again = BatchExporter.export(root)) {
            assertSame(e.schema, again.schema, "schema bytes are cached");
          }
        }
      }
      assertEquals(0, a.getAllocatedMemory(), "the unloader's references are dropped on close");
    }
  }

  @Test
  void refusesDictionaryEncodedFields() {
    try (BufferAllocator a = new RootAllocator()) {
      Field f = new Field("d", new FieldType(true, new ArrowType.Int(32, true), new DictionaryEncoding(1, false, null)), null);
      try (IntVector v = new IntVector(f, a)) {
        VectorSchemaRoot root = new VectorSchemaRoot(Collections.singletonList(f), Collections.singletonList(v), 0);
        assertKind(Kind.UNSUPPORTED_TYPE, () -> BatchExporter.export(root));
      }
    }
  }

  @Test
  void nullBatchIsInvalid() {
    assertKind(Kind.INVALID_ARGUMENT, () -> BatchExporter.export(null));
  }
}
