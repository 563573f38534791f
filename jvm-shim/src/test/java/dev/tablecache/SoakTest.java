package dev.tablecache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.jni.NativeCodec;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Serialize/deserialize cycles through the facade, rotating formats, codecs, stats, batch shapes
 * and projections, everything released each cycle. Memory is sampled after a warm-up and must stay
 * flat: native handles and their bytes exactly, jemalloc's allocated bytes within a small
 * tolerance, and the process RSS must not grow over the last three quarters of the run (the JVM
 * grows it on its own at first, see {@link #reference}). The
 * report table goes to stdout and target/soak-report.txt. Timings are reported, never asserted.
 */
class SoakTest extends NativeTestBase {

  static final long CYCLES = TestScale.pick(20_000L, 1_000_000L);
  static final long WARMUP = TestScale.pick(2_000L, 20_000L);
  static final int SAMPLES = 40; // a multiple of 4, so the 25% point is a sample
  /** Young collections the heap size must hold before the warm-up counts as settled. */
  static final int SETTLE_GCS = 4;
  /** Cycles RSS needs to follow heap growth (observed: about 3,000 cycles for +149 MiB). */
  static final long TOUCH_CYCLES = 4_000;

  static final long MIB = 1L << 20;
  /** jemalloc allocated bytes may differ by what its caches and the schema cache happen to hold. */
  static final long ALLOCATED_TOLERANCE = 4 * MIB;
  /**
   * RSS growth allowed from the 25% sample (see {@link #reference}) to the end. Full size: 750,000
   * cycles lie in between, so a leak of 100 bytes per cycle adds 75 MB (71.5 MiB) and fails a 48
   * MiB bound, which still leaves room for the JVM's own drift (a full run grows by under 1 MiB).
   * Smoke size: 15,000 cycles, and after a late G1 heap resize RSS creeps by about 1 MiB per 1,000
   * cycles while old regions get touched (+11 MiB seen), so 32 MiB: it fails any leak of 2.2 KB
   * per cycle, less than one leaked decoded batch. Native leaks are caught far more finely by
   * {@link #ALLOCATED_TOLERANCE} (4 MiB: about 200 bytes per cycle at smoke size, 4 at full).
   */
  static final long RSS_GROWTH_BOUND = TestScale.pick(32 * MIB, 48 * MIB);

  /** One measurement (a class, not a record: the 3.5 line's tests compile at release 8). */
  static final class Sample {
    private final long cycle;
    private final double seconds;
    private final long handles;
    private final long heldBytes;
    private final long allocated;
    private final long resident;
    private final long rss;
    private final long javaAllocator;
    private final long heapCommitted;
    private final long nonHeapCommitted;

    Sample(long cycle, double seconds, long handles, long heldBytes, long allocated, long resident, long rss,
        long javaAllocator, long heapCommitted, long nonHeapCommitted) {
      this.cycle = cycle;
      this.seconds = seconds;
      this.handles = handles;
      this.heldBytes = heldBytes;
      this.allocated = allocated;
      this.resident = resident;
      this.rss = rss;
      this.javaAllocator = javaAllocator;
      this.heapCommitted = heapCommitted;
      this.nonHeapCommitted = nonHeapCommitted;
    }

    long cycle() {
      return cycle;
    }

    double seconds() {
      return seconds;
    }

    long handles() {
      return handles;
    }

    long heldBytes() {
      return heldBytes;
    }

    long allocated() {
      return allocated;
    }

    long resident() {
      return resident;
    }

    long rss() {
      return rss;
    }

    long javaAllocator() {
      return javaAllocator;
    }

    long heapCommitted() {
      return heapCommitted;
    }

    static Sample take(long cycle, double seconds, BufferAllocator a) {
      long[] s = NativeCodec.allocationStats();
      return new Sample(cycle, seconds, s[0], s[1], s[2], s[3], vmRss(), a.getAllocatedMemory(),
          Runtime.getRuntime().totalMemory(),
          ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getCommitted());
    }

    String row() {
      return String.format("%10d %8.1f %8d %9s %13s %13s %8s %9s %9s %9s", cycle, seconds, handles,
          Reports.mib(heldBytes), Reports.mib(allocated), Reports.mib(resident), Reports.mib(rss),
          Reports.mib(javaAllocator), Reports.mib(heapCommitted), Reports.mib(nonHeapCommitted));
    }
  }

  static final String HEADER = String.format("%10s %8s %8s %9s %13s %13s %8s %9s %9s %9s", "cycle", "seconds",
      "handles", "held MiB", "allocated MiB", "resident MiB", "RSS MiB", "java MiB", "heap MiB", "non-heap");

  /** The process's resident set size from /proc/self/status (VmRSS), in bytes; -1 if unknown. */
  static long vmRss() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux: reported as n/a, and the RSS bound is skipped
    }
    return -1;
  }

  @Test
  void cyclesKeepNativeAndProcessMemoryFlat() throws IOException {
    RoundTrips w = new RoundTrips(allocator);
    StringBuilder trace = new StringBuilder();
    long warmup = warmUp(w, trace);
    long t0 = System.nanoTime();
    List<Sample> samples = new ArrayList<>();
    samples.add(Sample.take(0, 0, allocator));
    long every = CYCLES / SAMPLES;
    for (long i = 1; i <= CYCLES; i++) {
      w.cycle(warmup + i);
      if (i % every == 0) {
        samples.add(Sample.take(i, (System.nanoTime() - t0) / 1e9, allocator));
      }
    }
    Sample base = samples.get(0);
    Sample from = reference(samples);
    Sample end = samples.get(samples.size() - 1);
    report(samples, base, from, end, w, warmup, trace);

    assertEquals(base.handles(), end.handles(), "live native column handles");
    assertEquals(base.heldBytes(), end.heldBytes(), "bytes held by live handles");
    assertEquals(base.javaAllocator(), end.javaAllocator(), "Java allocator bytes");
    if (base.allocated() >= 0) {
      long drift = end.allocated() - base.allocated();
      assertTrue(Math.abs(drift) <= ALLOCATED_TOLERANCE,
          "jemalloc allocated moved by " + drift + " bytes over " + CYCLES + " cycles");
    }
    if (from.rss() > 0) {
      long growth = rssGrowth(from, end);
      assertTrue(growth < RSS_GROWTH_BOUND,
          "RSS grew by " + growth / MIB + " MiB from cycle " + from.cycle() + " to " + end.cycle());
    }
  }

  /**
   * The sample RSS growth is measured from: the 25% one, or, if the JVM grew its heap later, the
   * first sample {@link #TOUCH_CYCLES} after that. G1 may still grow the heap (within -Xmx) after
   * the warm-up, and RSS then follows for a few thousand cycles while the new regions get
   * touched: the JVM's own bounded memory, not a leak.
   */
  static Sample reference(List<Sample> samples) {
    long after = samples.get(SAMPLES / 4).cycle();
    for (int k = 1; k < samples.size(); k++) {
      if (samples.get(k).heapCommitted() > samples.get(k - 1).heapCommitted()) {
        after = Math.max(after, samples.get(k).cycle() + TOUCH_CYCLES);
      }
    }
    for (Sample x : samples) {
      if (x.cycle() >= after) {
        return x;
      }
    }
    return samples.get(samples.size() - 1);
  }

  /**
   * RSS growth from {@code a} to {@code b}. Heap the JVM gave back in between (G1 shrinks a heap
   * that earlier suites in the same JVM grew) counts as still resident, so it cannot hide a leak.
   */
  static long rssGrowth(Sample a, Sample b) {
    return b.rss() - a.rss() + Math.max(0, a.heapCommitted() - b.heapCommitted());
  }

  /**
   * Runs at least {@link #WARMUP} cycles, then on until the JVM has settled: G1 sizes its heap
   * from the GC time of its recent collections, and touching the new regions moves RSS by 100+
   * MiB over the next few thousand cycles. Settled = the committed heap held over the last
   * {@link #SETTLE_GCS} young collections and RSS rose less than 1 MiB over the last 1,000
   * cycles. Returns the cycles run; {@code trace} gets one line per 1,000 cycles.
   */
  private static long warmUp(RoundTrips w, StringBuilder trace) {
    long cap = TestScale.pick(30_000L, 200_000L);
    long heap = Runtime.getRuntime().totalMemory();
    long gcsAtHeapChange = collections();
    long rss = vmRss();
    long i = 0;
    while (i < cap) {
      for (int k = 0; k < 1_000; k++) {
        w.cycle(i++);
      }
      long h = Runtime.getRuntime().totalMemory();
      long r = vmRss();
      if (h != heap) {
        heap = h;
        gcsAtHeapChange = collections();
      }
      trace.append(String.format("  warm-up %6d cycles: %4d GCs, heap %s MiB, RSS %s MiB%n", i, collections(),
          Reports.mib(h), Reports.mib(r)));
      boolean settled = i >= WARMUP && collections() - gcsAtHeapChange >= SETTLE_GCS && r - rss < MIB;
      rss = r;
      if (settled) {
        break;
      }
    }
    return i;
  }

  private static long collections() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionCount)
        .filter(n -> n > 0)
        .sum();
  }

  private static void report(List<Sample> samples, Sample base, Sample from, Sample end, RoundTrips w,
      long warmup, StringBuilder trace) throws IOException {
    StringBuilder s = new StringBuilder();
    s.append(String.format("Soak: scale %s, %d cycles after %d warm-up cycles (at least %d), %d values checked%n",
        TestScale.name(), CYCLES, warmup, WARMUP, w.checkedValues));
    s.append(HEADER).append('\n');
    samples.forEach(x -> s.append(x.row()).append('\n'));
    s.append(String.format("%nbaseline -> end: handles %d -> %d, held %d -> %d bytes, jemalloc allocated %s -> %s MiB"
            + " (%+d bytes, tolerance %d MiB), resident %s -> %s MiB, RSS %s -> %s MiB%n",
        base.handles(), end.handles(), base.heldBytes(), end.heldBytes(), Reports.mib(base.allocated()),
        Reports.mib(end.allocated()), end.allocated() - base.allocated(), ALLOCATED_TOLERANCE / MIB,
        Reports.mib(base.resident()), Reports.mib(end.resident()), Reports.mib(base.rss()), Reports.mib(end.rss())));
    s.append(String.format("RSS from cycle %d (the 25%% sample is %d; later only after heap growth) to the end:"
            + " %+.1f MiB, %+.1f MiB counting heap given back as resident (bound %d MiB)%n",
        from.cycle(), samples.get(SAMPLES / 4).cycle(), (end.rss() - from.rss()) / (double) MIB,
        rssGrowth(from, end) / (double) MIB, RSS_GROWTH_BOUND / MIB));
    s.append(String.format("throughput: %.0f cycles/s%n%n", CYCLES / end.seconds()));
    s.append(trace);
    Reports.publish("soak-report.txt", s.toString());
  }
}
