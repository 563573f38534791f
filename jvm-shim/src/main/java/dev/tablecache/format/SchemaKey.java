package dev.tablecache.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * A schema section's bytes as a cache key. Its hash is a CRC-32 of the bytes, which the JVM
 * computes with carry-less multiply instructions (Java 8 and later): {@link ByteBuffer#hashCode}
 * walks them a byte at a time, about 10 µs for a 256-column schema, paid on every batch read.
 */
final class SchemaKey {

  private final ByteBuffer bytes;
  private final int hash;

  private SchemaKey(ByteBuffer bytes, int hash) {
    this.bytes = bytes;
    this.hash = hash;
  }

  /** A key over {@code len} bytes of {@code array} at {@code off}, without copying them. */
  static SchemaKey probe(byte[] array, int off, int len) {
    CRC32 crc = new CRC32();
    crc.update(array, off, len);
    return new SchemaKey(ByteBuffer.wrap(array, off, len).slice(), (int) crc.getValue());
  }

  /** This key over its own copy of the bytes, to be kept in a cache. */
  SchemaKey copy() {
    byte[] own = new byte[bytes.remaining()];
    bytes.duplicate().get(own);
    return new SchemaKey(ByteBuffer.wrap(own), hash);
  }

  /** The number of bytes keyed. */
  int length() {
    return bytes.remaining();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SchemaKey)) {
      return false;
    }
    SchemaKey other = (SchemaKey) o;
    return hash == other.hash && bytes.equals(other.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
