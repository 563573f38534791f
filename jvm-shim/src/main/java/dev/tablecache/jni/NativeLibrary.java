package dev.tablecache.jni;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loads libtablecache once per class loader (normally: once per JVM) and checks that it is the
 * library this jar was built with.
 *
 * <p>By default the library is the jar resource {@code /<os>/<arch>/<libname>} (for example
 * {@code /linux/amd64/libtablecache.so} or {@code /linux/aarch64/libtablecache.so}; see
 * {@link #SUPPORTED_PLATFORMS}), extracted because {@link System#load} needs a real file: into
 * the directory {@value #WORKDIR_PROPERTY} names (default {@code java.io.tmpdir}), as {@code
 * libtablecache-<pid>-<random>.so}, written into the very file {@link Files#createTempFile} made
 * (owner-only on POSIX), and deleted again right after {@link System#load} on POSIX or when the
 * load fails. Files of that name left by processes that no longer exist are deleted first (Linux
 * only). The system property {@value #PATH_PROPERTY} names another file to load instead.
 *
 * <p>The loaded library must report the jar's version and the jar's build id for this platform
 * (the resource {@code /<os>/<arch>/libtablecache.build-id} written by the same cargo build as
 * the library resource, see {@code native/jni/build.rs}); a library from any other build is
 * refused.
 *
 * <p>The first outcome is final: a failure is kept, with its cause, and rethrown as a
 * {@link TableCacheException} of kind {@link Kind#NATIVE_UNAVAILABLE} on every later use, so a
 * broken deployment fails the same clear way everywhere instead of with a random
 * {@link UnsatisfiedLinkError}.
 */
public final class NativeLibrary {

  /** System property naming a library file to load instead of the jar resource. */
  public static final String PATH_PROPERTY = "tablecache.native.path";

  /**
   * The platforms scripts/build.sh builds a library for, as {@code <os>/<arch>} jar
   * directories; every other platform gets Spark's default serializer (one warning).
   */
  public static final List<String> SUPPORTED_PLATFORMS =
      Collections.unmodifiableList(Arrays.asList("linux/amd64", "linux/aarch64"));

  /**
   * System property naming the directory the jar's library is extracted to (default: {@code
   * java.io.tmpdir}). It must exist, be writable, and allow loading libraries (not {@code noexec}).
   */
  public static final String WORKDIR_PROPERTY = "tablecache.native.workdir";

  static final String LIBRARY_NAME = "tablecache";
  /** The file cargo writes next to the library (native/jni/build.rs), and its jar resource name. */
  static final String BUILD_ID_FILE = "lib" + LIBRARY_NAME + ".build-id";
  /** Extracted files: {@code libtablecache-<pid>-<random digits>.<ext>} (createTempFile). */
  private static final Pattern EXTRACTED =
      Pattern.compile(
          "lib" + LIBRARY_NAME + "-(\\d{1,19})-\\d+" + Pattern.quote(extractedSuffix()));
  /**
   * Files of a dead pid younger than this are left alone: a live process of another pid
   * namespace sharing the directory (containers) may have the same pid number, and its file
   * exists only between extraction and load, which takes milliseconds.
   */
  static final long STALE_AFTER_MILLIS = TimeUnit.MINUTES.toMillis(1);
  private static final String VERSION_RESOURCE = "/dev/tablecache/version.properties";

  private static final Object LOCK = new Object();
  // Written once under LOCK; volatile so the fast path needs no lock.
  private static volatile boolean loaded;
  private static volatile TableCacheException failure;

  private NativeLibrary() {}

  /**
   * Loads the library if no attempt was made yet.
   *
   * @throws TableCacheException kind NATIVE_UNAVAILABLE when this or an earlier attempt failed
   */
  public static void ensureLoaded() {
    if (loaded) {
      return;
    }
    TableCacheException f = failure;
    if (f == null) {
      synchronized (LOCK) {
        if (!loaded && failure == null) {
          try {
            load();
            loaded = true;
          } catch (TableCacheException e) {
            failure = e;
          } catch (RuntimeException | LinkageError t) { // UnsatisfiedLinkError, SecurityException, ...
            failure = unavailable("could not load the native library: " + t, t);
          }
        }
        if (loaded) {
          return;
        }
        f = failure;
      }
    }
    // A fresh exception per call shows the caller's stack; the kept first failure is its cause.
    throw new TableCacheException(Kind.NATIVE_UNAVAILABLE, stripKind(f), f);
  }

  /** Whether the library is loaded and verified (tries to load it). */
  public static boolean isAvailable() {
    try {
      ensureLoaded();
      return true;
    } catch (TableCacheException e) {
      return false;
    }
  }

  /** The kept load failure, after an attempt failed; empty otherwise. */
  public static Optional<TableCacheException> failure() {
    return Optional.ofNullable(failure);
  }

  /** The version this jar was built with (from the Maven-filtered version.properties). */
  public static String jarVersion() {
    try (InputStream in = NativeLibrary.class.getResourceAsStream(VERSION_RESOURCE)) {
      if (in == null) {
        throw unavailable("jar resource " + VERSION_RESOURCE + " is missing", null);
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version");
      if (v == null || v.trim().isEmpty() || v.contains("${")) {
        throw unavailable(VERSION_RESOURCE + " holds no filtered version: " + v, null);
      }
      return v.trim();
    } catch (IOException e) {
      throw unavailable("cannot read " + VERSION_RESOURCE + ": " + e, e);
    }
  }

  /** The jar resource holding the library for this platform, e.g. /linux/amd64/libtablecache.so. */
  public static String resourcePath() {
    return resourcePath(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  /** The jar resource for the given {@code os.name} and {@code os.arch} values. */
  static String resourcePath(String osName, String osArch) {
    return "/" + platform(osName, osArch) + "/" + System.mapLibraryName(LIBRARY_NAME);
  }

  /** The jar's directory name for a platform, {@code <os>/<arch>}, e.g. linux/aarch64. */
  static String platform(String osName, String osArch) {
    return osName(osName) + "/" + archName(osArch);
  }

  /** Whether the build makes a library for this platform (not: whether this jar carries it). */
  static boolean isSupported(String osName, String osArch) {
    return SUPPORTED_PLATFORMS.contains(platform(osName, osArch));
  }

  static String osName(String osName) {
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      return "linux";
    }
    if (os.startsWith("mac") || os.startsWith("darwin")) {
      return "darwin";
    }
    if (os.startsWith("windows")) {
      return "windows";
    }
    return os.replaceAll("[^a-z0-9]", "");
  }

  static String archName(String osArch) {
    String arch = osArch.toLowerCase(Locale.ROOT);
    // JVMs name one arch differently (Linux HotSpot says amd64/aarch64, some macOS and other
    // builds say x86_64/arm64); the jar uses one directory per arch.
    switch (arch) {
      case "x86_64":
      case "amd64":
        return "amd64";
      case "aarch64":
      case "arm64":
        return "aarch64";
      default:
        return arch.replaceAll("[^a-z0-9_]", "");
    }
  }

  /**
   * Why the jar has no library for this platform: either the platform is not one the build
   * supports, or it is and this jar was built without its library. Both name the platform and
   * the supported ones, since this text is all a user sees in the fallback warning.
   */
  static String missingLibraryMessage(String osName, String osArch) {
    String platform = platform(osName, osArch);
    String seen = " (os.name=" + osName + ", os.arch=" + osArch + ")";
    String what =
        isSupported(osName, osArch)
            ? "this jar was built without the "
                + platform
                + " native library (jar resource "
                + resourcePath(osName, osArch)
                + " is missing; scripts/build.sh leaves it out when the cross toolchain is"
                + " absent)"
            : "tablecache has no native library for " + platform;
    return what
        + seen
        + "; supported platforms: "
        + String.join(", ", SUPPORTED_PLATFORMS)
        + ". Set -D"
        + PATH_PROPERTY
        + " to a libtablecache built for this platform to use one anyway";
  }

  /**
   * Refuses a library whose version differs from the jar's: a stale library found on some path
   * is a classic source of silent misbehaviour, so a mismatch is fatal.
   */
  static void checkVersion(String jarVersion, String libraryVersion, String origin) {
    if (!Objects.equals(jarVersion, libraryVersion)) {
      throw unavailable(
          "version mismatch: the jar is tablecache "
              + jarVersion
              + " but the native library "
              + origin
              + " is version "
              + libraryVersion
              + "; refusing to use it",
          null);
    }
  }

  /**
   * Refuses a library from another build than the jar's: the same version string does not make
   * it the same library (a stale build on some path is a classic source of silent misbehaviour).
   *
   * @param jarBuildId the id the jar carries for this platform ({@link #buildIdResourcePath()})
   * @param libraryBuildId what the loaded library reports ({@link NativeCodec#buildId()})
   * @param origin where the library came from, for the message
   */
  static void checkBuildId(String jarBuildId, String libraryBuildId, String origin) {
    if (!Objects.equals(jarBuildId, libraryBuildId)) {
      throw unavailable(
          "build id mismatch: the jar carries native build "
              + jarBuildId
              + " (jar resource "
              + buildIdResourcePath()
              + ") but the native library "
              + origin
              + " is build "
              + libraryBuildId
              + ": a library from another build (a stale one?); refusing to use it",
          null);
    }
  }

  /** The jar resource holding the build id of this platform's library. */
  public static String buildIdResourcePath() {
    return buildIdResourcePath(
        System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  static String buildIdResourcePath(String osName, String osArch) {
    return "/" + platform(osName, osArch) + "/" + BUILD_ID_FILE;
  }

  /**
   * The build id this jar carries for this platform's library, or null when the jar has none
   * (a platform it has no library for).
   */
  static String jarBuildId() {
    String resource = buildIdResourcePath();
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        return null;
      }
      String id = new String(readAll(in), StandardCharsets.UTF_8).trim();
      if (id.isEmpty()) {
        throw unavailable("jar resource " + resource + " is empty", null);
      }
      return id;
    } catch (IOException e) {
      throw unavailable("cannot read jar resource " + resource + ": " + e, e);
    }
  }

  private static void load() {
    String expected = jarVersion();
    String jarBuildId = jarBuildId();
    String override = System.getProperty(PATH_PROPERTY);
    String origin;
    if (override != null && !override.trim().isEmpty()) {
      Path p = Paths.get(override).toAbsolutePath();
      if (!Files.isRegularFile(p)) {
        throw unavailable(
            "native library file " + p + " (from -D" + PATH_PROPERTY + ") does not exist", null);
      }
      origin = p + " (from -D" + PATH_PROPERTY + ")";
      System.load(p.toString());
    } else {
      String resource = resourcePath();
      if (NativeLibrary.class.getResource(resource) != null && jarBuildId == null) {
        throw unavailable(
            "jar resource "
                + buildIdResourcePath()
                + " is missing: this jar carries "
                + resource
                + " without its build id (a jar not built by jvm-shim/pom.xml?)",
            null);
      }
      Workdir workdir =
          Workdir.resolve(
              System.getProperty(WORKDIR_PROPERTY), System.getProperty("java.io.tmpdir"));
      deleteStale(workdir.dir, currentPid(), liveProcessTest(), System.currentTimeMillis());
      Path extracted = extract(resource, workdir);
      origin = "extracted from jar resource " + resource + " to " + extracted;
      loadExtracted(extracted, workdir);
    }
    checkVersion(expected, NativeCodec.version(), origin);
    if (jarBuildId != null) {
      // A library for a platform this jar has none for (-Dtablecache.native.path) has nothing to
      // be compared with; the version check above still applies.
      checkBuildId(jarBuildId, libraryBuildId(origin), origin);
    }
  }

  private static String libraryBuildId(String origin) {
    try {
      return NativeCodec.buildId();
    } catch (UnsatisfiedLinkError e) {
      throw unavailable(
          "the native library "
              + origin
              + " has no buildId() (a library older than this jar); refusing to use it",
          e);
    }
  }

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
     * @param property the value of {@value #WORKDIR_PROPERTY}, or null
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
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw unavailable(
            missingLibraryMessage(
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
  private static void loadExtracted(Path file, Workdir workdir) {
    boolean loaded = false;
    try {
      System.load(file.toString());
      loaded = true;
    } catch (UnsatisfiedLinkError e) {
      String error = String.valueOf(e.getMessage());
      throw unavailable(loadFailure(file, workdir, error, noexecMount(workdir.dir)), e);
    } finally {
      if (loaded && "windows".equals(osName(System.getProperty("os.name", "")))) {
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

  /**
   * Deletes the extracted files ({@code libtablecache-<pid>-<random>.<ext>}) of processes that
   * no longer exist from {@code dir}: a JVM killed between extraction and load leaves its file.
   * Never touches this process's files (another class loader may be loading one), those of a
   * live process, or any younger than {@link #STALE_AFTER_MILLIS}. Best effort: errors are
   * ignored.
   *
   * @param alive whether a pid is a live process; null when that cannot be told (then nothing
   *     is deleted)
   * @return the files deleted
   */
  static List<Path> deleteStale(Path dir, long ownPid, LongPredicate alive, long nowMillis) {
    if (alive == null) {
      return Collections.emptyList();
    }
    List<Path> deleted = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "lib" + LIBRARY_NAME + "-*")) {
      for (Path f : files) {
        Matcher m = EXTRACTED.matcher(f.getFileName().toString());
        if (!m.matches()) {
          continue;
        }
        long pid;
        try {
          pid = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
          continue;
        }
        try {
          if (pid <= 0
              || pid == ownPid
              || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
              || nowMillis - Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS).toMillis()
                  < STALE_AFTER_MILLIS
              || alive.test(pid)) {
            continue;
          }
          Files.delete(f);
          deleted.add(f);
        } catch (IOException | SecurityException e) {
          // gone already, another user's, or unreadable: not ours to worry about
        }
      }
    } catch (IOException | SecurityException | DirectoryIteratorException e) {
      // an unlistable workdir shows up as a clear error when the library is extracted
    }
    return deleted;
  }

  /**
   * Whether a pid is a live process, from /proc (Linux); null elsewhere, or when /proc is not
   * mounted, since a missing /proc/&lt;pid&gt; would then mean nothing.
   */
  static LongPredicate liveProcessTest() {
    if (!"linux".equals(osName(System.getProperty("os.name", "")))
        || !Files.isDirectory(Paths.get("/proc/self"))) {
      return null;
    }
    return pid -> Files.exists(Paths.get("/proc", Long.toString(pid)));
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
    return "lib" + LIBRARY_NAME + "-" + pid + "-";
  }

  /** ".so", ".dylib" or ".dll". */
  static String extractedSuffix() {
    String file = System.mapLibraryName(LIBRARY_NAME);
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

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[256];
    for (int n; (n = in.read(buffer)) > 0; ) {
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }

  private static TableCacheException unavailable(String message, Throwable cause) {
    return new TableCacheException(Kind.NATIVE_UNAVAILABLE, message, cause);
  }

  private static String stripKind(TableCacheException e) {
    String m = e.getMessage();
    String prefix = Kind.NATIVE_UNAVAILABLE.name() + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }
}
