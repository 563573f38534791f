package dev.tablecache.jni;

import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.CacheFormat;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.WriteOptions;
import org.junit.jupiter.api.Test;

/** The default JVM: the full library, loaded from the jar resource, version-checked. */
class CapabilityTest extends NativeTestBase {

  @Test
  void fullLibraryIsV3() {
    assertNull(System.getProperty(Capability.CAP_PROPERTY), "run capped tests in their own JVM");
    assertEquals(Capability.V3, Capability.current());
    assertEquals(Capability.V3, Capability.peek());
    assertTrue(Capability.unavailableCause().isEmpty());
    assertTrue(TableCache.isAvailable());
    assertTrue(NativeLibrary.isAvailable());
    assertTrue(NativeLibrary.failure().isEmpty());
    assertEquals(3, NativeCodec.capabilities());
  }

  @Test
  void versionsMatch() {
    assertEquals(NativeLibrary.jarVersion(), NativeCodec.version());
  }

  @Test
  void buildIdsMatch() {
    String jar = LibraryHandshake.jarBuildId();
    assertNotNull(jar, "the jar must carry " + NativeLibrary.buildIdResourcePath());
    assertEquals(jar, NativeCodec.buildId());
  }

  @Test
  void loadedFromTheJarResourceByDefault() {
    if (System.getProperty(NativeLibrary.PATH_PROPERTY) == null) {
      assertNotNull(
          NativeLibrary.class.getResource(NativeLibrary.resourcePath()),
          "the build must put the library at " + NativeLibrary.resourcePath());
    }
  }

  @Test
  void formatFallbackOrder() {
    WriteOptions.Builder b = WriteOptions.builder();
    assertEquals(CacheFormat.V3, TableCache.formatFor(b.build()));
    assertEquals(CacheFormat.V3, TableCache.formatFor(b.stats(false).build()));
    assertEquals(CacheFormat.V2, TableCache.formatFor(b.stats(true).preferredFormat(CacheFormat.V2).build()));
    assertEquals(CacheFormat.LEGACY, TableCache.formatFor(b.stats(false).preferredFormat(CacheFormat.V2).build()));
    assertEquals(CacheFormat.LEGACY, TableCache.formatFor(b.stats(true).preferredFormat(CacheFormat.LEGACY).build()));
    assertEquals(CacheFormat.V3, TableCache.formatFor(null));
  }
}
