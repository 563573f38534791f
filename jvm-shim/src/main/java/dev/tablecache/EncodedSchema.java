package dev.tablecache;

import dev.tablecache.format.SchemaCodec;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An Arrow schema with its encoded message, made once per writer: the native side interns
 * schemas by these bytes, so re-encoding per batch would only cost time.
 */
public final class EncodedSchema {

  private final Schema schema;
  private final byte[] message;

  private EncodedSchema(Schema schema, byte[] message) {
    this.schema = schema;
    this.message = message;
  }

  /** Encodes {@code schema} as the native writer expects it. */
  public static EncodedSchema of(Schema schema) {
    if (schema == null) {
      throw new TableCacheException(TableCacheException.Kind.INVALID_ARGUMENT, "schema is null");
    }
    return new EncodedSchema(schema, SchemaCodec.encode(schema));
  }

  public Schema schema() {
    return schema;
  }

  byte[] message() {
    return message;
  }
}
