package dev.tablecache.suites;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.scalatest.Args;
import org.scalatest.DynaTags;
import org.scalatest.Filter;
import org.scalatest.Reporter;
import org.scalatest.Status;
import org.scalatest.Suite;
import org.scalatest.events.Event;
import org.scalatest.events.SuiteAborted;
import org.scalatest.events.TestCanceled;
import org.scalatest.events.TestFailed;
import org.scalatest.events.TestIgnored;
import org.scalatest.events.TestPending;
import org.scalatest.events.TestSucceeded;
import scala.Option;
import scala.collection.Iterator;

/**
 * Runs Spark's own ScalaTest suites in this JVM with tablecache's serializer (set by the caller
 * through {@code spark.*} system properties, which every suite's SparkConf reads), leaves out the
 * tests of the exclusion list through ScalaTest's dynamic tags, and then proves from inside the
 * JVM that our serializer served them: frames written per suite, every cache scan ours, the
 * native capability usable and, per mode, the read path taken.
 *
 * <p>Usage: {@code SuiteRunner --line 4.0 --mode rows|columnar --exclusions FILE SUITE...}.
 * Prints one line per suite and {@code RESULT passed=N failed=N excluded=N differs=N}; exit 1 on
 * any failure, failed proof or stale entry of the exclusion list.
 */
public final class SuiteRunner {

  private static final String EXCLUDED_TAG = "dev.tablecache.suites.Excluded";
  private static final String OUR_SERIALIZER = PlanProbe.OUR_SERIALIZER;

  /**
   * Serializers that a suite builds InMemoryRelations with by hand, bypassing the configured
   * one: InMemoryColumnarQuerySuite's TestCachedBatchSerializer (a DefaultCachedBatchSerializer)
   * in its helper-built scans. Scans of any other serializer fail the run.
   */
  private static final Set<String> SUITE_BUILT_SERIALIZERS =
      Set.of("org.apache.spark.sql.execution.columnar.TestCachedBatchSerializer");

  /** Counts one suite's events. */
  private static final class Counts implements Reporter {
    final List<Exclusions.Entry> differs;
    int passed;
    int failed;
    int differed;
    int ignored;
    int canceled;
    int aborted;
    final List<String> failures = new ArrayList<>();

    Counts(List<Exclusions.Entry> differs) {
      this.differs = differs;
    }

    @Override
    public void apply(Event e) {
      if (e instanceof TestSucceeded) {
        passed++;
      } else if (e instanceof TestFailed) {
        TestFailed f = (TestFailed) e;
        for (Exclusions.Entry d : differs) {
          if (d.namesTest(f.testName()) && d.pattern.matcher(f.message()).find()) {
            d.matched = true;
            differed++;
            String first = f.message().lines().findFirst().orElse("");
            System.out.println(
                "  known difference: " + f.suiteName() + ": " + abbreviate(f.testName(), 90) + ": "
                    + abbreviate(first, 60));
            return;
          }
        }
        failed++;
        report("FAILED", f.suiteName() + ": " + f.testName(), f.message(), f.throwable());
      } else if (e instanceof TestIgnored) {
        ignored++;
      } else if (e instanceof TestCanceled) {
        // assume() not met (e.g. a missing optional dependency): not run, reported apart.
        TestCanceled c = (TestCanceled) e;
        canceled++;
        System.out.println(
            "  canceled: " + c.suiteName() + ": " + c.testName() + ": " + c.message());
      } else if (e instanceof TestPending) {
        ignored++;
      } else if (e instanceof SuiteAborted) {
        SuiteAborted a = (SuiteAborted) e;
        aborted++;
        report("ABORTED", a.suiteName(), a.message(), a.throwable());
      }
    }

    private void report(String what, String name, String message, Option<Throwable> t) {
      StringWriter sw = new StringWriter();
      sw.append("---- ").append(what).append(": ").append(name).append('\n');
      sw.append("     ").append(message).append('\n');
      if (t.isDefined()) {
        t.get().printStackTrace(new PrintWriter(sw));
      }
      failures.add(sw.toString());
      System.out.print(sw);
      System.out.flush();
    }
  }

  public static void main(String[] argv) throws Exception {
    String line = null;
    String mode = null;
    Path exclusionsFile = null;
    List<String> suites = new ArrayList<>();
    for (int i = 0; i < argv.length; i++) {
      switch (argv[i]) {
        case "--line":
          line = argv[++i];
          break;
        case "--mode":
          mode = argv[++i];
          break;
        case "--exclusions":
          exclusionsFile = Paths.get(argv[++i]);
          break;
        default:
          suites.add(argv[i]);
      }
    }
    if (line == null || mode == null || exclusionsFile == null || suites.isEmpty()) {
      System.err.println(
          "usage: SuiteRunner --line L --mode rows|columnar --exclusions F SUITE...");
      System.exit(2);
    }
    System.exit(run(line, mode, exclusionsFile, suites) ? 0 : 1);
  }

