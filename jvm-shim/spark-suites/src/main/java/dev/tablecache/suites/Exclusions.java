package dev.tablecache.suites;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The exclusion list (excluded-tests.txt): one test per line, {@code scope | suite | test name |
 * action | reason}. Scope is a Spark line and a mode separated by a slash, either one an asterisk
 * for any (e.g. {@code 3.5/rows}). Suite is the simple or full class name. Action is
 *
 * <ul>
 *   <li>{@code exclude}: the test is not run (it checks no query result, only the default
 *       serializer's internals);
 *   <li>{@code differs: REGEX}: the test runs; a failure whose message matches REGEX is the known
 *       difference (an assertion on the default's internals placed after the test's result
 *       checks), any other failure is a failure. Test name {@code *} covers every test of the
 *       suite.
 * </ul>
 *
 * The reason is mandatory. An entry that no longer matches (no such test, or the difference did
 * not occur) fails the run, so the list cannot rot.
 */
final class Exclusions {

  enum Action {
    EXCLUDE,
    DIFFERS
  }

  static final class Entry {
    final String suite;
    final String test;
    final Action action;
    final Pattern pattern;
    final String reason;
    final int lineNo;
    /** Exclude: the test exists. Differs: a failure matched at least once. */
    boolean matched;

    Entry(String suite, String test, Action action, Pattern pattern, String reason, int lineNo) {
      this.suite = suite;
      this.test = test;
      this.action = action;
      this.pattern = pattern;
      this.reason = reason;
      this.lineNo = lineNo;
    }

    boolean namesSuite(String className) {
      return suite.equals(className) || className.endsWith("." + suite);
    }

    boolean namesTest(String testName) {
      return test.equals(testName) || (action == Action.DIFFERS && test.equals("*"));
    }
  }

  final List<Entry> entries = new ArrayList<>();

  static Exclusions load(Path file, String line, String mode) throws IOException {
    Exclusions ex = new Exclusions();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String raw = lines.get(i).strip();
      if (raw.isEmpty() || raw.startsWith("#")) {
        continue;
      }
      String where = file + ":" + (i + 1) + ": ";
      String[] f = raw.split(" \\| ", -1);
      if (f.length != 5 || f[4].isBlank()) {
        throw new IllegalArgumentException(
            where + "expected `scope | suite | test name | action | reason`: " + raw);
      }
      String action = f[3].strip();
      Entry e;
      if (action.equals("exclude")) {
        e = new Entry(f[1].strip(), f[2].strip(), Action.EXCLUDE, null, f[4].strip(), i + 1);
      } else if (action.startsWith("differs:")) {
        Pattern p = Pattern.compile(action.substring("differs:".length()).strip(), Pattern.DOTALL);
        e = new Entry(f[1].strip(), f[2].strip(), Action.DIFFERS, p, f[4].strip(), i + 1);
      } else {
        throw new IllegalArgumentException(where + "action must be `exclude` or `differs: REGEX`");
      }
      String[] lm = f[0].strip().split("/", -1);
      if (lm.length != 2) {
        throw new IllegalArgumentException(where + "scope must be LINE/MODE: " + f[0]);
      }
      if ((lm[0].equals("*") || lm[0].equals(line)) && (lm[1].equals("*") || lm[1].equals(mode))) {
        ex.entries.add(e);
      }
    }
    return ex;
  }

  List<Entry> forSuite(String className) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries) {
      if (e.namesSuite(className)) {
        out.add(e);
      }
    }
    return out;
  }
}
