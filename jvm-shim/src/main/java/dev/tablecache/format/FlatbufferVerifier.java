package dev.tablecache.format;

import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;

/**
 * Structural verification of the {@code Message} flatbuffer of a schema message, before Arrow
 * Java reads it (FORMAT.md section 2, "Schema bounds").
 *
 * <p>Arrow Java's flatbuffer accessors trust the bytes: a string without its terminator, a
 * misaligned offset or a vtable that runs past the end reads as whatever lies there. The native
 * reader runs arrow-ipc's {@code root_as_message}, the {@code flatbuffers} crate's {@code
 * Verifier} with its default options, and refuses such a message. So this class repeats that
 * verifier's rules for every table the schema reaches (Message, Schema, Field and its type
 * table, DictionaryEncoding and its index type, KeyValue), in the same order and with the same
 * limits, and both readers refuse the same inputs, both as {@code CORRUPT_FRAME}:
 *
 * <ul>
 *   <li>every scalar, offset and vtable entry inside the buffer and aligned to its size, counted
 *       from the start of the flatbuffer;
 *   <li>a table's signed offset leads to a vtable inside the buffer, of even length, wholly
 *       inside the buffer;
 *   <li>a vector's or string's length fits the bytes present; a string is UTF-8 and followed by
 *       a zero byte;
 *   <li>a union has both its type and its value, or neither;
 *   <li>at most {@value #MAX_DEPTH} nested tables, {@value #MAX_TABLES} tables in all and an
 *       apparent size (every visit counted) of at most 2^31 bytes.
 * </ul>
 *
 * <p>Two rules come from the native side's own walk and conversion rather than the crate's
 * verifier: the tables {@code schema_bounds.rs} reads (Message, Schema, Field, the schema's and
 * fields' KeyValues) need a vtable of at least its 4-byte header, and a Schema must have its
 * {@code fields} vector (arrow-ipc: "IPC schema has no fields"; Arrow Java reads it as empty).
 *
 * <p>The recursion follows nested tables only, so it is at most {@value #MAX_DEPTH} deep; a
 * claimed length is checked against the bytes present before any element is read, and nothing
 * is allocated by one.
 */
final class FlatbufferVerifier {

  /** The flatbuffers crate's {@code VerifierOptions::default()}, which arrow-ipc uses. */
  static final int MAX_DEPTH = 64;

  static final int MAX_TABLES = 1_000_000;
  static final long MAX_APPARENT_SIZE = 1L << 31;

  // MessageHeader and Type union ids (Message.fbs, Schema.fbs).
  private static final int HEADER_SCHEMA = 1;
  private static final int TYPE_INT = 2;
  private static final int TYPE_FLOATING_POINT = 3;
  private static final int TYPE_DECIMAL = 7;
  private static final int TYPE_DATE = 8;
  private static final int TYPE_TIME = 9;
  private static final int TYPE_TIMESTAMP = 10;
  private static final int TYPE_INTERVAL = 11;
  private static final int TYPE_UNION = 14;
  private static final int TYPE_FIXED_SIZE_BINARY = 15;
  private static final int TYPE_FIXED_SIZE_LIST = 16;
  private static final int TYPE_MAP = 17;
  private static final int TYPE_DURATION = 18;
  private static final int TYPE_LAST = 26; // LargeListView; newer ids are not verified

  private final byte[] buf;
  private final int base;
  private final int length;
  private int depth;
  private int tables;
  private long apparentSize;

  private FlatbufferVerifier(byte[] buf, int base, int length) {
    this.buf = buf;
    this.base = base;
    this.length = length;
  }

  /**
   * Verifies the {@code Message} flatbuffer of {@code length} bytes at {@code start} (an
   * encapsulated message's metadata, after the marker and length prefix), whose header must be
   * a schema.
   *
   * @throws TableCacheException CORRUPT_FRAME naming the first rule broken and its position
   */
  static void verifySchemaMessage(byte[] bytes, int start, int length) {
    if (start < 0 || length < 0 || start > bytes.length - length) {
      throw new IllegalArgumentException("range outside the array");
    }
    new FlatbufferVerifier(bytes, start, length).message();
  }

  // ---- tables ----

  /** The root: the offset at byte 0 leads to the Message table. */
  private void message() {
    Table m = table(follow(0), true);
    m.scalar(4, 2); // version
    long headerAt = m.slot(8);
    long typeAt = m.slot(6);
    if (headerAt < 0 || typeAt < 0) {
      throw fail(
          typeAt < 0 && headerAt < 0
              ? "the message has no header"
              : "the message's header type and header are not both present",
          m.pos);
    }
    inBuffer(typeAt, 1);
    if (u8(typeAt) != HEADER_SCHEMA) {
      // The native reader verifies other headers and then finds no schema: refused either way.
      throw fail("the message header is type " + u8(typeAt) + ", not a schema", typeAt);
    }
    schema(follow(headerAt));
    m.scalar(10, 8); // bodyLength
    keyValues(m.slot(12), false);
    m.finish();
  }

