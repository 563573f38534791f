package dev.tablecache.format;

import dev.tablecache.Reports;
import dev.tablecache.TestScale;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The mutation suite's summary: mutations per family, outcome counts per kind, per frame. */
final class MutationReport {

  private final Map<Mutation.Family, Long> mutations = new EnumMap<>(Mutation.Family.class);
  private final Map<Mutation.Family, Map<String, Long>> outcomes = new EnumMap<>(Mutation.Family.class);
  private final List<String> frames = new ArrayList<>();

  synchronized void add(MutationTest.FrameRun run) {
    run.mutations.forEach((f, n) -> mutations.merge(f, n, Long::sum));
    run.outcomes.forEach(
        (f, byKind) -> byKind.forEach((k, n) -> outcomes.computeIfAbsent(f, x -> new TreeMap<>()).merge(k, n, Long::sum)));
    long total = run.mutations.values().stream().mapToLong(Long::longValue).sum();
    frames.add(String.format("  %-34s %7d mutations %8d decodes %6.1f s  %d bad  slowest %.1f ms (%s)",
        run.name, total, run.decodes, run.seconds, run.violationCount, run.slowestNanos / 1e6, run.slowest));
  }

  synchronized void print(long seed, int budget) throws IOException {
    StringBuilder s = new StringBuilder();
    s.append(String.format("Mutation suite: scale %s, ~%d mutations per frame, seed %d (0x%X)%n",
        TestScale.name(), budget, seed, seed));
    s.append("Per frame:\n");
    frames.forEach(f -> s.append(f).append('\n'));
    TreeSet<String> kinds = new TreeSet<>();
    outcomes.values().forEach(m -> kinds.addAll(m.keySet()));
    s.append("\nOutcomes per family (each mutation decoded with 5 projections):\n");
    s.append(String.format("  %-42s %9s", "family", "mutations"));
    for (String k : kinds) {
      s.append(String.format(" %20s", k));
    }
    s.append('\n');
    long all = 0;
    Map<String, Long> totals = new TreeMap<>();
    for (Map.Entry<Mutation.Family, Long> e : mutations.entrySet()) {
      all += e.getValue();
      s.append(String.format("  %-42s %9d", e.getKey().label, e.getValue()));
      Map<String, Long> byKind = outcomes.getOrDefault(e.getKey(), Collections.emptyMap());
      for (String k : kinds) {
        long n = byKind.getOrDefault(k, 0L);
        totals.merge(k, n, Long::sum);
        s.append(String.format(" %20d", n));
      }
      s.append('\n');
    }
    s.append(String.format("  %-42s %9d", "all", all));
    for (String k : kinds) {
      s.append(String.format(" %20d", totals.get(k)));
    }
    s.append('\n');
    Reports.publish("mutation-report.txt", s.toString());
  }
}
