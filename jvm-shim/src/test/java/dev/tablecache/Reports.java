package dev.tablecache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Reports of the long-running suites: printed, and kept in the build directory of the Spark line
 * under test (target/spark-&lt;line&gt;/) for CI artifacts.
 */
public final class Reports {

  private Reports() {}

  /** Prints {@code text} and writes it to the report directory; returns the file. */
  public static Path publish(String file, String text) throws IOException {
    System.out.println(text);
    System.out.flush();
    // The pom passes the line's build directory; run elsewhere, fall back to ./target.
    String dir = System.getProperty("tablecache.report.dir");
    Path target = dir != null ? Paths.get(dir) : Paths.get(System.getProperty("basedir", "."), "target");
    Files.createDirectories(target);
    Path out = target.resolve(file);
    Files.write(out, text.getBytes(StandardCharsets.UTF_8));
    return out;
  }

  /** Bytes as MiB with one decimal, signed when asked. */
  static String mib(long bytes) {
    return bytes < 0 ? "n/a" : String.format("%.1f", bytes / 1048576.0);
  }
}
