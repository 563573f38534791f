package dev.tablecache.format;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Converts between Arrow schemas and encapsulated IPC schema messages, with small bounded caches
 * both ways: a cache holds few distinct schemas but sees one lookup per batch, and flatbuffer
 * (de)serialization per batch is measurable on the hot path.
 */
public final class SchemaCodec {

  static final int CACHE_CAPACITY = 256;

  private static final Map<ByteBuffer, Schema> DECODED = lru();
  private static final Map<Schema, byte[]> ENCODED = lru();

  private SchemaCodec() {}

  /**
   * Decodes an encapsulated IPC schema message of {@code len} bytes at {@code off}.
   *
   * @throws TableCacheException CORRUPT_FRAME when the bytes are not a schema message
   */
  static Schema decode(byte[] bytes, int off, int len) {
    ByteBuffer probe = ByteBuffer.wrap(bytes, off, len).slice(); // content-based equals/hashCode
    synchronized (DECODED) {
      Schema s = DECODED.get(probe);
      if (s != null) {
        return s;
      }
    }
    Schema s = decodeUncached(bytes, off, len);
    byte[] key = new byte[len];
    System.arraycopy(bytes, off, key, 0, len);
    synchronized (DECODED) {
      DECODED.put(ByteBuffer.wrap(key), s);
    }
    return s;
  }

  /** The encapsulated IPC schema message of {@code schema}; callers must not modify it. */
  public static byte[] encode(Schema schema) {
    synchronized (ENCODED) {
      byte[] b = ENCODED.get(schema);
      if (b != null) {
        return b;
      }
    }
    byte[] b = serialize(schema);
    synchronized (ENCODED) {
      ENCODED.put(schema, b);
    }
    return b;
  }

  /**
   * The encapsulated IPC message, through {@link MessageSerializer}: what Arrow 18's {@code
   * Schema.serializeAsMessage} does, and Arrow 12 (Spark 3.5) has only this form.
   */
  private static byte[] serialize(Schema schema) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), schema);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }

  private static Schema decodeUncached(byte[] bytes, int off, int len) {
    // Arrow Java allocates the metadata length it reads, so check it fits the input first.
    if (len < 8) {
      throw corrupt("schema section of " + len + " bytes is too short for an IPC message", null);
    }
    if (LittleEndian.i32(bytes, off) != -1) {
      throw corrupt("schema section does not start with the IPC continuation marker", null);
    }
    int metaLen = LittleEndian.i32(bytes, off + 4);
    if (metaLen <= 0 || metaLen > len - 8) {
      throw corrupt(
          "schema message metadata length " + metaLen + " does not fit the " + len + "-byte section",
          null);
    }
    // Before Arrow Java expands anything: a schema bomb would throw OutOfMemoryError or
    // StackOverflowError there. The walk also rejects the types no frame can carry.
    SchemaBounds.check(bytes, off, len);
    // Then the structure, as the native reader's flatbuffer verifier checks it: Arrow Java's
    // accessors would read a damaged flatbuffer that the native reader refuses.
    FlatbufferVerifier.verifySchemaMessage(bytes, off + 8, metaLen);
    Schema schema;
    try {
      ReadChannel in =
          new ReadChannel(Channels.newChannel(new ByteArrayInputStream(bytes, off, len)));
      schema = MessageSerializer.deserializeSchema(in);
    } catch (IOException | RuntimeException | LinkageError | StackOverflowError e) {
      // flatbuffer accessors on garbage throw anything from IndexOutOfBounds to NPE
      throw corrupt("undecodable schema: " + e, e);
    }
    for (Field field : schema.getFields()) {
      checkTypeParameters(field);
    }
    return schema;
  }

  /**
   * Rejects type parameters arrow-rs refuses (so the native reader does too) anywhere in the
   * schema: impossible decimals and integer widths other than 8, 16, 32 and 64. SchemaBounds has
   * bounded the depth.
   */
  private static void checkTypeParameters(Field field) {
    if (field.getType() instanceof ArrowType.Decimal) {
      checkDecimal(field, (ArrowType.Decimal) field.getType());
    }
    if (field.getType() instanceof ArrowType.Int) {
      int width = ((ArrowType.Int) field.getType()).getBitWidth();
      if (width != 8 && width != 16 && width != 32 && width != 64) {
        throw corrupt(
            "invalid embedded schema: field '" + field.getName() + "' has an integer of "
                + width + " bits",
            null);
      }
    }
    for (Field child : field.getChildren()) {
      checkTypeParameters(child);
    }
  }

  /**
   * A decimal's precision is 1..=its maximum and its scale at most its precision, as the native
   * schema parser (arrow-rs) requires; a damaged schema without a checksum can say otherwise.
   */
  private static void checkDecimal(Field field, ArrowType.Decimal d) {
    int maxPrecision = d.getBitWidth() == 256 ? 76 : 38;
    int precision = d.getPrecision();
    int scale = d.getScale();
    if (precision < 1
        || precision > maxPrecision
        || scale > maxPrecision
        || scale < Byte.MIN_VALUE
        || (scale > 0 && scale > precision)) {
      throw corrupt(
          "invalid embedded schema: field '" + field.getName() + "' has an invalid decimal type "
              + d,
          null);
    }
  }

  private static TableCacheException corrupt(String message, Throwable cause) {
    return new TableCacheException(Kind.CORRUPT_FRAME, message, cause);
  }

  private static <K, V> Map<K, V> lru() {
    return new LinkedHashMap<K, V>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > CACHE_CAPACITY;
      }
    };
  }
}