  private void schema(long pos) {
    Table s = table(pos, true);
    s.scalar(4, 2); // endianness
    long fields = s.slot(6);
    if (fields < 0) {
      throw fail("the schema has no fields vector", s.pos);
    }
    fieldVector(follow(fields));
    keyValues(s.slot(8), true);
    long features = s.slot(10);
    if (features >= 0) {
      vector(follow(features), 8);
    }
    s.finish();
  }

  private void fieldVector(long pos) {
    long n = vector(pos, 4);
    for (long i = 0; i < n; i++) {
      field(follow(pos + 4 + 4 * i));
    }
  }

  private void field(long pos) {
    Table f = table(pos, true);
    string(f.slot(4)); // name
    f.scalar(6, 1); // nullable
    long valueAt = f.slot(10);
    long typeAt = f.slot(8);
    if ((valueAt < 0) != (typeAt < 0)) {
      throw fail("a field's type id and type table are not both present", f.pos);
    }
    if (typeAt >= 0) {
      inBuffer(typeAt, 1);
      typeTable(u8(typeAt), valueAt);
    }
    long dictionary = f.slot(12);
    if (dictionary >= 0) {
      dictionaryEncoding(follow(dictionary));
    }
    long children = f.slot(14);
    if (children >= 0) {
      fieldVector(follow(children));
    }
    keyValues(f.slot(16), true);
    f.finish();
  }

  /** The table of a {@code Type} union value; ids the verifier does not know are not read. */
  private void typeTable(int typeId, long valueAt) {
    if (typeId == 0 || typeId > TYPE_LAST) {
      return; // NONE and unknown variants: the crate's verifier skips them too
    }
    Table t = table(follow(valueAt), false);
    switch (typeId) {
      case TYPE_INT:
        t.scalar(4, 4); // bitWidth
        t.scalar(6, 1); // is_signed
        break;
      case TYPE_FLOATING_POINT:
      case TYPE_DATE:
      case TYPE_INTERVAL:
      case TYPE_DURATION:
        t.scalar(4, 2); // precision or unit
        break;
      case TYPE_DECIMAL:
        t.scalar(4, 4); // precision
        t.scalar(6, 4); // scale
        t.scalar(8, 4); // bitWidth
        break;
      case TYPE_TIME:
        t.scalar(4, 2); // unit
        t.scalar(6, 4); // bitWidth
        break;
      case TYPE_TIMESTAMP:
        t.scalar(4, 2); // unit
        string(t.slot(6)); // timezone
        break;
      case TYPE_UNION:
        t.scalar(4, 2); // mode
        long typeIds = t.slot(6);
        if (typeIds >= 0) {
          vector(follow(typeIds), 4);
        }
        break;
      case TYPE_FIXED_SIZE_BINARY:
      case TYPE_FIXED_SIZE_LIST:
        t.scalar(4, 4); // byteWidth or listSize
        break;
      case TYPE_MAP:
        t.scalar(4, 1); // keysSorted
        break;
      default:
        break; // tables without fields (Null, Utf8, List, Struct_, ...)
    }
    t.finish();
  }

  private void dictionaryEncoding(long pos) {
    Table d = table(pos, false);
    d.scalar(4, 8); // id
    long indexType = d.slot(6);
    if (indexType >= 0) {
      Table i = table(follow(indexType), false);
      i.scalar(4, 4); // bitWidth
      i.scalar(6, 1); // is_signed
      i.finish();
    }
    d.scalar(8, 1); // isOrdered
    d.scalar(10, 2); // dictionaryKind
    d.finish();
  }

  /**
   * An optional vector of KeyValue tables at the offset field {@code at} (-1: absent); {@code
   * walked}: whether the native schema walk reads these entries too (the schema's and fields'
   * metadata, not the message's).
   */
  private void keyValues(long at, boolean walked) {
    if (at < 0) {
      return;
    }
    long pos = follow(at);
    long n = vector(pos, 4);
    for (long i = 0; i < n; i++) {
      Table kv = table(follow(pos + 4 + 4 * i), walked);
      string(kv.slot(4)); // key
      string(kv.slot(6)); // value
      kv.finish();
    }
  }

  // ---- the crate's primitive checks ----