  private static boolean run(String line, String mode, Path exclusionsFile, List<String> suites)
      throws Exception {
    List<String> problems = new ArrayList<>();
    // The flags must reach every suite's SparkConf; a typo here would silently test Spark.
    requireProperty("spark.sql.cache.serializer", OUR_SERIALIZER);
    requireProperty("spark.tablecache.onUnavailable", "fail");
    requireProperty("spark.sql.queryExecutionListeners", PlanProbe.class.getName());

    Exclusions exclusions = Exclusions.load(exclusionsFile, line, mode);
    int passed = 0;
    int failed = 0;
    int excluded = 0;
    int differed = 0;
    System.out.printf("spark-suites %s/%s (Spark %s)%n", line, mode, sparkVersion());
    for (String className : suites) {
      Suite suite = (Suite) Class.forName(className).getDeclaredConstructor().newInstance();
      Set<String> testNames = javaSet(suite.testNames());

      // Exclusions become a dynamic tag on the named tests; the Filter then skips that tag.
      Set<String> toExclude = new LinkedHashSet<>();
      List<Exclusions.Entry> differs = new ArrayList<>();
      for (Exclusions.Entry e : exclusions.forSuite(className)) {
        if (e.action == Exclusions.Action.DIFFERS) {
          differs.add(e);
        } else if (testNames.contains(e.test)) {
          toExclude.add(e.test);
          e.matched = true;
        }
      }
      scala.collection.immutable.Map<String, scala.collection.immutable.Set<String>> tagged =
          emptyMap();
      for (String t : toExclude) {
        tagged = tagged.updated(t, scalaSet(EXCLUDED_TAG));
      }
      scala.collection.immutable.Map<
              String,
              scala.collection.immutable.Map<String, scala.collection.immutable.Set<String>>>
          bySuite = emptyMap();
      DynaTags dyna = new DynaTags(emptyMap(), bySuite.updated(suite.suiteId(), tagged));
      Filter filter = new Filter(Option.empty(), scalaSet(EXCLUDED_TAG), false, dyna);

      long framesBefore = framesWritten();
      long scansBefore = PlanProbe.OUR_SCANS.get();
      long start = System.nanoTime();
      Counts counts = new Counts(differs);
      Args args =
          new Args(
              counts,
              Args.$lessinit$greater$default$2(),
              filter,
              Args.$lessinit$greater$default$4(),
              Args.$lessinit$greater$default$5(),
              Args.$lessinit$greater$default$6(),
              Args.$lessinit$greater$default$7(),
              Args.$lessinit$greater$default$8(),
              Args.$lessinit$greater$default$9(),
              Args.$lessinit$greater$default$10());
      Status status;
      try {
        status = suite.run(Option.empty(), args);
        status.succeeds(); // waits for completion
      } catch (Throwable t) {
        counts.report("ABORTED", className, String.valueOf(t), Option.apply(t));
        counts.aborted++;
      }
      double secs = (System.nanoTime() - start) / 1e9;
      long frames = framesWritten() - framesBefore;
      long scans = PlanProbe.OUR_SCANS.get() - scansBefore;
      int suiteFailed = counts.failed + counts.aborted;
      int run = counts.passed + counts.failed + counts.differed;
      System.out.printf(
          "  %-28s run %4d  passed %4d  failed %3d  excluded %2d  known differences %2d%s  %6.1f s"
              + "  (frames written %d, cache scans %d)%n",
          suite.suiteName(),
          run,
          counts.passed,
          suiteFailed,
          toExclude.size(),
          counts.differed,
          (counts.ignored + counts.canceled) > 0
              ? "  ignored/canceled " + (counts.ignored + counts.canceled)
              : "",
          secs,
          frames,
          scans);
      System.out.flush();
      // A suite that wrote no frame of ours was served by someone else: it proves nothing.
      if (frames == 0) {
        problems.add(suite.suiteName() + " wrote no tablecache frame");
      }
      if (scans == 0) {
        problems.add(suite.suiteName() + " ran no query over a tablecache cache scan");
      }
      passed += counts.passed;
      failed += suiteFailed;
      excluded += toExclude.size();
      differed += counts.differed;
    }

    for (Exclusions.Entry e : exclusions.entries) {
      boolean suiteRan = suites.stream().anyMatch(e::namesSuite);
      if (suiteRan && !e.matched) {
        problems.add(
            exclusionsFile + ":" + e.lineNo + ": stale entry: "
                + (e.action == Exclusions.Action.EXCLUDE
                    ? "no such test"
                    : "the known difference did not occur")
                + ": " + e.suite + ": " + e.test);
      }
    }

    // Positive proof from this JVM: the native library served, every cache scan was ours.
    String capability = capability();
    System.out.printf(
        "  proof: capability %s, native %s; %s%n", capability, nativeVersion(), metricsSummary());
    System.out.printf(
        "  proof: queries %d, cache scans ours %d (columnar read %d), other serializers %s%n",
        PlanProbe.QUERIES.get(),
        PlanProbe.OUR_SCANS.get(),
        PlanProbe.COLUMNAR_SCANS.get(),
        PlanProbe.OTHER_SCANS);
    // Not a failure (the shim hands such schemas to Spark's default by design), but those reads
    // did not test tablecache: say which.
    if (!PlanProbe.DELEGATED_SCANS.isEmpty()) {
      System.out.println(
          "  served by Spark's default inside our serializer (no Arrow mapping for the schema):");
      PlanProbe.DELEGATED_SCANS.forEach(
          (schema, n) -> System.out.printf("    %4d scans of %s%n", n.get(), schema));
    }
    if (PlanProbe.delegationUnknown != null) {
      System.out.println(
          "  (per-schema delegation not checked: " + PlanProbe.delegationUnknown + ")");
    }
    if (capability.equals("UNAVAILABLE") || capability.equals("UNKNOWN")) {
      problems.add("native capability is " + capability);
    }
    PlanProbe.OTHER_SCANS.forEach(
        (ser, n) -> {
          if (!SUITE_BUILT_SERIALIZERS.contains(ser)) {
            problems.add(n + " cache scans used another serializer: " + ser);
          }
        });
    if (mode.equals("columnar") && PlanProbe.COLUMNAR_SCANS.get() == 0) {
      problems.add("columnar mode, but no cache scan was read through TableCacheExtensions");
    }
    if (mode.equals("rows") && PlanProbe.COLUMNAR_SCANS.get() != 0) {
      problems.add("rows mode, but " + PlanProbe.COLUMNAR_SCANS.get() + " scans read columnar");
    }
    if (metric("ALLOCATOR_LEAKS") != 0) {
      problems.add("Arrow allocator leaks: " + metric("ALLOCATOR_LEAKS"));
    }
    for (String p : problems) {
      System.out.println("---- PROOF FAILED: " + p);
    }
    failed += problems.size();
    System.out.printf(
        "RESULT passed=%d failed=%d excluded=%d differs=%d%n", passed, failed, excluded, differed);
    return failed == 0;
  }

