package dev.tablecache.jni;

import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.CacheFormat;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.WriteOptions;
import org.junit.jupiter.api.Test;

/** The default JVM: the full library, loaded from the jar resource, version-checked. */
class CapabilityTest extends NativeTestBase {

  @Test
  void fullLibraryIsV4() {
    assertNull(System.getProperty(Capability.CAP_PROPERTY), "run capped tests in their own JVM");
    assertEquals(Capability.V4, Capability.current());
    assertEquals(Capability.V4, Capability.peek());
    assertFalse(Capability.unavailableCause().isPresent());
    assertTrue(TableCache.isAvailable());
    assertTrue(NativeLibrary.isAvailable());
    assertFalse(NativeLibrary.failure().isPresent());
    assertEquals(4, NativeCodec.capabilities());
  }

  @Test
  void probeValuesAndCapNames() {
    assertEquals(Capability.V4, Capability.fromNative(4).capability);
    assertEquals(Capability.V3, Capability.fromNative(3).capability);
    assertEquals(Capability.V2, Capability.fromNative(2).capability);
    assertEquals(Capability.LEGACY, Capability.fromNative(1).capability);
    for (int unknown : new int[] {0, 5, -1}) {
      Capability.Probe p = Capability.fromNative(unknown);
      assertEquals(Capability.UNAVAILABLE, p.capability);
      assertEquals(TableCacheException.Kind.NATIVE_UNAVAILABLE, p.cause.kind());
      assertTrue(p.cause.getMessage().contains("(expected 1, 2, 3 or 4)"), p.cause.getMessage());
    }
    assertEquals(Capability.V4, Capability.parseCap("V4").capability);
    assertEquals(Capability.V4, Capability.parseCap(" v4 ").capability);
    assertEquals(Capability.V3, Capability.parseCap("v3").capability);
    assertNull(Capability.parseCap(""));
    TableCacheException bad = assertThrows(TableCacheException.class, () -> Capability.parseCap("V5"));
    assertTrue(bad.getMessage().contains("expected V4, V3, V2, LEGACY or UNAVAILABLE"), bad.getMessage());
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
    // V4 is opt-in: the default stays V3 although this library writes V4.
    assertEquals(CacheFormat.V3, TableCache.formatFor(b.build()));
    assertEquals(CacheFormat.V4, TableCache.formatFor(b.preferredFormat(CacheFormat.V4).build()));
    assertEquals(CacheFormat.V4, TableCache.formatFor(b.stats(false).build()));
    b.preferredFormat(CacheFormat.V3).stats(true);
    assertEquals(CacheFormat.V3, TableCache.formatFor(b.build()));
    assertEquals(CacheFormat.V3, TableCache.formatFor(b.stats(false).build()));
    assertEquals(CacheFormat.V2, TableCache.formatFor(b.stats(true).preferredFormat(CacheFormat.V2).build()));
    assertEquals(CacheFormat.LEGACY, TableCache.formatFor(b.stats(false).preferredFormat(CacheFormat.V2).build()));
    assertEquals(CacheFormat.LEGACY, TableCache.formatFor(b.stats(true).preferredFormat(CacheFormat.LEGACY).build()));
    assertEquals(CacheFormat.V3, TableCache.formatFor(null));
  }
}
