package dev.tablecache.jni;

import static dev.tablecache.jni.NativeLibrary.WORKDIR_PROPERTY;
import static dev.tablecache.jni.NativeLibrary.unavailable;

import dev.tablecache.TableCacheException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * Puts the jar's library where {@link System#load} can take it: checks the workdir, extracts
 * into an owner-only file named {@code libtablecache-<pid>-<random>.<ext>}, loads and deletes it,
 * and explains a failed load (a {@code noexec} workdir above all).
 */
final class LibraryExtraction {

  private LibraryExtraction() {}

  /**
   * The directory the library is extracted to, with where its name came from (for messages).
   * Checked up front so that a wrong directory fails with a message naming it and the property.
   */
  static final class Workdir {
    final Path dir;
    final String source;

    private Workdir(Path dir, String source) {
      this.dir = dir;
      this.source = source;
    }

    /**
     * @param property the value of {@value NativeLibrary#WORKDIR_PROPERTY}, or null
     * @param tmpdir the value of {@code java.io.tmpdir}, the default
     * @throws TableCacheException NATIVE_UNAVAILABLE when the directory does not exist, is not a
     *     directory or is not writable
     */
    static Workdir resolve(String property, String tmpdir) {
      boolean fromProperty = property != null && !property.trim().isEmpty();
      String name = fromProperty ? property.trim() : tmpdir;
      String source =
          fromProperty
              ? "-D" + WORKDIR_PROPERTY
              : "java.io.tmpdir, the default of -D" + WORKDIR_PROPERTY;
      if (name == null || name.trim().isEmpty()) {
        throw unavailable(
            "no directory to extract the native library to: java.io.tmpdir is not set; set -D"
                + WORKDIR_PROPERTY,
            null);
      }
      Path dir;
      try {
        dir = Paths.get(name).toAbsolutePath();
      } catch (InvalidPathException e) {
        throw unavailable(
            "the native library workdir '" + name + "' (from " + source + ") is not a valid path",
            e);
      }
      Workdir w = new Workdir(dir, source);
      if (!Files.exists(dir)) {
        throw unavailable(w.problem("does not exist"), null);
      }
      if (!Files.isDirectory(dir)) {
        throw unavailable(w.problem("is not a directory"), null);
      }
      if (!Files.isWritable(dir)) {
        throw unavailable(
            w.problem(
                "is not writable by this process (user "
                    + System.getProperty("user.name", "?")
                    + "; read-only file system or permissions)"),
            null);
      }
      return w;
    }

    /** "cannot extract the native library: the workdir DIR (from SOURCE) WHAT; set -D...". */
    String problem(String what) {
      return "cannot extract the native library: the workdir "
          + dir
          + " (from "
          + source
          + ") "
          + what
          + "; set -D"
          + WORKDIR_PROPERTY
          + " to an existing, writable directory on a file system that allows executing"
          + " (not mounted noexec)";
    }
  }

