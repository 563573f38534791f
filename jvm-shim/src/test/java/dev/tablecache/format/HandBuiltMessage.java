package dev.tablecache.format;

import java.util.Arrays;

/**
 * A schema {@code Message} flatbuffer laid out by hand, front to back, so a test can break one
 * structural rule at a known byte: every position of interest is kept in a field.
 *
 * <p>The valid layout: the root offset, then the Message (version, header type Schema, header),
 * the Schema (fields), the fields vector and one Field per entry (name, nullable, type id Int
 * and its Int table), each Field followed by its children. Vtables sit right before their table.
 */
final class HandBuiltMessage {

  // Vtable slots (voffsets) of the tables built here.
  static final int MESSAGE_VERSION = 4;
  static final int MESSAGE_HEADER_TYPE = 6;
  static final int MESSAGE_HEADER = 8;
  static final int SCHEMA_FIELDS = 6;
  static final int SCHEMA_FEATURES = 10;
  static final int FIELD_NAME = 4;
  static final int FIELD_TYPE_TYPE = 8;
  static final int FIELD_TYPE = 10;
  static final int FIELD_CHILDREN = 14;

  byte[] b = new byte[64];
  int end;

  int messageVtable;
  int messageTable;
  int schemaVtable;
  int schemaTable;
  int fieldsVector;
  /** Per top-level field or chain level: its table, vtable, name string and Int table. */
  int[] fieldTable;
  int[] fieldVtable;
  int[] nameString;
  int[] intTable;
  int intVtable0;

  /**
   * {@code topLevel} Int fields named "a", "b", ...; when {@code chain} is more than 1, one
   * field instead, the top of a chain of {@code chain} List fields ending in an Int (each level
   * has one child).
   */
  static HandBuiltMessage of(int topLevel, int chain) {
    HandBuiltMessage m = new HandBuiltMessage();
    m.build(topLevel, chain);
    return m;
  }

  static HandBuiltMessage valid() {
    return of(2, 1);
  }

  private void build(int topLevel, int chain) {
    int levels = Math.max(topLevel, chain);
    fieldTable = new int[levels];
    fieldVtable = new int[levels];
    nameString = new int[levels];
    intTable = new int[levels];
    int root = alloc(4, 4);
    messageVtable = vtable(12, MESSAGE_VERSION, 4, MESSAGE_HEADER_TYPE, 6, MESSAGE_HEADER, 8);
    messageTable = table(messageVtable, 12);
    offset(root, messageTable);
    put16(messageTable + 4, 5); // MetadataVersion V5
    b[messageTable + 6] = 1; // MessageHeader.Schema
    schemaVtable = vtable(8, SCHEMA_FIELDS, 4);
    schemaTable = table(schemaVtable, 8);
    offset(messageTable + 8, schemaTable);
    int n = chain > 1 ? 1 : topLevel;
    fieldsVector = vector(n);
    offset(schemaTable + 4, fieldsVector);
    if (chain > 1) {
      int slot = fieldsVector + 4;
      for (int level = 0; level < chain; level++) {
        boolean leaf = level == chain - 1;
        int children = field(level, "c" + level, leaf ? 2 : 12, slot, !leaf);
        slot = children;
      }
    } else {
      for (int i = 0; i < n; i++) {
        field(i, String.valueOf((char) ('a' + i)), 2, fieldsVector + 4 + 4 * i, false);
      }
    }
    end = align(end, 8);
    b = Arrays.copyOf(b, end);
  }

  /**
   * Field {@code i} referenced from the offset at {@code from}: type 2 (Int, with its table) or
   * 12 (List, an empty table); with {@code hasChild}, a one-entry children vector whose entry's
   * position is returned (else -1).
   */
  private int field(int i, String name, int typeId, int from, boolean hasChild) {
    fieldVtable[i] =
        hasChild
            ? vtable(20, FIELD_NAME, 4, FIELD_TYPE_TYPE, 8, FIELD_TYPE, 12, FIELD_CHILDREN, 16)
            : vtable(16, FIELD_NAME, 4, FIELD_TYPE_TYPE, 8, FIELD_TYPE, 12);
    int t = table(fieldVtable[i], hasChild ? 20 : 16);
    fieldTable[i] = t;
    offset(from, t);
    b[t + 8] = (byte) typeId;
    nameString[i] = string(name);
    offset(t + 4, nameString[i]);
    int typeTable;
    if (typeId == 2) {
      int vt = vtable(12, 4, 4, 6, 8);
      if (i == 0) {
        intVtable0 = vt;
      }
      typeTable = table(vt, 12);
      put32(typeTable + 4, 32);
      b[typeTable + 8] = 1;
      intTable[i] = typeTable;
    } else {
      typeTable = table(vtable(4), 4);
    }
    offset(t + 12, typeTable);
    if (!hasChild) {
      return -1;
    }
    int children = vector(1);
    offset(t + 16, children);
    return children + 4;
  }

