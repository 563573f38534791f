package dev.tablecache;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.jni.Capability;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Small value types: exception kinds, detection, codec and encoding names, write options. */
class BasicTypesTest {

  @Test
  void exceptionKindFromNativeStrings() {
    TableCacheException e = new TableCacheException("CHECKSUM_MISMATCH", "boom");
    assertEquals(Kind.CHECKSUM_MISMATCH, e.kind());
    assertTrue(e.getMessage().contains("boom"));
    assertTrue(e.getMessage().startsWith("CHECKSUM_MISMATCH"));
    TableCacheException unknown = new TableCacheException("NEW_KIND_FROM_THE_FUTURE", "x");
    assertEquals(Kind.INTERNAL, unknown.kind());
    assertTrue(unknown.getMessage().contains("NEW_KIND_FROM_THE_FUTURE"));
    assertEquals(Kind.INTERNAL, new TableCacheException((String) null, "x").kind());
    for (Kind k : Kind.values()) {
      assertEquals(k, new TableCacheException(k.name(), "m").kind());
    }
    Throwable cause = new IllegalStateException();
    assertSame(cause, new TableCacheException(Kind.INTERNAL, "m", cause).getCause());
  }

  @Test
  void nativeConstructorSignatureIsStable() throws NoSuchMethodException {
    // JNI looks this constructor up by signature: renaming it breaks every native error path.
    assertNotNull(TableCacheException.class.getConstructor(String.class, String.class));
  }

