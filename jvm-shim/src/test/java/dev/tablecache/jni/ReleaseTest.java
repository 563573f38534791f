package dev.tablecache.jni;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Batches;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.WriteOptions;
import dev.tablecache.format.FrameParser;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;

/** Native memory is freed exactly when the Java vectors let go of it, on every path. */
class ReleaseTest extends NativeTestBase {

  private byte[] frame() {
    try (VectorSchemaRoot in = Batches.small(allocator, 100, 3)) {
      return TableCache.serialize(in, WriteOptions.defaults());
    }
  }

  @Test
  void handlesGoToZeroExactlyWhenVectorsClose() {
    byte[] frame = frame();
    long base = liveHandles();
    VectorSchemaRoot out = TableCache.deserialize(frame, null, allocator);
    assertEquals(base + 3, liveHandles(), "one handle per decoded column");
    assertTrue(liveBytes() > 0);
    out.getVector(1).close();
    assertEquals(base + 2, liveHandles());
    out.getVector(0).close();
    assertEquals(base + 1, liveHandles());
    out.close();
    assertEquals(base, liveHandles());
  }

  @Test
  void aRetainedBufferKeepsItsColumnAlive() {
    byte[] frame = frame();
    long base = liveHandles();
    VectorSchemaRoot out = TableCache.deserialize(frame, new int[] {1}, allocator);
    FieldVector strings = out.getVector(0);
    ArrowBuf values = strings.getDataBuffer();
    values.getReferenceManager().retain();
    out.close();
    assertEquals(base + 1, liveHandles(), "a live buffer must pin its column");
    assertEquals('s', (char) values.getByte(0)); // still readable
    values.getReferenceManager().release();
    assertEquals(base, liveHandles());
  }

  @Test
  void transferToAnotherAllocatorKeepsOwnership() {
    byte[] frame = frame();
    long base = liveHandles();
    try (BufferAllocator other = allocator.newChildAllocator("other", 0, Long.MAX_VALUE)) {
      FieldVector moved;
      try (VectorSchemaRoot out = TableCache.deserialize(frame, new int[] {0}, allocator)) {
        TransferPair tp = out.getVector(0).getTransferPair(other);
        tp.transfer();
        moved = (FieldVector) tp.getTo();
      }
      assertEquals(base + 1, liveHandles());
      assertEquals(3000L, ((org.apache.arrow.vector.BigIntVector) moved).get(0));
      moved.close();
      assertEquals(base, liveHandles());
    }
  }

  @Test
  void zeroRowColumnsHoldNoHandles() {
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 0)) {
      byte[] frame = TableCache.serialize(in, WriteOptions.defaults());
      long base = liveHandles();
      try (VectorSchemaRoot out = TableCache.deserialize(frame, null, allocator)) {
        assertEquals(0, out.getRowCount());
        assertTrue(liveHandles() - base <= in.getFieldVectors().size());
      }
      assertEquals(base, liveHandles());
    }
  }

  @Test
  void allocatorLimitFailureReleasesEverything() {
    byte[] frame;
    try (VectorSchemaRoot in = Batches.allTypes(allocator, 500)) {
      frame = TableCache.serialize(in, WriteOptions.defaults());
    }
    long base = liveHandles();
    for (long limit : new long[] {0, 64, 1024, 8192}) {
      try (BufferAllocator tiny = allocator.newChildAllocator("tiny", 0, limit)) {
        assertThrows(RuntimeException.class, () -> TableCache.deserialize(frame, null, tiny));
        assertEquals(0, tiny.getAllocatedMemory());
      }
      assertEquals(base, liveHandles(), "handles leaked after a failure at limit " + limit);
    }
  }

  @Test
  void descriptorThatDisagreesWithTheSchemaReleasesHandles() {
    byte[] frame = frame();
    long base = liveHandles();
    long[] descriptor = NativeCodec.deserializeProjected(frame, null);
    assertEquals(base + 3, liveHandles());
    Schema wrong = new Schema(java.util.List.of(Batches.STRUCT, Batches.I64, Batches.MAP));
    // The schema disagrees with what the native decoder read: a damaged frame, not a bug.
    assertKind(Kind.CORRUPT_FRAME, () -> BatchImporter.importBatch(descriptor, wrong, null, allocator));
    assertEquals(base, liveHandles());
  }

  @Test
  void truncatedDescriptorReleasesTheHandlesItNames() {
    byte[] frame = frame();
    long base = liveHandles();
    long[] descriptor = NativeCodec.deserializeProjected(frame, new int[] {0});
    long[] cut = java.util.Arrays.copyOf(descriptor, descriptor.length - 1);
    assertKind(Kind.INTERNAL, () -> BatchImporter.importBatch(cut, FrameParser.parse(frame).schema(), new int[] {0}, allocator));
    assertEquals(base, liveHandles());
  }

  @Test
  void releasingTwiceIsAnErrorNotACrash() {
    byte[] frame = frame();
    long[] d = NativeCodec.deserializeProjected(frame, new int[] {0});
    long handle = d[2];
    NativeCodec.release(handle);
    assertKind(Kind.INVALID_ARGUMENT, () -> NativeCodec.release(handle));
  }
}
