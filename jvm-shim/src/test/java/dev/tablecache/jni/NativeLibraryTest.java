package dev.tablecache.jni;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import org.junit.jupiter.api.Test;

/** The loader's version handshake and resource naming, checked without loading the library. */
class NativeLibraryTest {

  @Test
  void versionHandshakeRefusesMismatches() {
    NativeLibrary.checkVersion("0.1.0", "0.1.0", "test");
    TableCacheException e =
        assertKind(Kind.NATIVE_UNAVAILABLE, () -> NativeLibrary.checkVersion("0.1.0", "0.0.9", "/x/libtablecache.so"));
    assertTrue(e.getMessage().contains("0.1.0") && e.getMessage().contains("0.0.9"), e.getMessage());
    assertKind(Kind.NATIVE_UNAVAILABLE, () -> NativeLibrary.checkVersion("0.1.0", null, "x"));
  }

  @Test
  void jarVersionIsFiltered() {
    String v = NativeLibrary.jarVersion();
    assertFalse(v.contains("$"), v);
    assertEquals(System.getProperty("tablecache.expected.version", v), v);
  }

  @Test
  void resourcePathNamesOsAndArch() {
    String p = NativeLibrary.resourcePath();
    assertTrue(p.matches("/[a-z0-9]+/[a-z0-9_]+/.*tablecache.*"), p);
    if (System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64")) {
      assertEquals("/linux/amd64/libtablecache.so", p);
    }
  }

  @Test
  void linuxArchesMapToTheJarDirectories() {
    assertEquals("/linux/amd64/libtablecache.so", linuxOnly("Linux", "amd64"));
    assertEquals("/linux/amd64/libtablecache.so", linuxOnly("Linux", "x86_64"));
    assertEquals("/linux/aarch64/libtablecache.so", linuxOnly("Linux", "aarch64"));
    assertEquals("/linux/aarch64/libtablecache.so", linuxOnly("Linux", "arm64"));
    assertTrue(NativeLibrary.isSupported("Linux", "aarch64"));
    assertTrue(NativeLibrary.isSupported("Linux", "amd64"));
    assertEquals("darwin/aarch64", NativeLibrary.platform("Mac OS X", "aarch64"));
    assertEquals("linux/ppc64le", NativeLibrary.platform("Linux", "ppc64le"));
    assertFalse(NativeLibrary.isSupported("Mac OS X", "aarch64"));
    assertFalse(NativeLibrary.isSupported("Linux", "ppc64le"));
    assertFalse(NativeLibrary.isSupported("Windows 11", "amd64"));
  }

  @Test
  void unsupportedPlatformMessageNamesItAndTheSupportedOnes() {
    String m = NativeLibrary.missingLibraryMessage("Mac OS X", "arm64");
    assertTrue(m.startsWith("tablecache has no native library for darwin/aarch64"), m);
    assertTrue(m.contains("os.name=Mac OS X, os.arch=arm64"), m);
    assertTrue(m.contains("supported platforms: linux/amd64, linux/aarch64"), m);
    assertTrue(m.contains("-D" + NativeLibrary.PATH_PROPERTY), m);
    assertTrue(
        NativeLibrary.missingLibraryMessage("Linux", "s390x")
            .startsWith("tablecache has no native library for linux/s390x"));
  }

  @Test
  void supportedPlatformWithoutItsLibrarySaysTheJarLacksIt() {
    String m = NativeLibrary.missingLibraryMessage("Linux", "aarch64");
    assertTrue(m.startsWith("this jar was built without the linux/aarch64 native library"), m);
    assertTrue(m.contains("/linux/aarch64/libtablecache.so"), m);
    assertTrue(m.contains("supported platforms: linux/amd64, linux/aarch64"), m);
  }

  @Test
  void theJarCarriesTheLibraryOfEverySupportedPlatformItWasBuiltWith() {
    // The amd64 library is always required by the build; aarch64 only when Maven was told to
    // require it (-Dtablecache.requireAarch64=true, which CI sets through scripts/build.sh).
    assertNotNull(NativeLibrary.class.getResource("/linux/amd64/libtablecache.so"));
    if (Boolean.getBoolean("tablecache.requireAarch64")) {
      assertNotNull(NativeLibrary.class.getResource("/linux/aarch64/libtablecache.so"));
    }
  }

  /** The resource path for a fake os.name/os.arch, file name as on Linux whatever the host. */
  private static String linuxOnly(String os, String arch) {
    return NativeLibrary.resourcePath(os, arch)
        .replace(System.mapLibraryName("tablecache"), "libtablecache.so");
  }
}
