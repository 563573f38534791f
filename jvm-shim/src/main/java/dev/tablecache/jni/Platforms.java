package dev.tablecache.jni;

import java.util.Locale;

/**
 * Platform naming: maps {@code os.name}/{@code os.arch} to the jar's {@code /<os>/<arch>/}
 * resources, tells whether the build supports a platform, and says why a jar has no library.
 */
final class Platforms {

  static final String LIBRARY_NAME = "tablecache";
  /** The file cargo writes next to the library (native/jni/build.rs), and its jar resource name. */
  static final String BUILD_ID_FILE = "lib" + LIBRARY_NAME + ".build-id";

  private Platforms() {}

  /** The jar resource holding the library for this JVM's platform. */
  static String resourcePath() {
    return resourcePath(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  /** The jar resource for the given {@code os.name} and {@code os.arch} values. */
  static String resourcePath(String osName, String osArch) {
    return "/" + platform(osName, osArch) + "/" + System.mapLibraryName(LIBRARY_NAME);
  }

  /** The jar resource holding the build id of this JVM's platform's library. */
  static String buildIdResourcePath() {
    return buildIdResourcePath(
        System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  static String buildIdResourcePath(String osName, String osArch) {
    return "/" + platform(osName, osArch) + "/" + BUILD_ID_FILE;
  }

  /** The jar's directory name for a platform, {@code <os>/<arch>}, e.g. linux/aarch64. */
  static String platform(String osName, String osArch) {
    return osName(osName) + "/" + archName(osArch);
  }

  /** Whether the build makes a library for this platform (not: whether this jar carries it). */
  static boolean isSupported(String osName, String osArch) {
    return NativeLibrary.SUPPORTED_PLATFORMS.contains(platform(osName, osArch));
  }

  /** This JVM's os, named as in the jar's directories (linux, darwin, windows, ...). */
  static String currentOs() {
    return osName(System.getProperty("os.name", ""));
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
        + String.join(", ", NativeLibrary.SUPPORTED_PLATFORMS)
        + ". Set -D"
        + NativeLibrary.PATH_PROPERTY
        + " to a libtablecache built for this platform to use one anyway";
  }
}
