package dev.tablecache.jni;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Loads libtablecache once per JVM and checks that it is the library this jar was built with.
 *
 * <p>By default the library is the jar resource {@code /<os>/<arch>/<libname>} (for example
 * {@code /linux/amd64/libtablecache.so} or {@code /linux/aarch64/libtablecache.so}; see
 * {@link #SUPPORTED_PLATFORMS}), extracted to a temp file because {@link System#load} needs a
 * real file. The system property {@value #PATH_PROPERTY} names another file instead.
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

  static final String LIBRARY_NAME = "tablecache";
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

  private static void load() {
    String expected = jarVersion();
    String override = System.getProperty(PATH_PROPERTY);
    String origin;
    if (override != null && !override.trim().isEmpty()) {
      Path p = Paths.get(override).toAbsolutePath();
      if (!Files.isRegularFile(p)) {
        throw unavailable(
            "native library file " + p + " (from -D" + PATH_PROPERTY + ") does not exist", null);
      }
      origin = p.toString();
      System.load(origin);
    } else {
      Path extracted = extract(resourcePath());
      origin = "extracted from jar resource " + resourcePath();
      System.load(extracted.toString());
      if (!"windows".equals(osName(System.getProperty("os.name", "")))) {
        // The mapping outlives the file on POSIX systems; deleting now leaves nothing behind
        // even when the JVM dies without running deleteOnExit hooks.
        try {
          Files.deleteIfExists(extracted);
        } catch (IOException | SecurityException ignored) {
          // deleteOnExit remains as the fallback
        }
      }
    }
    String actual = NativeCodec.version();
    checkVersion(expected, actual, origin);
  }

  private static Path extract(String resource) {
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw unavailable(
            missingLibraryMessage(
                System.getProperty("os.name", ""), System.getProperty("os.arch", "")),
            null);
      }
      // A unique file per JVM: one library file can be loaded by only one class loader.
      Path tmp = Files.createTempFile("libtablecache-", "-" + System.mapLibraryName(LIBRARY_NAME));
      tmp.toFile().deleteOnExit();
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      return tmp;
    } catch (IOException e) {
      throw unavailable("cannot extract " + resource + " to a temp file: " + e, e);
    }
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