  private static void requireProperty(String key, String expected) {
    String v = System.getProperty(key);
    if (!expected.equals(v)) {
      throw new IllegalStateException("-D" + key + "=" + expected + " is required, got " + v);
    }
  }

  private static String sparkVersion() {
    return org.apache.spark.package$.MODULE$.SPARK_VERSION();
  }

  // TableCacheMetrics is package-private in the shim: read it reflectively, so this module
  // compiles without the jar under test and works with any of its builds.
  private static long metric(String name) throws ReflectiveOperationException {
    Class<?> c = Class.forName("dev.tablecache.spark.metrics.TableCacheMetrics");
    Field f = c.getDeclaredField(name);
    f.setAccessible(true);
    Object counter = f.get(null);
    // Dropwizard counters since the metrics plugin; plain LongAdders before.
    return counter instanceof com.codahale.metrics.Counting
        ? ((com.codahale.metrics.Counting) counter).getCount()
        : ((LongAdder) counter).sum();
  }

  private static long framesWritten() throws ReflectiveOperationException {
    return metricSince("FRAMES_WRITTEN_V4")
        + metric("FRAMES_WRITTEN_V3")
        + metric("FRAMES_WRITTEN_V2")
        + metric("FRAMES_WRITTEN_LEGACY");
  }

  /** {@link #metric}, or 0 with a jar older than the counter. */
  private static long metricSince(String name) throws ReflectiveOperationException {
    try {
      return metric(name);
    } catch (NoSuchFieldException e) {
      return 0;
    }
  }

  private static String metricsSummary() throws ReflectiveOperationException {
    Method m =
        Class.forName("dev.tablecache.spark.metrics.TableCacheMetrics")
            .getDeclaredMethod("summary");
    m.setAccessible(true);
    return (String) m.invoke(null);
  }

  private static String capability() throws ReflectiveOperationException {
    Class<?> c = Class.forName("dev.tablecache.jni.Capability");
    return String.valueOf(c.getMethod("current").invoke(null));
  }

  private static String nativeVersion() {
    try {
      return String.valueOf(
          Class.forName("dev.tablecache.jni.NativeCodec").getMethod("version").invoke(null));
    } catch (ReflectiveOperationException | LinkageError e) {
      return "? (" + e + ")";
    }
  }

  // Scala collections built through methods that exist on 2.12 and 2.13 alike.

  @SuppressWarnings("unchecked")
  private static <K, V> scala.collection.immutable.Map<K, V> emptyMap() {
    return (scala.collection.immutable.Map<K, V>) scala.collection.immutable.Map$.MODULE$.empty();
  }

  private static scala.collection.immutable.Set<String> scalaSet(String elem) {
    // Set1's constructor, not Set.+: on 2.12, Set.+ erases differently for javac and scalac.
    return new scala.collection.immutable.Set.Set1<>(elem);
  }

  private static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 3) + "...";
  }

  private static Set<String> javaSet(scala.collection.Set<String> set) {
    Set<String> out = new LinkedHashSet<>();
    for (Iterator<String> it = set.iterator(); it.hasNext(); ) {
      out.add(it.next());
    }
    return out;
  }
}
