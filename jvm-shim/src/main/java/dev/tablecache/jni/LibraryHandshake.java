package dev.tablecache.jni;

import static dev.tablecache.jni.NativeLibrary.unavailable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Properties;

/**
 * The handshake: what the jar says it was built with (its version, its native build id for this
 * platform) against what the loaded library reports. Any mismatch is fatal.
 */
final class LibraryHandshake {

  private static final String VERSION_RESOURCE = "/dev/tablecache/version.properties";

  private LibraryHandshake() {}

  /** The version this jar was built with (from the Maven-filtered version.properties). */
  static String jarVersion() {
    try (InputStream in = LibraryHandshake.class.getResourceAsStream(VERSION_RESOURCE)) {
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

  /**
   * The build id this jar carries for this platform's library, or null when the jar has none
   * (a platform it has no library for).
   */
  static String jarBuildId() {
    String resource = Platforms.buildIdResourcePath();
    try (InputStream in = LibraryHandshake.class.getResourceAsStream(resource)) {
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

  /**
   * Refuses to extract a library resource the jar carries without its build id: that jar was
   * not assembled by jvm-shim/pom.xml, so nothing would tell a stale library from the right one.
   */
  static void requireBuildIdOf(String resource, String jarBuildId) {
    if (LibraryHandshake.class.getResource(resource) != null && jarBuildId == null) {
      throw unavailable(
          "jar resource "
              + Platforms.buildIdResourcePath()
              + " is missing: this jar carries "
              + resource
              + " without its build id (a jar not built by jvm-shim/pom.xml?)",
          null);
    }
  }

  /**
   * Checks the loaded library against the jar: its version always, its build id when the jar
   * carries one for this platform.
   *
   * @param origin where the library came from, for the messages
   */
  static void verify(String jarVersion, String jarBuildId, String origin) {
    checkVersion(jarVersion, NativeCodec.version(), origin);
    if (jarBuildId != null) {
      // A library for a platform this jar has none for (-Dtablecache.native.path) has nothing to
      // be compared with; the version check above still applies.
      checkBuildId(jarBuildId, libraryBuildId(origin), origin);
    }
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
   * @param jarBuildId the id the jar carries for this platform ({@link #jarBuildId()})
   * @param libraryBuildId what the loaded library reports ({@link NativeCodec#buildId()})
   * @param origin where the library came from, for the message
   */
  static void checkBuildId(String jarBuildId, String libraryBuildId, String origin) {
    if (!Objects.equals(jarBuildId, libraryBuildId)) {
      throw unavailable(
          "build id mismatch: the jar carries native build "
              + jarBuildId
              + " (jar resource "
              + Platforms.buildIdResourcePath()
              + ") but the native library "
              + origin
              + " is build "
              + libraryBuildId
              + ": a library from another build (a stale one?); refusing to use it",
          null);
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

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[256];
    for (int n; (n = in.read(buffer)) > 0; ) {
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }
}