  /**
   * Writes the jar resource into a new owner-only file of {@code workdir}, named {@code
   * libtablecache-<pid>-<random>.<ext>}, and returns it. Nothing is left behind on failure.
   */
  static Path extract(String resource, Workdir workdir) {
    try (InputStream in = LibraryExtraction.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw unavailable(
            Platforms.missingLibraryMessage(
                System.getProperty("os.name", ""), System.getProperty("os.arch", "")),
            null);
      }
      Path tmp;
      try {
        // A unique file per load: one library file can be loaded by only one class loader.
        // createTempFile makes it 0600 on POSIX whatever the umask.
        tmp = Files.createTempFile(workdir.dir, extractedPrefix(currentPid()), extractedSuffix());
      } catch (IOException | SecurityException e) {
        throw unavailable(workdir.problem("refuses a new file (" + e + ")"), e);
      }
      boolean written = false;
      try {
        // Into the file createTempFile made, keeping its owner-only mode (Files.copy with
        // REPLACE_EXISTING would delete it and create another with the umask's mode), and never
        // through a symbolic link put in its place.
        try (OutputStream out =
            Files.newOutputStream(
                tmp,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS)) {
          byte[] buffer = new byte[64 << 10];
          for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
          }
        }
        written = true;
        return tmp;
      } catch (IOException e) {
        throw unavailable("cannot write the native library to " + tmp + ": " + e, e);
      } finally {
        if (!written) {
          deleteQuietly(tmp);
        }
      }
    } catch (IOException e) {
      throw unavailable("cannot read jar resource " + resource + ": " + e, e);
    }
  }

  /**
   * {@link System#load}s an extracted file and deletes it: right away on POSIX (the mapping
   * outlives the file, so nothing is left behind even when the JVM dies without running
   * deleteOnExit hooks), at exit on Windows, and at once whenever the load fails.
   */
  static void loadExtracted(Path file, Workdir workdir) {
    boolean loaded = false;
    try {
      System.load(file.toString());
      loaded = true;
    } catch (UnsatisfiedLinkError e) {
      String error = String.valueOf(e.getMessage());
      throw unavailable(loadFailure(file, workdir, error, noexecMount(workdir.dir)), e);
    } finally {
      if (loaded && "windows".equals(Platforms.currentOs())) {
        file.toFile().deleteOnExit(); // a loaded DLL cannot be deleted
      } else if (!deleteQuietly(file)) {
        file.toFile().deleteOnExit();
      }
    }
  }

  /**
   * The message for a failed {@link System#load} of an extracted file: when the error is the one
   * a {@code noexec} mount gives ("failed to map segment from shared object", "operation not
   * permitted"), says so and names the workdir and the property.
   *
   * @param noexecMount the mount point of the workdir when it is known to be mounted noexec
   */
  static String loadFailure(Path file, Workdir workdir, String error, String noexecMount) {
    String e = error.toLowerCase(Locale.ROOT);
    String m = "System.load of the native library extracted to " + file + " failed: " + error;
    if (noexecMount != null
        || e.contains("failed to map segment")
        || e.contains("operation not permitted")) {
      String cause =
          noexecMount != null
              ? "is on a file system mounted noexec (mount point " + noexecMount + ")"
              : "is probably on a file system mounted noexec (or a security policy forbids"
                  + " executing from it)";
      return m
          + ". The workdir "
          + workdir.dir
          + " (from "
          + workdir.source
          + ") "
          + cause
          + ", where libraries cannot be loaded: set -D"
          + WORKDIR_PROPERTY
          + " to a writable directory on a file system that allows executing";
    }
    return m + " (a damaged or foreign library file?)";
  }

  /**
   * The mount point of the file system holding {@code dir} when /proc/self/mounts says it is
   * mounted noexec; null when it is not, or when that cannot be told (not Linux).
   */
  static String noexecMount(Path dir) {
    Path mounts = Paths.get("/proc/self/mounts");
    if (!Files.isReadable(mounts)) {
      return null;
    }
    try {
      Path real = dir.toRealPath();
      String best = null;
      boolean bestNoexec = false;
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(Files.newInputStream(mounts), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          String[] f = line.split(" ");
          if (f.length < 4) {
            continue;
          }
          String point = unescapeMount(f[1]);
          // The longest mount point above the directory; a later line for the same point is a
          // mount on top of the earlier one.
          if (real.startsWith(point) && (best == null || point.length() >= best.length())) {
            best = point;
            bestNoexec = Arrays.asList(f[3].split(",")).contains("noexec");
          }
        }
      }
      return bestNoexec ? best : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** A /proc/self/mounts field: space, tab, newline and backslash are octal escapes there. */
  private static String unescapeMount(String field) {
    StringBuilder b = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\'
          && i + 3 < field.length()
          && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
        b.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** This process's pid (Java 8 has no ProcessHandle), or 0 when the JVM does not say. */
  static long currentPid() {
    try {
      String name = ManagementFactory.getRuntimeMXBean().getName(); // "<pid>@<host>" on HotSpot
      int at = name.indexOf('@');
      long pid = Long.parseLong(at < 0 ? name : name.substring(0, at));
      return pid > 0 ? pid : 0;
    } catch (RuntimeException | LinkageError e) { // no java.management, or another format
      return 0;
    }
  }

  static String extractedPrefix(long pid) {
    return "lib" + Platforms.LIBRARY_NAME + "-" + pid + "-";
  }

  /** ".so", ".dylib" or ".dll". */
  static String extractedSuffix() {
    String file = System.mapLibraryName(Platforms.LIBRARY_NAME);
    int dot = file.lastIndexOf('.');
    return dot < 0 ? ".lib" : file.substring(dot);
  }

  /** Deletes a file; false when it is still there. */
  private static boolean deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
      return true;
    } catch (IOException | SecurityException e) {
      return !Files.exists(file, LinkOption.NOFOLLOW_LINKS);
    }
  }
}
