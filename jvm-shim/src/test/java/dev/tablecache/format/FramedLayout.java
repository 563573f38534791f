package dev.tablecache.format;

import static dev.tablecache.format.LittleEndian.u32;
import static dev.tablecache.format.LittleEndian.u8;

import dev.tablecache.CacheFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * Where every field of a valid V2/V3/V4 frame sits (FORMAT.md sections 2 to 4), located from the
 * bytes alone so the mutation suite can aim at one field and reseal the checksums after an edit.
 * V4 column bodies state their own encodings and are not walked here (nor by the Java parser).
 */
final class FramedLayout {

  static final int HEADER = 28;
  static final int ROW_COUNT_AT = 8;
  static final int COLUMN_COUNT_AT = 12;
  static final int SCHEMA_LEN_AT = 16;
  static final int STATS_LEN_AT = 20;

  /** One directory entry and the payload bytes it covers. */
  static final class Entry {
    private final int index;
    private final int at;
    private final long stored;
    private final long raw;
    private final int codec;
    private final int encoding;
    private final int from;
    private final int to;

    Entry(int index, int at, long stored, long raw, int codec, int encoding, int from, int to) {
      this.index = index;
      this.at = at;
      this.stored = stored;
      this.raw = raw;
      this.codec = codec;
      this.encoding = encoding;
      this.from = from;
      this.to = to;
    }

    int index() {
      return index;
    }

    int at() {
      return at;
    }

    long stored() {
      return stored;
    }

    int codec() {
      return codec;
    }

    int encoding() {
      return encoding;
    }

    int from() {
      return from;
    }

    int to() {
      return to;
    }
  }

  /** A u32 field: its name, position, and the directory entry whose payload holds it (-1: none). */
  static final class Field32 {
    private final String name;
    private final int at;
    private final int entry;

    Field32(String name, int at, int entry) {
      this.name = name;
      this.at = at;
      this.entry = entry;
    }

    String name() {
      return name;
    }

    int at() {
      return at;
    }

    int entry() {
      return entry;
    }
  }

  final byte[] frame;
  /** Bytes per directory entry (V4's state a decoded length). */
  final int entryLen;
  final int version;
  final boolean checksummed;
  final boolean hasStats;
  final long rowCount;
  final int columnCount;
  final int schemaStart = HEADER;
  final int statsStart;
  final int dirStart;
  final int payloadStart;
  final List<Entry> entries = new ArrayList<>();
  final List<Field32> statsFields = new ArrayList<>();
  final List<Field32> bodyFields = new ArrayList<>();

  FramedLayout(byte[] frame) {
    this.frame = frame;
    version = u8(frame, 4);
    int flags = u8(frame, 5);
    checksummed = ((flags >> 1) & 3) == 1;
    hasStats = (flags & 1) != 0;
    rowCount = u32(frame, ROW_COUNT_AT);
    columnCount = (int) u32(frame, COLUMN_COUNT_AT);
    statsStart = HEADER + (int) u32(frame, SCHEMA_LEN_AT);
    dirStart = statsStart + (int) u32(frame, STATS_LEN_AT);
    int entryCount = perColumn() ? columnCount : 1;
    entryLen = DirectoryEntry.lengthIn(version == 4 ? CacheFormat.V4 : CacheFormat.V3);
    payloadStart = dirStart + entryLen * entryCount;
    int offset = payloadStart;
    for (int i = 0; i < entryCount; i++) {
      int at = dirStart + entryLen * i;
      long stored = u32(frame, at + 4);
      entries.add(
          new Entry(
              i, at, stored, u32(frame, at + 8), u8(frame, at + 16), u8(frame, at + 17), offset,
              offset + (int) stored));
      offset += (int) stored;
    }
    if (offset != frame.length) {
      throw new IllegalStateException("layout does not cover the frame: " + offset + " vs " + frame.length);
    }
    if (hasStats) {
      locateStats();
    }
    for (Entry e : entries) {
      // Only plain stored bytes of V2/V3 are plain column bodies (section 3).
      if (version != 4 && e.codec() == 0 && e.encoding() == 0) {
        locateBodies(e);
      }
    }
  }

