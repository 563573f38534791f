package dev.tablecache.jni;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import dev.tablecache.jni.LibraryExtraction.Workdir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

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
 *
 * <p>This class is the entry point and the load-once latch; the steps are package-private
 * classes: {@link Platforms} (resource naming), {@link LibraryHandshake} (version and build id),
 * {@link LibraryExtraction} (workdir, extraction, load-failure diagnosis) and {@link
 * StaleLibraries} (files of dead processes).
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
    return LibraryHandshake.jarVersion();
  }

  /** The jar resource holding the library for this platform, e.g. /linux/amd64/libtablecache.so. */
  public static String resourcePath() {
    return Platforms.resourcePath();
  }

  /** The jar resource holding the build id of this platform's library. */
  public static String buildIdResourcePath() {
    return Platforms.buildIdResourcePath();
  }

  private static void load() {
    String expected = LibraryHandshake.jarVersion();
    String jarBuildId = LibraryHandshake.jarBuildId();
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
      String resource = Platforms.resourcePath();
      LibraryHandshake.requireBuildIdOf(resource, jarBuildId);
      Workdir workdir =
          Workdir.resolve(
              System.getProperty(WORKDIR_PROPERTY), System.getProperty("java.io.tmpdir"));
      StaleLibraries.deleteStale(
          workdir.dir,
          LibraryExtraction.currentPid(),
          StaleLibraries.liveProcessTest(),
          System.currentTimeMillis());
      Path extracted = LibraryExtraction.extract(resource, workdir);
      origin = "extracted from jar resource " + resource + " to " + extracted;
      LibraryExtraction.loadExtracted(extracted, workdir);
    }
    LibraryHandshake.verify(expected, jarBuildId, origin);
  }

  /** A failure of kind NATIVE_UNAVAILABLE: what every loader step throws. */
  static TableCacheException unavailable(String message, Throwable cause) {
    return new TableCacheException(Kind.NATIVE_UNAVAILABLE, message, cause);
  }

  private static String stripKind(TableCacheException e) {
    String m = e.getMessage();
    String prefix = Kind.NATIVE_UNAVAILABLE.name() + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }
}
