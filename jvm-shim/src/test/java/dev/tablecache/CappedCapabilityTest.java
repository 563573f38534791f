package dev.tablecache;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.format.FrameParser;
import dev.tablecache.format.FrameParserTest;
import dev.tablecache.format.ParsedFrame;
import dev.tablecache.jni.Capability;
import dev.tablecache.jni.NativeCodec;
import dev.tablecache.jni.NativeLibrary;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Capability fallback. Each nested class runs in its own forked JVM (a surefire execution with
 * -Dtablecache.capability.max or a missing library), because the capability is latched per JVM.
 */
class CappedCapabilityTest {

  static void requireProperty(String name, String value) {
    assumeTrue(value.equals(System.getProperty(name)), "runs only in the JVM with -D" + name + "=" + value);
  }

  /** Writes with every option set, asserts the format, reads back. */
  static void writesAndReads(CacheFormat expectedDefault) {
    try (BufferAllocator a = new RootAllocator();
        VectorSchemaRoot in = Batches.allTypes(a)) {
      for (CacheFormat preferred : CacheFormat.values()) {
        for (boolean stats : new boolean[] {true, false}) {
          WriteOptions o = WriteOptions.builder().preferredFormat(preferred).stats(stats).build();
          byte[] frame = TableCache.serialize(in, o);
          CacheFormat written = CacheFormat.detect(frame);
          assertEquals(TableCache.formatFor(o), written);
          assertTrue(Capability.current().canWrite(written));
          try (VectorSchemaRoot out = TableCache.deserialize(frame, null, a)) {
            RoundTripTest.assertSameData(in, out);
          }
        }
      }
      byte[] frame = TableCache.serialize(in, WriteOptions.defaults());
      assertEquals(expectedDefault, CacheFormat.detect(frame));
      try (VectorSchemaRoot out = TableCache.deserialize(frame, new int[] {2, 0}, a)) {
        assertEquals("i32", out.getVector(0).getName());
      }
    }
  }

  @Nested
  @Tag("cap-v3")
  class CappedAtV3 {
    @Test
    void writesV3EvenWhenV4IsAsked() {
      requireProperty(Capability.CAP_PROPERTY, "V3");
      assertEquals(Capability.V3, Capability.current());
      assertEquals(4, NativeCodec.capabilities(), "the library itself writes V4");
      WriteOptions v4 = WriteOptions.builder().preferredFormat(CacheFormat.V4).build();
      assertEquals(CacheFormat.V3, TableCache.formatFor(v4));
      assertEquals(CacheFormat.V3, TableCache.formatFor(v4.toBuilder().stats(false).build()));
      assertEquals(CacheFormat.V3, TableCache.formatFor(WriteOptions.defaults()));
      writesAndReads(CacheFormat.V3);
    }
  }

  @Nested
  @Tag("cap-v2")
  class CappedAtV2 {
    @Test
    void writesV2AndReadsBack() {
      requireProperty(Capability.CAP_PROPERTY, "V2");
      assertEquals(Capability.V2, Capability.current());
      assertEquals(CacheFormat.V2, TableCache.formatFor(WriteOptions.defaults()));
      assertEquals(
          CacheFormat.LEGACY, TableCache.formatFor(WriteOptions.builder().stats(false).build()),
          "V2 needs stats: without them a V2-only JVM writes legacy");
      writesAndReads(CacheFormat.V2);
      // This JVM loads the library from -Dtablecache.native.path, not the jar.
      assertNotNull(System.getProperty(NativeLibrary.PATH_PROPERTY));
      assertTrue(NativeLibrary.isAvailable());
    }
  }

  @Nested
  @Tag("cap-legacy")
  class CappedAtLegacy {
    @Test
    void writesLegacyAndReadsBack() {
      requireProperty(Capability.CAP_PROPERTY, "LEGACY");
      assertEquals(Capability.LEGACY, Capability.current());
      for (CacheFormat f : CacheFormat.values()) {
        assertEquals(CacheFormat.LEGACY, TableCache.formatFor(WriteOptions.builder().preferredFormat(f).build()));
      }
      writesAndReads(CacheFormat.LEGACY);
    }
  }

  @Nested
  @Tag("cap-unavailable")
  class Unavailable {
    @Test
    void facadeSaysSoClearly() {
      requireProperty(NativeLibrary.PATH_PROPERTY, "/nonexistent/libtablecache.so");
      assertEquals(Capability.UNAVAILABLE, Capability.current());
      assertFalse(TableCache.isAvailable());
      TableCacheException cause = Capability.unavailableCause().get();
      assertEquals(Kind.NATIVE_UNAVAILABLE, cause.kind());
      assertTrue(cause.getMessage().contains("/nonexistent/libtablecache.so"), cause.getMessage());
      try (BufferAllocator a = new RootAllocator();
          VectorSchemaRoot in = Batches.small(a, 4, 1)) {
        TableCacheException w = assertKind(Kind.NATIVE_UNAVAILABLE, () -> TableCache.serialize(in, WriteOptions.defaults()));
        assertTrue(w.getMessage().contains("/nonexistent/libtablecache.so"), w.getMessage());
        assertNotNull(w.getCause(), "the first load failure is kept as the cause");
        assertKind(Kind.NATIVE_UNAVAILABLE, () -> TableCache.deserialize(new byte[] {1, 2, 3, 4}, null, a));
        assertKind(Kind.NATIVE_UNAVAILABLE, () -> TableCache.formatFor(WriteOptions.defaults()));
        // Every later use fails the same way, with the same first failure behind it.
        TableCacheException again = assertKind(Kind.NATIVE_UNAVAILABLE, NativeLibrary::ensureLoaded);
        assertSame(NativeLibrary.failure().get(), again.getCause());
        assertKind(Kind.NATIVE_UNAVAILABLE, NativeLibrary::ensureLoaded);
      }
      // The pure-Java parser needs no library.
      ParsedFrame p = FrameParser.parse(FrameParserTest.good().build());
      assertEquals(5, p.rowCount());
      assertEquals(Capability.UNAVAILABLE, Capability.peek());
    }
  }
}
