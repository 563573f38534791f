package dev.tablecache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tablecache.jni.Capability;
import dev.tablecache.jni.NativeCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * 16 threads mix serialize, projected deserialize (random projections, values checked against
 * the input) and capability probes for a fixed time, after the same mix on 1 thread for the same
 * time. Frames written by one thread are decoded by others. Asserts 0 errors and live native
 * handles back to baseline after each phase; throughput is only reported (1 vs 16 threads).
 */
class Concurrency16Test extends NativeTestBase {

  static final Duration DURATION = Duration.ofSeconds(TestScale.pick(5, 60));
  static final Duration WARM_UP = Duration.ofSeconds(TestScale.pick(3, 10));
  static final int THREADS = 16;
  static final int MAX_REPORTED = 10;

  /** A frame any thread may decode, with its input's canonical values and column names. */
  static final class Written {
    private final byte[] frame;
    private final List<String> names;
    private final int rows;
    private final ObjectNode values;

    Written(byte[] frame, List<String> names, int rows, ObjectNode values) {
      this.frame = frame;
      this.names = names;
      this.rows = rows;
      this.values = values;
    }

    byte[] frame() {
      return frame;
    }

    List<String> names() {
      return names;
    }

    int rows() {
      return rows;
    }

    ObjectNode values() {
      return values;
    }
  }

  /** What one phase did. */
  static final class Phase {
    final int threads;
    long serializes;
    long deserializes;
    long probes;
    long errors;
    double seconds;
    final List<String> firstErrors = new ArrayList<>();

    Phase(int threads) {
      this.threads = threads;
    }

    long ops() {
      return serializes + deserializes + probes;
    }

    double opsPerSecond() {
      return ops() / seconds;
    }

    synchronized void add(Phase worker) {
      serializes += worker.serializes;
      deserializes += worker.deserializes;
      probes += worker.probes;
      errors += worker.errors;
      for (String e : worker.firstErrors) {
        if (firstErrors.size() < MAX_REPORTED) {
          firstErrors.add(e);
        }
      }
    }
  }

  @Test
  void sixteenThreadsMixWithoutErrorsOrLeaks() throws Exception {
    List<Written> pool = new ArrayList<>();
    Random rnd = new Random(16);
    for (int i = 0; i < 48; i++) {
      pool.add(write(allocator, rnd, i)); // every format, codec and shape, before any thread runs
    }
    long handles = liveHandles();
    // Unreported warm-up, so the 1-thread phase does not pay for JIT compilation the 16-thread one
    // then gets for free; its errors count like any other.
    Phase warmUp = run(2, pool, WARM_UP);
    Phase one = run(1, pool, DURATION);
    assertEquals(handles, liveHandles(), "live native handles after the 1-thread phase");
    Phase sixteen = run(THREADS, pool, DURATION);
    assertEquals(handles, liveHandles(), "live native handles after the 16-thread phase");
    report(one, sixteen);
    assertEquals(0, warmUp.errors, "errors during the warm-up: " + warmUp.firstErrors);
    assertEquals(0, one.errors, "errors with 1 thread: " + one.firstErrors);
    assertEquals(0, sixteen.errors, "errors with 16 threads: " + sixteen.firstErrors);
  }

