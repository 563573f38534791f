package dev.tablecache.format;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
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

  /**
   * Bytes each cache may hold, as {@link #schemaWeight} estimates them: 64 MiB. 256 usual schemas
   * (200 columns of 30-byte names weigh about 60 KiB) stay far below it, so the count binds;
   * 256 schemas near the read bounds ({@link SchemaBounds}: 100,000 fields, 16 MiB of names, 50
   * MiB and more each on the heap) would pin over 12 GiB by count alone. A schema too large for
   * the budget is decoded on every use instead: slower, never wrong.
   */
  static final long CACHE_BUDGET_BYTES = 64L << 20;

  /** An entry's own objects: the map node, its weight record and the key's wrapper. */
  private static final long ENTRY_OVERHEAD = 128;

  static final WeightedLru<SchemaKey, Schema> DECODED =
      new WeightedLru<>(
          CACHE_CAPACITY,
          CACHE_BUDGET_BYTES,
          (key, schema) -> ENTRY_OVERHEAD + arrayBytes(key.length()) + schemaWeight(schema));
  static final WeightedLru<Schema, byte[]> ENCODED =
      new WeightedLru<>(
          CACHE_CAPACITY,
          CACHE_BUDGET_BYTES,
          (schema, bytes) -> ENTRY_OVERHEAD + arrayBytes(bytes.length) + schemaWeight(schema));

  private SchemaCodec() {}

  /**
   * Decodes an encapsulated IPC schema message of {@code len} bytes at {@code off}.
   *
   * @throws TableCacheException CORRUPT_FRAME when the bytes are not a schema message
   */
  static Schema decode(byte[] bytes, int off, int len) {
    MetadataReads.SCHEMAS.increment();
    SchemaKey probe = SchemaKey.probe(bytes, off, len);
    Schema s = DECODED.get(probe);
    if (s != null) {
      return s;
    }
    s = decodeUncached(bytes, off, len);
    DECODED.put(probe.copy(), s);
    return s;
  }

  /** The encapsulated IPC schema message of {@code schema}; callers must not modify it. */
  public static byte[] encode(Schema schema) {
    byte[] b = ENCODED.get(schema);
    if (b != null) {
      return b;
    }
    b = serialize(schema);
    ENCODED.put(schema, b);
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
      throw corrupt("undecodable schema: " + ErrorText.text(e), e);
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
            "invalid embedded schema: field '" + ErrorText.name(field.getName()) + "' has an integer of "
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
          "invalid embedded schema: field '" + ErrorText.name(field.getName())
              + "' has an invalid decimal type "
              + d,
          null);
    }
  }

  private static TableCacheException corrupt(String message, Throwable cause) {
    return new TableCacheException(Kind.CORRUPT_FRAME, message, cause);
  }

  /**
   * Heap bytes of a decoded Arrow Java schema, estimated by walking it: per field its {@code
   * Field}, {@code FieldType}, {@code ArrowType} and children list ({@link #FIELD_OVERHEAD}), its
   * name as a {@code String} (one byte a char when Latin-1, else two) and its metadata. A direct
   * walk, not a multiple of the encoded length: a message may share one child table many times,
   * and Arrow Java expands every use.
   */
  static long schemaWeight(Schema schema) {
    long w = 64 + metadataWeight(schema.getCustomMetadata());
    for (Field f : schema.getFields()) {
      w += fieldWeight(f);
    }
    return w;
  }

  /**
   * A field's own objects with compressed references: {@code Field} (24 bytes), {@code
   * FieldType} (32), its {@code ArrowType} (24), the name's {@code String} (24) and array
   * header (16), the children list (an immutable list and its array, about 40) and a slot in
   * its parent's list; rounded up.
   */
  private static final long FIELD_OVERHEAD = 176;

  private static long fieldWeight(Field f) {
    long w = FIELD_OVERHEAD + stringBytes(f.getName()) + metadataWeight(f.getMetadata());
    for (Field child : f.getChildren()) {
      w += fieldWeight(child);
    }
    return w;
  }

  private static long metadataWeight(Map<String, String> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return 0;
    }
    long w = 64 + 16L * metadata.size(); // the map and its table
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      w += 32 + 2 * 40 + stringBytes(e.getKey()) + stringBytes(e.getValue()); // node, strings
    }
    return w;
  }

  /** A {@code String}'s value array: one byte a char when all are Latin-1, else two. */
  private static long stringBytes(String s) {
    if (s == null) {
      return 0;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) > 0xFF) {
        return 2L * s.length();
      }
    }
    return s.length();
  }

  private static long arrayBytes(int length) {
    return 16 + ((length + 7L) & ~7L);
  }
}
