package dev.tablecache.jni;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Batches;
import dev.tablecache.Java8;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.WriteOptions;
import dev.tablecache.format.FrameParser;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
    long[] descriptor = NativeCodec.deserializeProjected(frame, null, false);
    assertEquals(base + 3, liveHandles());
    Schema wrong = new Schema(java.util.Arrays.asList(Batches.STRUCT, Batches.I64, Batches.MAP));
    // The schema disagrees with what the native decoder read: a damaged frame, not a bug.
    assertKind(Kind.CORRUPT_FRAME, () -> BatchImporter.importBatch(descriptor, wrong, null, allocator));
    assertEquals(base, liveHandles());
  }

  @Test
  void truncatedDescriptorReleasesTheHandlesItNames() {
    byte[] frame = frame();
    long base = liveHandles();
    long[] descriptor = NativeCodec.deserializeProjected(frame, new int[] {0}, false);
    long[] cut = java.util.Arrays.copyOf(descriptor, descriptor.length - 1);
    assertKind(Kind.INTERNAL, () -> BatchImporter.importBatch(cut, FrameParser.parse(frame).schema(), new int[] {0}, allocator));
    assertEquals(base, liveHandles());
  }

  @Test
  void releasingTwiceIsAnErrorNotACrash() {
    byte[] frame = frame();
    long[] d = NativeCodec.deserializeProjected(frame, new int[] {0}, false);
    long handle = d[2];
    NativeCodec.release(handle);
    assertKind(Kind.INVALID_ARGUMENT, () -> NativeCodec.release(handle));
  }

  /**
   * Several threads release the same columns at once, round after round: each column is freed
   * exactly once (a second native free would throw INVALID_ARGUMENT) and no call throws. The test
   * thread races too, and the helpers stay alive across rounds spinning on a shared round
   * number, so that all reach the same column as close together as the cores allow.
   */
  @Test
  void racedReleaseFreesEachColumnOnceAndNeverThrows() throws Exception {
    byte[] frame = frame();
    long base = liveHandles();
    int helpers = Math.max(1, Math.min(3, Runtime.getRuntime().availableProcessors() - 1));
    int rounds = 1000;
    AtomicReferenceArray<NativeColumn[]> work = new AtomicReferenceArray<>(rounds);
    AtomicInteger round = new AtomicInteger(-1);
    AtomicInteger done = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> racers = new ArrayList<>();
    for (int t = 0; t < helpers; t++) {
      boolean reverse = t % 2 == 0; // the test thread goes forward
      Thread racer =
          new Thread(
              () -> {
                for (int r = 0; r < rounds; r++) {
                  for (int spins = 0; round.get() < r; spins++) {
                    pause(spins);
                  }
                  NativeColumn[] columns = work.get(r);
                  if (columns == null) {
                    return; // the test stopped early
                  }
                  releaseEach(columns, reverse, r, failures);
                  done.incrementAndGet();
                }
              });
      racer.setDaemon(true);
      racer.start();
      racers.add(racer);
    }
    try {
      for (int r = 0; r < rounds; r++) {
        NativeColumn[] columns = TableCache.deserializeColumns(frame, new int[] {0, 1, 2});
        assertEquals(base + 3, liveHandles());
        work.set(r, columns);
        round.set(r); // go
        releaseEach(columns, false, r, failures);
        for (int spins = 0; done.get() < (r + 1) * helpers; spins++) {
          pause(spins);
        }
        assertEquals(base, liveHandles(), "round " + r + ": every handle freed");
        columns[0].release(); // later calls still do nothing
      }
    } finally {
      round.set(Integer.MAX_VALUE); // lets the helpers of an unfinished test run out
      for (Thread racer : racers) {
        racer.join();
      }
    }
    assertTrue(failures.isEmpty(), () -> failures.size() + " failed releases, first: " + failures.peek());
  }

  /** Spins while the other threads are likely running, then lets a descheduled one run. */
  private static void pause(int spins) {
    if (spins < 10_000) {
      Java8.onSpinWait();
    } else {
      Thread.yield();
    }
  }

  private static void releaseEach(
      NativeColumn[] columns, boolean reverse, int round, ConcurrentLinkedQueue<Throwable> failures) {
    try {
      for (int i = 0; i < columns.length; i++) {
        columns[reverse ? columns.length - 1 - i : i].release();
      }
    } catch (Throwable e) {
      failures.add(new AssertionError("round " + round, e));
    }
  }

  /** A failing release among several does not leak the others: all are released, then it throws. */
  @Test
  void releaseAllReleasesEveryColumnAndThenRethrowsTheFirstFailure() {
    byte[] frame = frame();
    long base = liveHandles();
    NativeColumn[] columns = TableCache.deserializeColumns(frame, new int[] {0, 1, 2});
    NativeColumn forged = new NativeColumn(columns[0].field, 0, 0, new long[0], -1L, false);
    NativeColumn forged2 = new NativeColumn(columns[0].field, 0, 0, new long[0], -2L, false);
    TableCacheException e =
        assertKind(
            Kind.INVALID_ARGUMENT,
            () -> NativeColumn.releaseAll(columns[0], forged, columns[1], null, forged2, columns[2]));
    assertTrue(e.getMessage().contains("handle -1"), e.getMessage());
    assertEquals(1, e.getSuppressed().length, "the second failure is kept too");
    assertEquals(base, liveHandles(), "the columns after the failure are released too");
    NativeColumn.releaseAll(columns); // already released: nothing to do
  }
}
