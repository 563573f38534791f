package dev.tablecache.format;

import dev.tablecache.ErrorText;
import dev.tablecache.CacheFormat;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.util.AbstractList;
import java.util.Collections;
import java.util.List;
import java.util.zip.Checksum;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A cached batch's metadata as {@link FrameParser} read it: header, directory, stats and (lazily)
 * the Arrow schema. Unsigned 32-bit header fields are widened to {@code long}. For
 * {@link CacheFormat#LEGACY} there is no header, directory or stats: the version, flags and
 * section lengths are 0, and the row and column counts come from the IPC stream.
 *
 * <p>Holds a reference to the frame bytes (not a copy) for {@link #verifyPayloadChecksums()}; the
 * caller must not modify them.
 */
public final class ParsedFrame {

  /** Checksum kind NONE: no checksums stored or verified. */
  public static final int CHECKSUM_NONE = 0;
  /** Checksum kind CRC32C (Castagnoli). */
  public static final int CHECKSUM_CRC32C = 1;

  private final byte[] bytes;
  private final CacheFormat format;
  private final int flags;
  private final long rowCount;
  private final int columnCount;
  private final long schemaLength;
  private final long statsLength;
  private final long metaChecksum;
  private final int schemaOffset;
  private final long payloadStart;
  /** How many directory entries precede the payloads; each is read from the bytes when asked. */
  private final int entries;
  private final List<ColumnStats> stats; // null when the frame has no stats section
  private volatile Schema schema; // decoded on first use: most callers need only the stats

  ParsedFrame(
      byte[] bytes,
      CacheFormat format,
      int flags,
      long rowCount,
      int columnCount,
      int schemaOffset,
      long schemaLength,
      long statsLength,
      long metaChecksum,
      long payloadStart,
      int entries,
      List<ColumnStats> stats,
      Schema schema) {
    this.bytes = bytes;
    this.format = format;
    this.flags = flags;
    this.rowCount = rowCount;
    this.columnCount = columnCount;
    this.schemaOffset = schemaOffset;
    this.schemaLength = schemaLength;
    this.statsLength = statsLength;
    this.metaChecksum = metaChecksum;
    this.payloadStart = payloadStart;
    this.entries = entries;
    this.stats = stats == null ? null : Collections.unmodifiableList(stats);
    this.schema = schema;
  }

  public CacheFormat format() {
    return format;
  }

  /** The version byte: 4, 3, 2, or 0 for legacy. */
  public int version() {
    return format.versionByte();
  }

  /** The flags byte (0 for legacy). */
  public int flags() {
    return flags;
  }

  /** Whether flag bit STATS is set. */
  public boolean statsPresent() {
    return (flags & 1) != 0;
  }

  /** Whether flag bit ENCODED is set: some directory entry has a non-plain encoding. */
  public boolean encoded() {
    return (flags & FrameParser.FLAG_ENCODED) != 0;
  }

  /** {@link #CHECKSUM_NONE} or {@link #CHECKSUM_CRC32C}. */
  public int checksumKind() {
    return (flags >> 1) & 3;
  }

  public long rowCount() {
    return rowCount;
  }

  /** Top-level columns (= schema fields). */
  public int columnCount() {
    return columnCount;
  }

  /** Bytes of the schema section (for legacy: of the IPC schema message). */
  public long schemaLength() {
    return schemaLength;
  }

  public long statsLength() {
    return statsLength;
  }

  public long metaChecksum() {
    return metaChecksum;
  }

  /** Offset of the payload area (0 for legacy). */
  public long payloadStart() {
    return payloadStart;
  }

  /** Total frame length in bytes. */
  public int frameLength() {
    return bytes.length;
  }

  /**
   * Directory entries in order (V3, V4: one per column, V2: one; legacy: none), each read from
   * the frame bytes when asked for: the parser checked them all.
   */
  public List<DirectoryEntry> directory() {
    return new AbstractList<DirectoryEntry>() {
      @Override
      public DirectoryEntry get(int i) {
        if (i < 0 || i >= entries) {
          throw new IndexOutOfBoundsException("entry " + i + " of " + entries);
        }
        return DirectoryEntry.at(bytes, directoryAt() + DirectoryEntry.lengthIn(format) * i, format);
      }

      @Override
      public int size() {
        return entries;
      }
    };
  }

  /** Where the first directory entry starts. */
  private int directoryAt() {
    return (int) payloadStart - DirectoryEntry.lengthIn(format) * entries;
  }

  /**
   * What a read takes of this frame from here on: the frame, its schema (decoded now if it was
   * not yet) and where its directory starts.
   *
   * @throws TableCacheException as {@link #schema()}
   */
  CheckedFrame checked() {
    return new CheckedFrame(bytes, schema(), format == CacheFormat.LEGACY ? -1 : directoryAt());
  }

  /** Whether the frame has a stats section (never for legacy). */
  public boolean hasStats() {
    return stats != null;
  }

  /** Per-column stats in column order; empty when {@link #hasStats()} is false. */
  public List<ColumnStats> stats() {
    return stats == null ? Collections.emptyList() : stats;
  }

  /** A copy of the encapsulated IPC schema message. */
  public byte[] schemaBytes() {
    byte[] out = new byte[(int) schemaLength];
    System.arraycopy(bytes, schemaOffset, out, 0, out.length);
    return out;
  }

  /**
   * The Arrow schema, decoded on first call.
   *
   * @throws TableCacheException CORRUPT_FRAME when undecodable, SCHEMA_MISMATCH when its field
   *     count differs from the header's column count
   */
  public Schema schema() {
    Schema s = schema;
    if (s == null) {
      s = SchemaCodec.decode(bytes, schemaOffset, (int) schemaLength);
      if (s.getFields().size() != columnCount) {
        throw new TableCacheException(
            Kind.SCHEMA_MISMATCH,
            "SchemaMismatch: schema has "
                + s.getFields().size()
                + " fields but the header says "
                + columnCount
                + " columns");
      }
      schema = s; // benign race: every thread computes the same value
    }
    return s;
  }

  /**
   * Full metadata validation: {@link #schema()} plus the stats rules that need the column types
   * (each bound kind matches its column's Arrow type; unsupported types carry UNSUPPORTED).
   *
   * @throws TableCacheException CORRUPT_FRAME / SCHEMA_MISMATCH as in {@link #schema()}, or
   *     CORRUPT_FRAME for stats that disagree with the schema
   */
  public ParsedFrame validate() {
    Schema s = schema();
    if (stats != null) {
      for (int i = 0; i < stats.size(); i++) {
        checkStatsType(i, s.getFields().get(i), stats.get(i));
      }
    }
    return this;
  }

  /**
   * Verifies every payload's CRC32C against its directory entry (the native decoder does the same
   * before decompressing). No-op for legacy frames and checksum kind NONE.
   *
   * @throws TableCacheException CHECKSUM_MISMATCH naming the first bad entry
   */
  public void verifyPayloadChecksums() {
    if (format == CacheFormat.LEGACY || checksumKind() != CHECKSUM_CRC32C) {
      return;
    }
    List<DirectoryEntry> directory = directory();
    for (int i = 0; i < directory.size(); i++) {
      DirectoryEntry e = directory.get(i);
      Checksum crc = Crc32c.create();
      crc.update(bytes, (int) (payloadStart + e.offset()), (int) e.storedLen());
      if (crc.getValue() != e.checksum()) {
        throw new TableCacheException(
            Kind.CHECKSUM_MISMATCH,
            String.format(
                "ChecksumMismatch: payload %d has CRC32C %08x, directory says %08x",
                i, crc.getValue(), e.checksum()));
      }
    }
  }

  /** The bound kind a column of this field's type carries, or null when the type has none. */
  static BoundKind expectedBoundKind(Field field) {
    if (field.getDictionary() != null) {
      return null;
    }
    ArrowType t = field.getType();
    switch (t.getTypeID()) {
      case Bool:
        return BoundKind.BOOL;
      case Int:
        return ((ArrowType.Int) t).getIsSigned() ? BoundKind.INT : null;
      case Date:
        return ((ArrowType.Date) t).getUnit() == DateUnit.DAY ? BoundKind.INT : null;
      case Timestamp:
        return BoundKind.INT;
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.HALF
            ? null
            : BoundKind.FLOAT;
      case Utf8:
      case LargeUtf8:
        return BoundKind.UTF8;
      case Decimal:
        return ((ArrowType.Decimal) t).getBitWidth() == 128 ? BoundKind.DECIMAL128 : null;
      default:
        return null;
    }
  }

  private static void checkStatsType(int column, Field field, ColumnStats cs) {
    BoundKind expected = expectedBoundKind(field);
    String problem = null;
    if (expected == null && !cs.unsupported()) {
      problem = "type " + field.getType() + " has no bounds but UNSUPPORTED is clear";
    } else if (expected != null && cs.unsupported()) {
      problem = "type " + field.getType() + " has bounds but UNSUPPORTED is set";
    } else if (cs.boundKind() != BoundKind.NONE && cs.boundKind() != expected) {
      problem = "bound kind " + cs.boundKind() + " does not match type " + field.getType();
    } else if (field.getType().getTypeID() == ArrowType.ArrowTypeID.Null
        && cs.nullCount() != cs.rowCount()) {
      // Every slot of a Null column is null; the writer counts them (FORMAT.md section 4).
      problem = "a Null column with " + cs.nullCount() + " nulls in " + cs.rowCount() + " rows";
    }
    if (problem != null) {
      throw new TableCacheException(
          Kind.CORRUPT_FRAME, "BadStats: column " + column + " ('" + ErrorText.name(field.getName()) + "'): " + problem);
    }
  }
}
