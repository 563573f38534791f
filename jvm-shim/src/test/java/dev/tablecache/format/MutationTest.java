package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tablecache.CacheFormat;
import dev.tablecache.Canonical;
import dev.tablecache.GoldenParityTest;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.TestScale;
import dev.tablecache.format.Mutation.Expect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * JNI mutation suite: every golden frame, damaged in seeded and reproducible ways (bit flips, byte
 * swaps, truncations, wrong version/flags, inflated length and count fields, another frame's
 * schema), decoded through the real library with several projections. Each decode must fail
 * with the kind FORMAT.md implies for that damage, or give exactly the undamaged decode (or, where
 * no checksum guards the bytes, a structurally valid batch); nothing may crash, hang, exhaust
 * memory or leak a native handle. {@link FrameMutations} holds the rules.
 *
 * <p>Sizes: about 2,000 mutations per frame, 50,000 with TABLECACHE_TEST_SCALE=full. The seed is
 * {@code -Dtablecache.mutation.seed} (default below); a failure names the frame, the mutation and
 * the projection, enough to rebuild the bytes by hand.
 */
@Tag("jvm-independent") // the native decoder's answers: JUnit runs it on Java 17 only
public class MutationTest extends NativeTestBase {

  static final long SEED = Long.getLong("tablecache.mutation.seed", 0x7AB1EC4C4EL);
  static final int BUDGET = TestScale.pick(2_000, 50_000);
  /** Generous: a smoke frame takes a few seconds; this only catches a hang. */
  static final Duration PER_FRAME = Duration.ofSeconds(TestScale.pick(600, 7_200));
  static final int MAX_REPORTED = 20;

  private static final MutationReport REPORT = new MutationReport();

  @TestFactory
  Stream<DynamicTest> everyGoldenFrameSurvivesMutation() throws IOException {
    List<Path> files = GoldenParityTest.goldenFiles();
    Map<String, byte[]> donors = new LinkedHashMap<>();
    for (Path bin : files) {
      byte[] b = Files.readAllBytes(bin);
      String name = bin.getFileName().toString();
      donors.put(name, CacheFormat.detect(b) == CacheFormat.LEGACY
          ? new LegacyLayout(b).schemaSection()
          : new FramedLayout(b).schemaSection());
    }
    return files.stream()
        .map(bin -> DynamicTest.dynamicTest(bin.getFileName().toString(),
            () -> assertTimeoutPreemptively(PER_FRAME, () -> mutate(bin, donors))));
  }

  @AfterAll
  static void printReport() throws IOException {
    REPORT.print(SEED, BUDGET);
  }

  /** The projections every mutation is decoded with: all, first, last, two columns, none. */
  public static List<int[]> projections(int n) {
    List<int[]> out = new ArrayList<>();
    out.add(null);
    out.add(new int[] {0});
    out.add(new int[] {n - 1});
    out.add(n >= 2 ? new int[] {n - 1, n / 2} : new int[] {0, 0});
    out.add(new int[0]);
    return out;
  }

  private void mutate(Path bin, Map<String, byte[]> donors) throws IOException {
    String name = bin.getFileName().toString();
    byte[] frame = Files.readAllBytes(bin);
    long start = System.nanoTime();
    long handles = liveHandles();
    FrameRun run;
    try (BufferAllocator a = allocator.newChildAllocator(name, 0, Long.MAX_VALUE)) {
      run = new FrameRun(name, a, projections(FrameParser.parse(frame).columnCount()));
      run.baseline(frame);
      long seed = SEED ^ name.hashCode();
      new FrameMutations(name, frame, donors, seed, TestScale.full()).generate(BUDGET, run::check);
      assertEquals(0, a.getAllocatedMemory(), "Java memory left allocated");
    }
    assertEquals(handles, liveHandles(), "native column handles leaked");
    run.seconds = (System.nanoTime() - start) / 1e9;
    REPORT.add(run);
    if (!run.violations.isEmpty()) {
      fail(run.violationCount + " bad outcomes for " + name + " (seed " + SEED + "), first ones:\n  "
          + String.join("\n  ", run.violations));
    }
  }

  /** The unmutated decode for one projection. */
  static final class Snapshot {
    private final Schema schema;
    private final int rows;
    private final JsonNode values;

    Snapshot(Schema schema, int rows, JsonNode values) {
      this.schema = schema;
      this.rows = rows;
      this.values = values;
    }

    static Snapshot of(VectorSchemaRoot r) {
      return new Snapshot(r.getSchema(), r.getRowCount(), Canonical.root(r));
    }

    boolean matches(VectorSchemaRoot r) {
      return schema.equals(r.getSchema()) && rows == r.getRowCount() && values.equals(Canonical.root(r));
    }
  }

