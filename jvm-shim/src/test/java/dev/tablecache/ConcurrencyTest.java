package dev.tablecache;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/** 8 threads × 1,000 round trips: no errors, and live native allocations back to baseline. */
class ConcurrencyTest extends NativeTestBase {

  static final int THREADS = 8;
  static final int ROUND_TRIPS = 1000;

  @Test
  void eightThreadsThousandRoundTripsEach() throws Exception {
    long baseHandles = liveHandles();
    long baseBytes = liveBytes();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Long>> results = new ArrayList<>();
    Codec[] codecs = Codec.values();
    CacheFormat[] formats = CacheFormat.values();
    for (int t = 0; t < THREADS; t++) {
      final int thread = t;
      results.add(
          pool.submit(
              () -> {
                start.await();
                long checked = 0;
                try (BufferAllocator mine = allocator.newChildAllocator("t" + thread, 0, Long.MAX_VALUE)) {
                  for (int i = 0; i < ROUND_TRIPS; i++) {
                    int seed = thread * ROUND_TRIPS + i;
                    WriteOptions o =
                        WriteOptions.builder()
                            .preferredFormat(formats[i % formats.length])
                            .codec(codecs[(i / 3) % codecs.length])
                            .build();
                    try (VectorSchemaRoot in = Batches.small(mine, 16 + i % 50, seed)) {
                      byte[] frame = TableCache.serialize(in, o);
                      int[] projection = i % 2 == 0 ? null : new int[] {2, 0};
                      try (VectorSchemaRoot out = TableCache.deserialize(frame, projection, mine)) {
                        BigIntVector id = (BigIntVector) out.getVector("i64");
                        assertEquals(in.getRowCount(), out.getRowCount());
                        assertEquals((long) seed * 1000, id.get(0));
                        assertEquals(
                            Canonical.column(in.getVector("f64")), Canonical.column(out.getVector("f64")));
                        if (projection == null) {
                          assertEquals(Canonical.root(in), Canonical.root(out));
                        }
                        checked++;
                      }
                    }
                  }
                }
                return checked;
              }));
    }
    start.countDown();
    long total = 0;
    for (Future<Long> f : results) {
      total += f.get(10, TimeUnit.MINUTES); // rethrows any assertion failure of a worker
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));
    assertEquals((long) THREADS * ROUND_TRIPS, total);
    assertEquals(baseHandles, liveHandles(), "live native handles grew");
    assertEquals(baseBytes, liveBytes(), "live native bytes grew");
  }
}