  /**
   * Makes the schema's fields a new vector of {@code n} entries that all lead to one new Int
   * field (a DAG: offsets only point forward, so the field comes after the vector), whose vtable
   * is {@code vtableLen} bytes (at least 12). Returns the shared field's table.
   */
  int shareOneField(int n, int vtableLen) {
    end = b.length;
    int vector = vector(n);
    offset(schemaTable + 4, vector);
    int vt = alloc(vtableLen, 2);
    put16(vt, vtableLen);
    put16(vt + 2, 16);
    put16(vt + FIELD_NAME, 4);
    put16(vt + FIELD_TYPE_TYPE, 8);
    put16(vt + FIELD_TYPE, 12);
    int t = table(vt, 16);
    b[t + 8] = 2;
    offset(t + 4, string("s"));
    int intTable = table(vtable(12, 4, 4, 6, 8), 12);
    put32(intTable + 4, 32);
    offset(t + 12, intTable);
    for (int i = 0; i < n; i++) {
      offset(vector + 4 + 4 * i, t);
    }
    end = align(end, 8);
    b = Arrays.copyOf(b, end);
    return t;
  }

  /** A vtable for a table of {@code tableLen} bytes: pairs of (voffset, field offset). */
  private int vtable(int tableLen, int... slots) {
    int size = 4;
    for (int k = 0; k < slots.length; k += 2) {
      size = Math.max(size, slots[k] + 2);
    }
    int at = alloc(size, 2);
    put16(at, size);
    put16(at + 2, tableLen);
    for (int k = 0; k < slots.length; k += 2) {
      put16(at + slots[k], slots[k + 1]);
    }
    return at;
  }

  private int table(int vtable, int len) {
    int at = alloc(len, 8);
    put32(at, at - vtable); // soffset: the vtable is at table - soffset
    return at;
  }

  private int vector(int n) {
    int at = alloc(4 + 4 * n, 4);
    put32(at, n);
    return at;
  }

  private int string(String s) {
    byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int at = alloc(4 + utf8.length + 1, 4);
    put32(at, utf8.length);
    System.arraycopy(utf8, 0, b, at + 4, utf8.length);
    return at;
  }

  /** Writes at {@code from} the forward offset that leads to {@code to}. */
  void offset(int from, int to) {
    put32(from, to - from);
  }

  private int alloc(int n, int alignment) {
    int at = align(end, alignment);
    end = at + n;
    if (end > b.length) {
      b = Arrays.copyOf(b, Math.max(end, 2 * b.length));
    }
    return at;
  }

  static int align(int pos, int alignment) {
    return (pos + alignment - 1) / alignment * alignment;
  }

  void put16(int at, int v) {
    b[at] = (byte) v;
    b[at + 1] = (byte) (v >>> 8);
  }

  void put32(int at, int v) {
    put16(at, v);
    put16(at + 2, v >>> 16);
  }

  /** The vtable entry of {@code slot} in the vtable at {@code vtable}. */
  int entry(int vtable, int slot) {
    return vtable + slot;
  }

  /** The bytes as an encapsulated IPC message: marker, length, flatbuffer. */
  byte[] encapsulated() {
    byte[] out = new byte[8 + b.length];
    out[0] = out[1] = out[2] = out[3] = (byte) 0xFF;
    out[4] = (byte) b.length;
    out[5] = (byte) (b.length >>> 8);
    out[6] = (byte) (b.length >>> 16);
    out[7] = (byte) (b.length >>> 24);
    System.arraycopy(b, 0, out, 8, b.length);
    return out;
  }
}