  /** One directory entry per column (V3, V4) rather than one (V2). */
  boolean perColumn() {
    return version == 3 || version == 4;
  }

  int schemaLen() {
    return statsStart - schemaStart;
  }

  /** The encapsulated IPC schema message. */
  byte[] schemaSection() {
    return java.util.Arrays.copyOfRange(frame, schemaStart, statsStart);
  }

  /** The directory entry whose payload holds byte {@code pos}, or null. */
  Entry entryAt(int pos) {
    for (Entry e : entries) {
      if (pos >= e.from() && pos < e.to()) {
        return e;
      }
    }
    return null;
  }

  /** Stats section fields (section 4): column count, per-column counts, UTF8 bound lengths. */
  private void locateStats() {
    int p = statsStart;
    statsFields.add(new Field32("stats.column_count", p, -1));
    p += 4;
    for (int i = 0; i < columnCount; i++) {
      statsFields.add(new Field32("stats[" + i + "].null_count", p, -1));
      statsFields.add(new Field32("stats[" + i + "].row_count", p + 4, -1));
      int flags = u8(frame, p + 16);
      int kind = u8(frame, p + 17);
      p += 18;
      for (String bound : new String[] {"lower", "upper"}) {
        boolean present = (flags & (bound.equals("lower") ? 4 : 8)) != 0;
        if (present) {
          if (kind == 4) {
            statsFields.add(new Field32("stats[" + i + "]." + bound + "_len", p, -1));
          }
          p += boundSize(kind, p);
        }
      }
    }
    if (p != dirStart) {
      throw new IllegalStateException("stats walk ended at " + p + ", directory starts at " + dirStart);
    }
  }

  private int boundSize(int kind, int at) {
    switch (kind) {
      case 1:
        return 1;
      case 2:
      case 3:
        return 8;
      case 4:
        return 4 + (int) u32(frame, at);
      case 5:
        return 16;
      default:
        throw new IllegalStateException("bound kind " + kind);
    }
  }

  /** Column body fields (section 3) of a plain uncompressed payload: V3 one body, V2 one per column. */
  private void locateBodies(Entry e) {
    int p = e.from();
    int column = version == 3 ? e.index() : 0;
    while (p < e.to()) {
      String c = "col" + column + ".";
      int nodes = (int) u32(frame, p);
      int buffers = (int) u32(frame, p + 4);
      bodyFields.add(new Field32(c + "node_count", p, e.index()));
      bodyFields.add(new Field32(c + "buffer_count", p + 4, e.index()));
      bodyFields.add(new Field32(c + "node0.length", p + 8, e.index()));
      bodyFields.add(new Field32(c + "node0.null_count", p + 12, e.index()));
      if (nodes > 1) {
        bodyFields.add(new Field32(c + "node" + (nodes - 1) + ".length", p + 8 * nodes, e.index()));
      }
      int lengths = p + 8 + 8 * nodes;
      int end = p + pad8(8 + 8 * nodes + 4 * buffers);
      for (int j = 0; j < buffers; j++) {
        if (j < 3) {
          bodyFields.add(new Field32(c + "buffer" + j + ".length", lengths + 4 * j, e.index()));
        }
        end += pad8((int) u32(frame, lengths + 4 * j));
      }
      p = end;
      column++;
    }
    if (p != e.to()) {
      throw new IllegalStateException("body walk of entry " + e.index() + " ended at " + p);
    }
  }

  private static int pad8(int n) {
    return (n + 7) & ~7;
  }

  /**
   * Recomputes the payload checksum of {@code entry} (if >= 0) and the meta checksum, so an edit
   * reaches the rules behind them. A no-op for frames without checksums (their fields must stay 0).
   */
  byte[] reseal(byte[] mutated, int entry) {
    if (!checksummed) {
      return mutated;
    }
    byte[] out = mutated;
    if (entry >= 0) {
      Entry e = entries.get(entry);
      long crc = TestFrames.crc(java.util.Arrays.copyOfRange(out, e.from(), e.to()));
      out = TestFrames.putU32(out, e.at() + 12, crc);
    }
    return TestFrames.refreshChecksum(out);
  }
}
