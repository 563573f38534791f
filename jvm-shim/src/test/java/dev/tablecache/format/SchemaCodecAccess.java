package dev.tablecache.format;

import org.apache.arrow.vector.types.pojo.Schema;

/** Test access to SchemaCodec's package-private decode from other packages. */
public final class SchemaCodecAccess {
  private SchemaCodecAccess() {}

  /** Encodes {@code schema} and decodes the bytes again, with every check of a read. */
  public static Schema roundTrip(Schema schema) {
    byte[] b = SchemaCodec.encode(schema);
    return SchemaCodec.decode(b, 0, b.length);
  }
}