  static byte[] bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return out;
  }

  @Test
  void detection() {
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect(new byte[0]));
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect(bytes(0x89, 0x54, 0x43)));
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect(bytes(0x89, 0x54, 0x43, 0x46)));
    assertEquals(CacheFormat.V4, CacheFormat.detect(bytes(0x89, 0x54, 0x43, 0x46, 4)));
    assertEquals(CacheFormat.V3, CacheFormat.detect(bytes(0x89, 0x54, 0x43, 0x46, 3)));
    assertEquals(CacheFormat.V2, CacheFormat.detect(bytes(0x89, 0x54, 0x43, 0x46, 2)));
    for (int v : new int[] {0, 1, 5, 0x80, 0xFF}) {
      assertKind(Kind.UNSUPPORTED_VERSION, () -> CacheFormat.detect(bytes(0x89, 0x54, 0x43, 0x46, v)));
    }
    assertEquals(CacheFormat.LEGACY, CacheFormat.detect(bytes(0xFF, 0xFF, 0xFF, 0xFF)));
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect("PAR1".getBytes()));
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect(bytes(0xFF, 0xFF, 0xFF, 0xFE)));
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect(bytes(0x08, 0, 0, 0, 0, 0, 0, 0)));
    assertKind(Kind.CORRUPT_FRAME, () -> CacheFormat.detect(bytes(0x89, 0x54, 0x43, 0x47, 3)));
    assertKind(Kind.INVALID_ARGUMENT, () -> CacheFormat.detect(null));
  }

  @Test
  void codecs() {
    assertEquals(0, Codec.NONE.id());
    assertEquals(1, Codec.LZ4.id());
    assertEquals(2, Codec.ZSTD.id());
    assertEquals(3, Codec.AUTO.id());
    assertEquals(Codec.LZ4, Codec.parse(" LZ4 "));
    assertEquals(Codec.ZSTD, Codec.parse("zstd"));
    assertEquals(Codec.ZSTD, Codec.parse("ZStandard"));
    assertEquals(Codec.NONE, Codec.parse("uncompressed"));
    assertEquals(Codec.NONE, Codec.parse("None"));
    assertEquals(Codec.AUTO, Codec.parse("auto"));
    assertEquals(Codec.LZ4, Codec.parse("lz4-frame"));
    assertEquals(Codec.ZSTD, Codec.parse("2"));
    assertKind(Kind.INVALID_ARGUMENT, () -> Codec.parse("snappy"));
    assertKind(Kind.INVALID_ARGUMENT, () -> Codec.parse(null));
    assertEquals(Codec.AUTO, Codec.fromId(3));
    assertEquals(Codec.ADAPTIVE, Codec.parse(" Adaptive "));
    assertEquals(Codec.ADAPTIVE, Codec.fromId(4));
    assertKind(Kind.INVALID_ARGUMENT, () -> Codec.fromId(5));
  }

  @Test
  void encodings() {
    assertEquals(0, Encoding.PLAIN.id());
    assertEquals(1, Encoding.BYTE_STREAM_SPLIT.id());
    assertEquals(Encoding.PLAIN, Encoding.parse(" Plain "));
    assertEquals(Encoding.PLAIN, Encoding.parse("NONE"));
    for (String s : new String[] {"byte_stream_split", "Byte-Stream-Split", "bytestreamsplit", " split"}) {
      assertEquals(Encoding.BYTE_STREAM_SPLIT, Encoding.parse(s), s);
    }
    TableCacheException e = assertKind(Kind.INVALID_ARGUMENT, () -> Encoding.parse("delta"));
    assertTrue(e.getMessage().contains("byte_stream_split") && e.getMessage().contains("plain"), e.getMessage());
    assertKind(Kind.INVALID_ARGUMENT, () -> Encoding.parse("1")); // ids are not names
    assertKind(Kind.INVALID_ARGUMENT, () -> Encoding.parse(null));
    assertEquals(Encoding.PLAIN, Encoding.fromId(0));
    assertEquals(Encoding.BYTE_STREAM_SPLIT, Encoding.fromId(1));
    assertKind(Kind.INVALID_ARGUMENT, () -> Encoding.fromId(2));
    assertKind(Kind.INVALID_ARGUMENT, () -> Encoding.fromId(-1));
  }

  @Test
  void encodingPolicies() {
    assertTrue(EncodingPolicy.AUTO.isAuto());
    assertEquals(null, EncodingPolicy.AUTO.pinnedEncoding());
    assertEquals(-1, EncodingPolicy.AUTO.code());
    assertEquals(EncodingPolicy.AUTO_CODE, EncodingPolicy.AUTO.code());
    for (Encoding e : Encoding.values()) {
      EncodingPolicy p = EncodingPolicy.pinned(e);
      assertFalse(p.isAuto());
      assertEquals(e, p.pinnedEncoding());
      assertEquals(e.id(), p.code(), "a pinned policy's code is the encoding's id");
      assertEquals(p, EncodingPolicy.parse(p.name()), "names round trip");
      assertEquals(p.hashCode(), EncodingPolicy.pinned(e).hashCode());
      assertNotEquals(EncodingPolicy.AUTO, p);
    }
    for (String s : new String[] {"auto", " AUTO ", "Auto"}) {
      assertEquals(EncodingPolicy.AUTO, EncodingPolicy.parse(s), s);
    }
    assertEquals(EncodingPolicy.AUTO, EncodingPolicy.parse(EncodingPolicy.AUTO.name()));
    assertEquals(EncodingPolicy.pinned(Encoding.PLAIN), EncodingPolicy.parse(" Plain "));
    assertEquals(EncodingPolicy.pinned(Encoding.BYTE_STREAM_SPLIT), EncodingPolicy.parse("split"));
    TableCacheException e = assertKind(Kind.INVALID_ARGUMENT, () -> EncodingPolicy.parse("delta"));
    assertTrue(e.getMessage().contains("delta") && e.getMessage().contains("auto"), e.getMessage());
    assertKind(Kind.INVALID_ARGUMENT, () -> EncodingPolicy.parse(null));
    assertKind(Kind.INVALID_ARGUMENT, () -> EncodingPolicy.pinned(null));
  }

  @Test
  void writeOptions() {
    WriteOptions d = WriteOptions.defaults();
    assertEquals(CacheFormat.V3, d.preferredFormat());
    assertTrue(d.stats());
    assertEquals(Codec.LZ4, d.codec());
    assertEquals(EncodingPolicy.AUTO, d.encodingPolicy());
    assertEquals(256, d.stringBoundLimit());
    WriteOptions o =
        WriteOptions.builder().preferredFormat(CacheFormat.V2).stats(false).codec(Codec.ZSTD).stringBoundLimit(1).build();
    assertEquals(CacheFormat.V2, o.preferredFormat());
    assertFalse(o.stats());
    assertEquals(Codec.ZSTD, o.codec());
    assertEquals(1, o.stringBoundLimit());
    assertEquals(o, o.toBuilder().build());
    assertNotEquals(o, d);
    WriteOptions plain = d.toBuilder().encoding(Encoding.PLAIN).build();
    assertEquals(EncodingPolicy.pinned(Encoding.PLAIN), plain.encodingPolicy());
    assertEquals(plain, plain.toBuilder().build());
    assertEquals(plain.hashCode(), plain.toBuilder().build().hashCode());
    assertNotEquals(d, plain);
    assertTrue(plain.toString().contains("encoding=PLAIN"), plain.toString());
    assertKind(Kind.INVALID_ARGUMENT, () -> WriteOptions.builder().stringBoundLimit(0));
    assertKind(Kind.INVALID_ARGUMENT, () -> WriteOptions.builder().stringBoundLimit(-5));
    assertKind(Kind.INVALID_ARGUMENT, () -> WriteOptions.builder().codec(null));
    assertKind(Kind.INVALID_ARGUMENT, () -> WriteOptions.builder().encoding(null));
    assertKind(Kind.INVALID_ARGUMENT, () -> WriteOptions.builder().encodingPolicy(null));
    assertTrue(d.toString().contains("encoding=AUTO"), d.toString());
    WriteOptions split = d.toBuilder().encoding(Encoding.BYTE_STREAM_SPLIT).build();
    assertNotEquals(d, split, "auto and pinned split are different options (same bytes today)");
    assertEquals(split, d.toBuilder().encodingPolicy(EncodingPolicy.pinned(Encoding.BYTE_STREAM_SPLIT)).build());
    assertKind(Kind.INVALID_ARGUMENT, () -> WriteOptions.builder().preferredFormat(null));
  }

  @Test
  void versionBytes() {
    assertEquals(4, CacheFormat.V4.versionByte());
    assertEquals(3, CacheFormat.V3.versionByte());
    assertEquals(2, CacheFormat.V2.versionByte());
    assertEquals(0, CacheFormat.LEGACY.versionByte());
    // TableCache.formatFor falls back along the declaration order: newest first.
    assertEquals(
        Arrays.asList(CacheFormat.V4, CacheFormat.V3, CacheFormat.V2, CacheFormat.LEGACY),
        Arrays.asList(CacheFormat.values()));
  }

  @Test
  void capabilityCanWrite() {
    for (CacheFormat f : CacheFormat.values()) {
      assertTrue(Capability.V4.canWrite(f), f.toString());
    }
    assertFalse(Capability.V3.canWrite(CacheFormat.V4), "a V3 library never writes V4");
    assertFalse(Capability.V2.canWrite(CacheFormat.V4));
    assertFalse(Capability.LEGACY.canWrite(CacheFormat.V4));
    assertTrue(Capability.V3.canWrite(CacheFormat.V3));
    assertTrue(Capability.V3.canWrite(CacheFormat.V2));
    assertTrue(Capability.V3.canWrite(CacheFormat.LEGACY));
    assertFalse(Capability.V2.canWrite(CacheFormat.V3));
    assertTrue(Capability.V2.canWrite(CacheFormat.V2));
    assertTrue(Capability.V2.canWrite(CacheFormat.LEGACY));
    assertFalse(Capability.LEGACY.canWrite(CacheFormat.V2));
    assertTrue(Capability.LEGACY.canWrite(CacheFormat.LEGACY));
    for (CacheFormat f : CacheFormat.values()) {
      assertFalse(Capability.UNAVAILABLE.canWrite(f));
      assertFalse(Capability.UNKNOWN.canWrite(f));
    }
  }
}
