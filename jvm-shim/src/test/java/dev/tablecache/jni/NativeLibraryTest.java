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
}
