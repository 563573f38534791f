package dev.tablecache.format;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flatbuf.Field;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.Schema;
import org.apache.arrow.flatbuf.Type;

/**
 * Bounds on an embedded schema, checked on the raw flatbuffer before Arrow Java converts it
 * (FORMAT.md section 2, "Schema bounds"); the native reader applies the same limits
 * ({@code tablecache_format::schema_bounds}).
 *
 * <p>A flatbuffer can reuse one child table many times (a DAG that expands exponentially), nest
 * tables thousands deep, or name a type the format never carries; Arrow Java's conversion would
 * throw OutOfMemoryError or StackOverflowError, which kill a Spark executor. This walk recurses
 * at most {@link #MAX_DEPTH} levels, allocates nothing per field and stops at the first limit
 * passed.
 */
public final class SchemaBounds {

  /** Deepest field nesting (a top-level field has depth 1): what the native reader decodes. */
  public static final int MAX_DEPTH = 60;
  /** Most fields in total, counted as expanded: every use of a shared child table counts. */
  public static final int MAX_FIELDS = 100_000;
  /** Most children of one field, or top-level fields of the schema. */
  public static final int MAX_CHILDREN = 65_536;
  /** Longest field name, custom-metadata key or custom-metadata value, in bytes. */
  public static final int MAX_NAME_BYTES = 65_536;
  /** Most custom-metadata entries, schema and fields together, expanded. */
  public static final int MAX_METADATA_ENTRIES = 65_536;
  /** Most bytes of names, metadata keys and values in total, expanded. */
  public static final long MAX_STRING_BYTES = 16L << 20;

  private int fields;
  private int metadataEntries;
  private long stringBytes;
  private final List<ByteBuffer> path = new ArrayList<>();
  // One accessor per depth: children are read while their parent's accessor is still in use.
  private final Field[] accessors = new Field[MAX_DEPTH + 2];
  private final KeyValue entry = new KeyValue();
  private final CharsetDecoder utf8 =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  private SchemaBounds() {}

  /**
   * Checks the encapsulated IPC schema message of {@code len} bytes at {@code off} ({@code FF FF
   * FF FF}, {@code i32} length, the {@code Message} flatbuffer).
   *
   * @throws TableCacheException CORRUPT_FRAME naming the limit passed and the field path
   */
  public static void check(byte[] bytes, int off, int len) {
    if (len < 8 || off < 0 || off > bytes.length - len) {
      throw corrupt("the schema message is shorter than its prefix");
    }
    ByteBuffer prefix = ByteBuffer.wrap(bytes, off, len).order(ByteOrder.LITTLE_ENDIAN);
    int metaLen = prefix.getInt(off) == -1 ? prefix.getInt(off + 4) : -1;
    if (metaLen < 0 || metaLen > len - 8) {
      throw corrupt("the schema message's length prefix does not fit its " + len + " bytes");
    }
    ByteBuffer message =
        ByteBuffer.wrap(bytes, off + 8, metaLen).slice().order(ByteOrder.LITTLE_ENDIAN);
    try {
      new SchemaBounds().walk(message);
    } catch (TableCacheException e) {
      throw e;
    } catch (RuntimeException e) {
      // Flatbuffer accessors do not validate: a bad offset throws from inside them.
      throw new TableCacheException(Kind.CORRUPT_FRAME, "schema: undecodable flatbuffer: " + e, e);
    }
  }

  private void walk(ByteBuffer message) {
    Message m = Message.getRootAsMessage(message);
    if (m.headerType() != MessageHeader.Schema) {
      throw corrupt("the message header is type " + m.headerType() + ", not a schema");
    }
    Schema schema = (Schema) m.header(new Schema());
    if (schema == null) {
      throw corrupt("the schema message has no schema");
    }
    int entries = schema.customMetadataLength();
    metadata(entries);
    for (int i = 0; i < entries; i++) {
      keyValue(schema.customMetadata(entry, i));
    }
    int n = schema.fieldsLength();
    children(n);
    for (int i = 0; i < n; i++) {
      field(schema.fields(accessor(1), i), 1);
    }
  }

  private Field accessor(int depth) {
    Field f = accessors[depth];
    if (f == null) {
      f = new Field();
      accessors[depth] = f;
    }
    return f;
  }