  /** {@code Verifier::visit_table}; {@code walked}: the native schema walk reads it too. */
  private Table table(long pos, boolean walked) {
    inBuffer(pos, 4);
    int soffset = i32(pos);
    long vtable = pos - soffset;
    if (vtable < 0 || vtable >= length) {
      throw fail("the signed offset " + soffset + " of a table points outside the buffer", pos);
    }
    inBuffer(vtable, 2);
    int vtableLen = u16(vtable);
    if (((vtable + vtableLen) & 1) != 0) {
      throw fail("a vtable of odd length " + vtableLen, vtable);
    }
    range(vtable, vtableLen);
    if (walked && vtableLen < 4) {
      // schema_bounds.rs refuses a vtable shorter than its own two length fields.
      throw fail("a vtable of " + vtableLen + " bytes, shorter than its header,", vtable);
    }
    if (++tables > MAX_TABLES) {
      throw fail("more than " + MAX_TABLES + " tables", pos);
    }
    if (++depth > MAX_DEPTH) {
      throw fail("tables nested deeper than " + MAX_DEPTH, pos);
    }
    return new Table(pos, vtable, vtableLen);
  }

  /** {@code ForwardsUOffset}: the aligned offset at {@code pos}, added to {@code pos}. */
  private long follow(long pos) {
    inBuffer(pos, 4);
    return pos + u32(pos);
  }

  /** {@code verify_vector_range}: the length at {@code pos}, its elements in the buffer. */
  private long vector(long pos, int elementSize) {
    long n = u32(checked(pos, 4));
    long start = pos + 4;
    aligned(start, elementSize);
    range(start, n * elementSize);
    return n;
  }

  /** An optional string at the offset field {@code at} (-1: absent). */
  private void string(long at) {
    if (at < 0) {
      return;
    }
    long pos = follow(at);
    long n = vector(pos, 1);
    int from = (int) (pos + 4);
    int to = (int) (pos + 4 + n);
    int bad = Utf8.firstInvalid(buf, base + from, base + to);
    if (bad >= 0) {
      throw fail("a string that is not UTF-8", bad - base);
    }
    if (to >= length || buf[base + to] != 0) {
      throw fail("a string of " + n + " bytes without its zero terminator", pos);
    }
  }

  private long checked(long pos, int size) {
    inBuffer(pos, size);
    return pos;
  }

  /** {@code Verifier::in_buffer}: aligned to its size and inside the buffer. */
  private void inBuffer(long pos, int size) {
    aligned(pos, size);
    range(pos, size);
  }

  private void aligned(long pos, int size) {
    if (pos % size != 0) {
      throw fail("a " + size + "-byte value that is not aligned", pos);
    }
  }

  /** {@code Verifier::range_in_buffer}, which also counts the apparent size. */
  private void range(long pos, long size) {
    if (pos + size > length) {
      throw fail("the range [" + pos + ", " + (pos + size) + ") is outside the buffer", pos);
    }
    apparentSize += size;
    if (apparentSize > MAX_APPARENT_SIZE) {
      throw fail("an apparent size over " + MAX_APPARENT_SIZE + " bytes", pos);
    }
  }

  private int u8(long pos) {
    return buf[base + (int) pos] & 0xFF;
  }

  private int u16(long pos) {
    int p = base + (int) pos;
    return (buf[p] & 0xFF) | (buf[p + 1] & 0xFF) << 8;
  }

  private int i32(long pos) {
    return LittleEndian.i32(buf, base + (int) pos);
  }

  private long u32(long pos) {
    return i32(pos) & 0xFFFF_FFFFL;
  }

  private TableCacheException fail(String what, long pos) {
    return new TableCacheException(
        Kind.CORRUPT_FRAME, "schema: invalid flatbuffer: " + what + " at byte " + pos);
  }

  /** A visited table: {@code TableVerifier}. */
  private final class Table {
    final long pos;
    final long vtable;
    final int vtableLen;

    Table(long pos, long vtable, int vtableLen) {
      this.pos = pos;
      this.vtable = vtable;
      this.vtableLen = vtableLen;
    }

    /** {@code TableVerifier::deref}: where field {@code voffset} is stored, or -1 if absent. */
    long slot(int voffset) {
      if (voffset >= vtableLen) {
        return -1;
      }
      long entry = vtable + voffset;
      inBuffer(entry, 2);
      int at = u16(entry);
      return at == 0 ? -1 : pos + at;
    }

    /** An optional scalar field of {@code size} bytes. */
    void scalar(int voffset, int size) {
      long at = slot(voffset);
      if (at >= 0) {
        inBuffer(at, size);
      }
    }

    void finish() {
      depth--;
    }
  }
}