  /** Decodes the mutations of one frame and tallies outcomes. */
  static final class FrameRun {
    final String name;
    final BufferAllocator allocator;
    final List<int[]> projections;
    final List<Snapshot> baselines = new ArrayList<>();
    final Map<Mutation.Family, Map<String, Long>> outcomes = new LinkedHashMap<>();
    final Map<Mutation.Family, Long> mutations = new LinkedHashMap<>();
    final List<String> violations = new ArrayList<>();
    long violationCount;
    long decodes;
    long slowestNanos;
    String slowest = "";
    double seconds;
    private long handles;

    FrameRun(String name, BufferAllocator allocator, List<int[]> projections) {
      this.name = name;
      this.allocator = allocator;
      this.projections = projections;
    }

    void baseline(byte[] frame) {
      for (int[] p : projections) {
        try (VectorSchemaRoot r = TableCache.deserialize(frame, p, allocator)) {
          String problem = structuralProblem(r, p); // the undamaged decode must pass the check
          if (problem != null) {
            throw new AssertionError(name + " projection " + Arrays.toString(p) + ": " + problem);
          }
          baselines.add(Snapshot.of(r));
        }
      }
      handles = liveHandles();
    }

    void check(Mutation m) {
      mutations.merge(m.family(), 1L, Long::sum);
      for (int i = 0; i < projections.size(); i++) {
        int[] p = projections.get(i);
        Expect e = m.expect().apply(p);
        long t0 = System.nanoTime();
        String outcome = decode(m, p, e, baselines.get(i));
        long t = System.nanoTime() - t0;
        if (t > slowestNanos) {
          slowestNanos = t;
          slowest = m.what() + " projection " + Arrays.toString(p);
        }
        decodes++;
        outcomes.computeIfAbsent(m.family(), k -> new LinkedHashMap<>()).merge(outcome, 1L, Long::sum);
      }
      long live = liveHandles();
      if (live != handles) {
        violation(m, null, "live native handles went from " + handles + " to " + live);
        handles = live;
      }
    }

    /** Decodes once; returns the outcome label and records a violation of {@code e}. */
    private String decode(Mutation m, int[] p, Expect e, Snapshot base) {
      try (VectorSchemaRoot r = TableCache.deserialize(m.bytes(), p, allocator)) {
        boolean same = base.matches(r);
        String label = same ? "decoded = original" : "decoded, different";
        switch (e.decode()) {
          case NEVER:
            violation(m, p, "decoded (" + label + ") but expected " + e);
            break;
          case EQUAL:
            if (!same) {
              violation(m, p, "decoded to different values/schema; expected " + e);
            }
            break;
          case ROWS:
            if (r.getRowCount() != e.rows() || !r.getFieldVectors().isEmpty()) {
              violation(m, p, "decoded " + r.getRowCount() + " rows; expected " + e);
            }
            label = same ? label : "decoded, header row count";
            break;
          default:
            String problem = structuralProblem(r, p);
            if (problem != null) {
              violation(m, p, "decoded to an invalid batch: " + problem);
            }
        }
        return label;
      } catch (TableCacheException x) {
        if (!e.kinds().contains(x.kind())) {
          violation(m, p, "threw " + x.getMessage() + "; expected " + e);
        }
        return x.kind().name();
      } catch (RuntimeException | Error x) {
        // Anything else (an Arrow Java exception, an OutOfMemoryError) is a bug by itself.
        violation(m, p, "threw " + x + "; expected " + e);
        return x.getClass().getSimpleName();
      }
    }

    /**
     * Null when {@code r} is a structurally valid batch: Arrow Java's structural validation
     * (buffer sizes, offsets, type parameters such as decimal precision) passes and every value
     * reads back within bounds.
     */
    static String structuralProblem(VectorSchemaRoot r, int[] p) {
      if (p != null && r.getFieldVectors().size() != p.length) {
        return r.getFieldVectors().size() + " columns for a projection of " + p.length;
      }
      for (FieldVector v : r.getFieldVectors()) {
        try {
          // Arrow Java 18's validator has two gaps of its own: it rejects every Map vector
          // ("Incorrect arrow type") and knows no Float16 width. Those trees are only read back.
          if (!has(v.getField(), FrameRun::validatorGap)) {
            ValueVectorUtility.validate(v);
          }
          for (int i = 0; i < v.getValueCount(); i++) {
            v.getObject(i); // bounds-checked reads of every value, children included
          }
        } catch (RuntimeException x) {
          return "column '" + v.getName() + "' (" + v.getField().getType() + "): " + x;
        }
      }
      return null;
    }

    private static boolean validatorGap(ArrowType t) {
      return t instanceof ArrowType.Map
          || t instanceof ArrowType.FloatingPoint
              && ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.HALF;
    }

    private static boolean has(Field f, java.util.function.Predicate<ArrowType> p) {
      return p.test(f.getType()) || f.getChildren().stream().anyMatch(c -> has(c, p));
    }

    private void violation(Mutation m, int[] p, String problem) {
      violationCount++;
      if (violations.size() < MAX_REPORTED) {
        String proj = p == null ? "null (all)" : Arrays.toString(p);
        violations.add("[" + m.family().label + "] " + m.what() + ", projection " + proj + ": " + problem);
      }
    }
  }
}