  private void field(Field field, int depth) {
    ByteBuffer name = field.nameAsByteBuffer();
    path.add(name);
    fields++;
    if (fields > MAX_FIELDS) {
      throw fail("more than " + MAX_FIELDS + " fields (every use of a shared field counts)");
    }
    if (depth > MAX_DEPTH) {
      throw fail("nesting deeper than " + MAX_DEPTH);
    }
    string(name, "field name");
    byte typeId = field.typeType();
    String typeName = supportedType(typeId);
    if (typeName == null) {
      throw fail("type id " + (typeId & 0xFF) + ", which the format does not carry,");
    }
    int entries = field.customMetadataLength();
    metadata(entries);
    for (int i = 0; i < entries; i++) {
      keyValue(field.customMetadata(entry, i));
    }
    int count = field.childrenLength();
    int expected;
    switch (typeId) {
      case Type.Struct_:
        expected = count;
        break;
      case Type.List:
      case Type.LargeList:
      case Type.FixedSizeList:
      case Type.Map:
        expected = 1;
        break;
      default:
        expected = 0;
    }
    if (count != expected) {
      throw fail(
          "a " + typeName + " field with " + count + " children (it has " + expected + ")");
    }
    children(count);
    for (int i = 0; i < count; i++) {
      field(field.children(accessor(depth + 1), i), depth + 1);
    }
    path.remove(path.size() - 1);
  }

  private void children(int count) {
    if (count > MAX_CHILDREN || count < 0) {
      throw fail(count + " children, more than " + MAX_CHILDREN + ",");
    }
  }

  private void metadata(int entries) {
    if (entries < 0 || entries > MAX_METADATA_ENTRIES - metadataEntries) {
      throw fail("more than " + MAX_METADATA_ENTRIES + " custom-metadata entries");
    }
    metadataEntries += entries;
  }

  private void keyValue(KeyValue kv) {
    string(kv.keyAsByteBuffer(), "metadata key");
    string(kv.valueAsByteBuffer(), "metadata value");
  }

  /** Counts a name, key or value (absent is empty) against the limits; it must be UTF-8. */
  private void string(ByteBuffer s, String what) {
    if (s == null) {
      return;
    }
    int n = s.remaining();
    if (n > MAX_NAME_BYTES) {
      throw fail("a " + what + " of " + n + " bytes, longer than " + MAX_NAME_BYTES + ",");
    }
    stringBytes += n;
    if (stringBytes > MAX_STRING_BYTES) {
      throw fail("more than " + MAX_STRING_BYTES + " bytes of names and metadata");
    }
    try {
      utf8.reset().decode(s.duplicate());
    } catch (CharacterCodingException e) {
      throw fail("a " + what + " that is not UTF-8");
    }
  }

  /** The Arrow type name of a type id the format carries, or null (Union, views, run-end, ...). */
  static String supportedType(byte id) {
    switch (id) {
      case Type.Null: return "Null";
      case Type.Int: return "Int";
      case Type.FloatingPoint: return "FloatingPoint";
      case Type.Binary: return "Binary";
      case Type.Utf8: return "Utf8";
      case Type.Bool: return "Bool";
      case Type.Decimal: return "Decimal";
      case Type.Date: return "Date";
      case Type.Time: return "Time";
      case Type.Timestamp: return "Timestamp";
      case Type.Interval: return "Interval";
      case Type.List: return "List";
      case Type.Struct_: return "Struct";
      case Type.FixedSizeBinary: return "FixedSizeBinary";
      case Type.FixedSizeList: return "FixedSizeList";
      case Type.Map: return "Map";
      case Type.Duration: return "Duration";
      case Type.LargeBinary: return "LargeBinary";
      case Type.LargeUtf8: return "LargeUtf8";
      case Type.LargeList: return "LargeList";
      default: return null;
    }
  }

  private TableCacheException fail(String what) {
    StringBuilder p = new StringBuilder();
    for (ByteBuffer name : path) {
      if (p.length() > 0) {
        p.append('.');
      }
      if (name != null) {
        p.append(ErrorText.name(name));
      }
    }
    return corrupt(what + " at " + (path.isEmpty() ? "the schema's top level" : p.toString()));
  }

  private static TableCacheException corrupt(String message) {
    return new TableCacheException(Kind.CORRUPT_FRAME, "schema: " + message);
  }
}