  private Phase run(int threads, List<Written> pool, Duration duration) throws Exception {
    Phase total = new Phase(threads);
    // Frames written during this phase, decoded by whichever thread picks the slot next.
    AtomicReferenceArray<Written> recent = new AtomicReferenceArray<>(64);
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Phase>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(executor.submit(() -> {
        start.await();
        return work(id, threads, System.nanoTime() + duration.toNanos(), pool, recent);
      }));
    }
    long t0 = System.nanoTime();
    start.countDown();
    for (Future<Phase> f : futures) {
      total.add(f.get(duration.getSeconds() + 300, TimeUnit.SECONDS));
    }
    total.seconds = (System.nanoTime() - t0) / 1e9;
    executor.shutdown();
    executor.awaitTermination(1, TimeUnit.MINUTES);
    return total;
  }

  private Phase work(int id, int threads, long deadline, List<Written> pool, AtomicReferenceArray<Written> recent) {
    Phase mine = new Phase(1);
    Random rnd = new Random(1000L * threads + id);
    try (BufferAllocator a = allocator.newChildAllocator("t" + id, 0, Long.MAX_VALUE)) {
      while (System.nanoTime() < deadline) {
        int op = rnd.nextInt(10);
        try {
          if (op < 3) {
            recent.set(rnd.nextInt(recent.length()), write(a, rnd, rnd.nextInt(1 << 20)));
            mine.serializes++;
          } else if (op < 9) {
            Written w = rnd.nextBoolean() ? recent.get(rnd.nextInt(recent.length())) : null;
            decodeAndCheck(a, w != null ? w : pool.get(rnd.nextInt(pool.size())), rnd);
            mine.deserializes++;
          } else {
            probe();
            mine.probes++;
          }
        } catch (RuntimeException | Error e) {
          mine.errors++;
          if (mine.firstErrors.size() < MAX_REPORTED) {
            mine.firstErrors.add("thread " + id + ": " + e);
          }
        }
      }
    } catch (RuntimeException e) {
      // closing the child allocator throws when a buffer is still open: a leak
      mine.errors++;
      mine.firstErrors.add("thread " + id + " allocator: " + e);
    }
    return mine;
  }

  /** Builds a batch, writes it with random options, keeps the frame and the input's values. */
  private static Written write(BufferAllocator a, Random rnd, int seed) {
    WriteOptions o = WriteOptions.builder()
        .preferredFormat(CacheFormat.values()[rnd.nextInt(CacheFormat.values().length)])
        .codec(Codec.values()[rnd.nextInt(4)])
        .stats(rnd.nextBoolean())
        .build();
    try (VectorSchemaRoot in = rnd.nextInt(8) == 0
        ? Batches.allTypes(a, rnd.nextInt(30))
        : Batches.small(a, 1 + rnd.nextInt(200), seed)) {
      byte[] frame = TableCache.serialize(in, o);
      return new Written(frame, Batches.names(in), in.getRowCount(), Canonical.root(in));
    }
  }

  /** A random projection (sometimes null, empty or with a repeated column), decoded and checked. */
  private static void decodeAndCheck(BufferAllocator a, Written w, Random rnd) {
    int n = w.names().size();
    int[] p = null;
    if (rnd.nextInt(8) != 0) {
      p = new int[rnd.nextInt(Math.min(n, 4) + 1)];
      for (int k = 0; k < p.length; k++) {
        p[k] = rnd.nextInt(n);
      }
    }
    int[] cols = p != null ? p : java.util.stream.IntStream.range(0, n).toArray();
    try (VectorSchemaRoot out = TableCache.deserialize(w.frame(), p, a)) {
      String at = "projection " + Arrays.toString(p) + " of " + w.names();
      if (out.getRowCount() != w.rows() || out.getFieldVectors().size() != cols.length) {
        throw new AssertionError(at + ": " + out.getRowCount() + " rows x " + out.getFieldVectors().size() + " columns");
      }
      for (int k = 0; k < cols.length; k++) {
        String name = w.names().get(cols[k]);
        JsonNode want = w.values().get(name);
        if (!name.equals(out.getVector(k).getName()) || !want.equals(Canonical.column(out.getVector(k)))) {
          throw new AssertionError(at + ": column " + k + " ('" + name + "') differs");
        }
      }
    }
  }

  private static void probe() {
    if (!TableCache.isAvailable() || Capability.current() != Capability.V4 || Capability.peek() != Capability.V4
        || NativeCodec.capabilities() != 4 || NativeCodec.allocationStats().length != 4) {
      throw new AssertionError("capability probe changed: " + Capability.current() + " / " + NativeCodec.capabilities());
    }
  }

  private static void report(Phase one, Phase sixteen) throws IOException {
    StringBuilder s = new StringBuilder();
    s.append(String.format("Concurrency16: scale %s, %d s per phase after a %d s warm-up%n", TestScale.name(),
        DURATION.getSeconds(), WARM_UP.getSeconds()));
    s.append(String.format("%8s %10s %12s %14s %10s %8s %10s%n",
        "threads", "ops", "serialize", "deserialize", "probe", "errors", "ops/s"));
    for (Phase p : Arrays.asList(one, sixteen)) {
      s.append(String.format("%8d %10d %12d %14d %10d %8d %10.0f%n",
          p.threads, p.ops(), p.serializes, p.deserializes, p.probes, p.errors, p.opsPerSecond()));
    }
    s.append(String.format("16 vs 1 thread: %.2fx throughput (%d cores available; report only)%n",
        sixteen.opsPerSecond() / one.opsPerSecond(), Runtime.getRuntime().availableProcessors()));
    Reports.publish("concurrency16-report.txt", s.toString());
  }
}
