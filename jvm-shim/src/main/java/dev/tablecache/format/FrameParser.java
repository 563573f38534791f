package dev.tablecache.format;

import static dev.tablecache.format.LittleEndian.i64;
import static dev.tablecache.format.LittleEndian.u32;
import static dev.tablecache.format.LittleEndian.u8;

import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.Encoding;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Pure-Java reader of cached-batch metadata (FORMAT.md sections 1, 2, 4 and 5), with the native
 * reader's rejection rules and error kinds. It never decompresses or decodes payloads; the Spark
 * serializer uses it to build pruning stats without a JNI call.
 *
 * <p>Every allocation is bounded by the input length: length fields are checked against the
 * bytes actually present before anything is sized by them.
 */
public final class FrameParser {

  static final int HEADER_LEN = Header.LEN;
  static final int STATS_ENTRY_MIN = 18; // null_count, row_count, size_in_bytes, flags, bound_kind

  static final int FLAG_STATS = 1;
  // Some payload is encoded: a reader that predates encodings sees a reserved bit instead.
  static final int FLAG_ENCODED = 0x08;
  static final int FLAG_RESERVED_MASK = 0xF0;

  // The native reader's limit (i32::MAX - 64): every payload fits a Java array.
  static final long MAX_RAW_LEN = Integer.MAX_VALUE - 64L;

  private FrameParser() {}

  /**
   * Parses a V4, V3, V2 or legacy cached batch. For frames the header, meta checksum, directory
   * and stats are verified; the schema is decoded on first {@link ParsedFrame#schema()}. For
   * legacy the IPC stream's framing is walked and the schema and row count are read. A V4 frame's
   * metadata is read as V3's; its column bodies, which state their own encodings, are left to
   * the native reader like every payload.
   *
   * @throws TableCacheException with the kind the native reader would raise
   */
  public static ParsedFrame parse(byte[] frame) {
    MetadataReads.FRAMES.increment();
    CacheFormat format = CacheFormat.detect(frame);
    if (format == CacheFormat.LEGACY) {
      return LegacyStreamParser.parse(frame);
    }
    return parseFramed(frame, format, true);
  }

  /**
   * Checks a V4, V3, V2 or legacy cached batch as {@link #parse} does, and decodes its schema,
   * but leaves the stats entries for {@link CheckedFrame#stats()} to parse when a reader wants
   * them: a read that only decodes never pays for them. Their bytes are covered by the metadata
   * checksum checked here.
   *
   * @throws TableCacheException with the kind the native reader would raise
   */
  public static CheckedFrame check(byte[] frame) {
    MetadataReads.FRAMES.increment();
    CacheFormat format = CacheFormat.detect(frame);
    ParsedFrame parsed =
        format == CacheFormat.LEGACY
            ? LegacyStreamParser.parse(frame)
            : parseFramed(frame, format, false);
    return parsed.checked();
  }

  /**
   * The schema of a frame, without the full metadata checks of {@link #parse}: for frames the
   * native decoder has already validated. Decoded schemas are cached by their bytes.
   */
  public static Schema schemaOf(byte[] frame) {
    MetadataReads.FRAMES.increment();
    CacheFormat format = CacheFormat.detect(frame);
    if (format == CacheFormat.LEGACY) {
      return LegacyStreamParser.parse(frame).schema();
    }
    if (frame.length < HEADER_LEN) {
      throw corrupt("Truncated: " + frame.length + " bytes, a frame header needs " + HEADER_LEN);
    }
    long schemaLen = u32(frame, Header.SCHEMA_LEN_AT);
    if (HEADER_LEN + schemaLen > frame.length) {
      throw corrupt("Truncated: schema section runs past the frame end");
    }
    return SchemaCodec.decode(frame, HEADER_LEN, (int) schemaLen);
  }

  /**
   * The metadata of a V2, V3 or V4 frame; with {@code withStats} false the stats entries are
   * neither checked nor parsed, and the result is only a step to its {@link
   * ParsedFrame#checked()}.
   */
  private static ParsedFrame parseFramed(byte[] b, CacheFormat format, boolean withStats) {
    final long len = b.length;
    // Same order as the native reader: flags, then reserved bytes, then the rest of the header,
    // so a short frame fails with the same kind on both sides.
    requireHeader(b, 6);
    int flags = u8(b, Header.FLAGS_AT);
    if ((flags & FLAG_RESERVED_MASK) != 0) {
      throw new TableCacheException(
          Kind.UNSUPPORTED_VERSION,
          String.format("UnsupportedVersion: reserved flag bits set (flags 0x%02x)", flags));
    }
    int checksumKind = (flags >> 1) & 3;
    if (checksumKind > ParsedFrame.CHECKSUM_CRC32C) {
      throw new TableCacheException(
          Kind.UNSUPPORTED_VERSION, "UnsupportedVersion: unknown checksum kind " + checksumKind);
    }
    requireHeader(b, Header.ROW_COUNT_AT);
    if (u8(b, Header.RESERVED_AT) != 0 || u8(b, Header.RESERVED_AT + 1) != 0) {
      throw corrupt("ReservedNotZero: header reserved bytes 6..8 are not zero");
    }
    requireHeader(b, HEADER_LEN);
    long rowCount = u32(b, Header.ROW_COUNT_AT);
    long columnCount = u32(b, Header.COLUMN_COUNT_AT);
    long schemaLen = u32(b, Header.SCHEMA_LEN_AT);
    long statsLen = u32(b, Header.STATS_LEN_AT);
    long metaChecksum = u32(b, Header.META_CHECKSUM_AT);
    boolean statsFlag = (flags & FLAG_STATS) != 0;
    if (statsFlag != (statsLen > 0)) {
      throw corrupt(
          "BadStats: flag STATS is " + (statsFlag ? "set" : "clear") + " but stats_len is " + statsLen);
    }
    long entries = perColumn(format) ? columnCount : 1;
    // All in long: u32 sums cannot overflow, and nothing is allocated before this check.
    long payloadStart =
        HEADER_LEN + schemaLen + statsLen + (long) DirectoryEntry.lengthIn(format) * entries;
    if (payloadStart > len) {
      throw corrupt(
          "Truncated: sections end at byte " + payloadStart + " but the frame has " + len + " bytes");
    }
    if (checksumKind == ParsedFrame.CHECKSUM_CRC32C) {
      long computed = Header.metaChecksum(Crc32c.create(), b, (int) payloadStart);
      if (computed != metaChecksum) {
        throw new TableCacheException(
            Kind.CHECKSUM_MISMATCH,
            String.format(
                "ChecksumMismatch: meta checksum is %08x, computed %08x",
                metaChecksum, computed));
      }
    } else if (metaChecksum != 0) {
      throw corrupt("ReservedNotZero: meta_checksum is " + metaChecksum + " without checksums");
    }
    if (rowCount > Integer.MAX_VALUE) {
      throw corrupt(
          "RowCountTooLarge: row count " + rowCount + " exceeds the format's limit of 2147483647");
    }
    boolean encodedFlag = (flags & FLAG_ENCODED) != 0;
    checkDirectory(b, format, (int) entries, payloadStart, checksumKind, encodedFlag);
    List<ColumnStats> stats = statsFlag && withStats ? parseStats(b) : null;
    if (columnCount > Integer.MAX_VALUE) {
      // No schema that fits in a byte[] has 2^31 fields. The native reader finds that out by
      // decoding the schema after the directory and stats, so an undecodable schema wins there.
      SchemaCodec.decode(b, HEADER_LEN, (int) schemaLen);
      throw new TableCacheException(
          Kind.SCHEMA_MISMATCH, "SchemaMismatch: header claims " + columnCount + " columns");
    }
    return new ParsedFrame(
        b,
        format,
        flags,
        rowCount,
        (int) columnCount,
        HEADER_LEN,
        schemaLen,
        statsLen,
        metaChecksum,
        payloadStart,
        (int) entries,
        stats,
        null);
  }

  /** Whether the frame has one directory entry per column (V3, V4) rather than one (V2). */
  private static boolean perColumn(CacheFormat format) {
    return format == CacheFormat.V3 || format == CacheFormat.V4;
  }

  // Check order matches the native parser (mutation tests compare the kinds both report).
  private static void checkDirectory(
      byte[] b,
      CacheFormat format,
      int entries,
      long payloadStart,
      int checksumKind,
      boolean encodedFlag) {
    long len = b.length;
    // selfDescribing: a V4 frame, whose bodies state their own encodings, so its entries are plain.
    boolean selfDescribing = format == CacheFormat.V4;
    long expectedOffset = 0;
    boolean anyEncoded = false;
    int entryLen = DirectoryEntry.lengthIn(format);
    int base = (int) payloadStart - entryLen * entries;
    for (int i = 0; i < entries; i++) {
      int p = base + entryLen * i;
      DirectoryEntry e = DirectoryEntry.at(b, p, format);
      long offset = e.offset();
      long stored = e.storedLen();
      int codec = e.codecId();
      int encoding = e.encodingId();
      if (u8(b, p + 18) != 0 || u8(b, p + 19) != 0) {
        throw corrupt("CorruptDirectory: entry " + i + " reserved bytes are not zero");
      }
      if (codec > Codec.ZSTD.id()) {
        throw new TableCacheException(
            Kind.UNSUPPORTED_CODEC, "UnsupportedCodec: directory entry " + i + " codec " + codec);
      }
      // An unknown encoding is a newer writer's, like an unknown codec: same kind.
      if (!Encoding.isKnownId(encoding)) {
        throw new TableCacheException(
            Kind.UNSUPPORTED_CODEC,
            "UnsupportedEncoding: directory entry " + i + " encoding " + encoding);
      }
      if (encoding != Encoding.PLAIN.id() && selfDescribing) {
        throw corrupt(
            "CorruptDirectory: entry " + i + " has encoding " + encoding
                + " in a V4 frame (V4 bodies state their own encodings)");
      }
      if (encoding != Encoding.PLAIN.id()) {
        if (!encodedFlag) {
          throw corrupt(
              "CorruptDirectory: entry " + i + " is encoded but the ENCODED flag is clear");
        }
        anyEncoded = true;
      }
      if (offset != expectedOffset) {
        throw corrupt(
            "CorruptDirectory: entry " + i + " has offset " + offset + ", expected "
                + expectedOffset + " (payloads are contiguous)");
      }
      if (payloadStart + offset + stored > len) {
        throw corrupt(
            "LengthOutOfBounds: payload "
                + i
                + " ends at byte "
                + (payloadStart + offset + stored)
                + " past the frame end "
                + len);
      }
      checkRawLen(i, codec, stored, e.rawLen());
      if (selfDescribing && e.decodedLen() % 8 != 0) {
        throw corrupt(
            "CorruptDirectory: entry " + i + " decoded length " + e.decodedLen()
                + " is not a multiple of 8");
      }
      if (checksumKind == ParsedFrame.CHECKSUM_NONE && e.checksum() != 0) {
        throw corrupt("CorruptDirectory: entry " + i + " has a checksum but the kind is NONE");
      }
      expectedOffset += stored;
    }
    // Exact both ways, like STATS: a frame has exactly one valid flags byte.
    if (encodedFlag && !anyEncoded) {
      throw corrupt("CorruptDirectory: the ENCODED flag is set but no payload is encoded");
    }
    long end = payloadStart + expectedOffset;
    if (end != len) {
      throw corrupt("TrailingBytes: frame ends at byte " + end + " but has " + len + " bytes");
    }
  }

  private static void checkRawLen(int i, int codec, long stored, long raw) {
    if (raw > MAX_RAW_LEN) {
      throw corrupt(
          "CorruptDirectory: entry " + i + " raw_len " + raw + " exceeds the limit " + MAX_RAW_LEN);
    }
    switch (Codec.fromId(codec)) {
      case NONE:
        if (stored != raw) {
          throw corrupt(
              "CorruptDirectory: uncompressed payload " + i + " has stored_len " + stored
                  + " != raw_len " + raw);
        }
        break;
      case LZ4:
        if (raw > Codec.LZ4_MAX_RATIO * stored + 16) {
          throw corrupt(
              "CorruptDirectory: lz4 payload " + i + " claims raw_len " + raw + " from " + stored
                  + " stored bytes");
        }
        break;
      default: // zstd
        if (raw > Codec.ZSTD_MAX_RATIO * stored + 1024) {
          throw corrupt(
              "CorruptDirectory: zstd payload " + i + " claims raw_len " + raw + " from " + stored
                  + " stored bytes");
        }
        break;
    }
  }

  /**
   * The stats entries of a frame whose header and metadata checksum are checked and whose STATS
   * flag is set, with the rules of FORMAT.md section 4.
   */
  static List<ColumnStats> parseStats(byte[] b) {
    MetadataReads.STATS.increment();
    long headerRows = u32(b, Header.ROW_COUNT_AT);
    long headerColumns = u32(b, Header.COLUMN_COUNT_AT);
    int start = (int) (HEADER_LEN + u32(b, Header.SCHEMA_LEN_AT));
    int statsLen = (int) u32(b, Header.STATS_LEN_AT);
    int end = start + statsLen;
    if (statsLen < 4) {
      throw corrupt("BadStats: stats section of " + statsLen + " bytes has no column count");
    }
    long columns = u32(b, start);
    if (columns != headerColumns) {
      throw corrupt(
          "BadStats: stats column_count " + columns + " != header column_count " + headerColumns);
    }
    // Each entry takes at least 18 bytes: check before sizing the list by a length field.
    if (columns * STATS_ENTRY_MIN > statsLen - 4L) {
      throw corrupt(
          "BadStats: " + columns + " stats entries cannot fit in " + statsLen + " bytes");
    }
    List<ColumnStats> out = new ArrayList<>((int) columns);
    int[] pos = {start + 4};
    for (int i = 0; i < columns; i++) {
      out.add(parseStatsEntry(b, pos, end, i, headerRows));
    }
    if (pos[0] != end) {
      throw corrupt(
          "BadStats: " + (end - pos[0]) + " trailing bytes after the last stats entry");
    }
    return out;
  }

  private static ColumnStats parseStatsEntry(byte[] b, int[] pos, int end, int col, long rows) {
    int p = need(pos[0], STATS_ENTRY_MIN, end, col);
    long nullCount = u32(b, p);
    long rowCount = u32(b, p + 4);
    long size = i64(b, p + 8);
    int flags = u8(b, p + 16);
    int kindId = u8(b, p + 17);
    pos[0] = p + STATS_ENTRY_MIN;
    if ((flags & 0xF0) != 0) {
      throw badStats(col, String.format("reserved stats flag bits set (0x%02x)", flags));
    }
    BoundKind kind = BoundKind.fromId(kindId);
    if (kind == null) {
      throw badStats(col, "unknown bound kind " + kindId);
    }
    boolean unsupported = (flags & ColumnStats.FLAG_UNSUPPORTED) != 0;
    boolean hasNaN = (flags & ColumnStats.FLAG_HAS_NAN) != 0;
    boolean hasLower = (flags & ColumnStats.FLAG_HAS_LOWER) != 0;
    boolean hasUpper = (flags & ColumnStats.FLAG_HAS_UPPER) != 0;
    if ((kind == BoundKind.NONE) != (!hasLower && !hasUpper)) {
      throw badStats(col, "bound kind " + kind + " disagrees with the HAS_LOWER/HAS_UPPER flags");
    }
    if (unsupported && (kind != BoundKind.NONE || hasNaN)) {
      throw badStats(col, "an UNSUPPORTED column carries bounds or HAS_NAN");
    }
    if (rowCount != rows) {
      throw badStats(col, "row_count " + rowCount + " != header row_count " + rows);
    }
    if (nullCount > rowCount) {
      throw badStats(col, "null_count " + nullCount + " > row_count " + rowCount);
    }
    // The rules of FORMAT.md section 4, the same as stats.rs decode: the writer never breaks
    // them, so a frame that does is damaged (golden/reject/ has a case for each).
    if (!unsupported) {
      boolean anyValue = nullCount < rowCount;
      if (anyValue != hasLower) {
        throw badStats(
            col,
            anyValue
                ? "a column with non-null values has no lower bound"
                : "an all-null column carries a lower bound");
      }
      if (!anyValue && hasUpper) {
        throw badStats(col, "an all-null column carries an upper bound");
      }
      if (hasUpper != hasLower && kind != BoundKind.UTF8) {
        throw badStats(col, "only string columns may lack an upper bound");
      }
    }
    if (hasNaN && kind != BoundKind.FLOAT) {
      throw badStats(col, "HAS_NAN on a non-float column");
    }
    Object lower = hasLower ? readBound(b, pos, end, col, kind) : null;
    Object upper = hasUpper ? readBound(b, pos, end, col, kind) : null;
    if (kind == BoundKind.FLOAT) {
      if (hasNaN != Double.isNaN((Double) upper)) {
        throw badStats(col, "HAS_NAN " + hasNaN + " but the upper bound is " + upper);
      }
    }
    return new ColumnStats(nullCount, rowCount, size, flags, kind, lower, upper);
  }

  private static Object readBound(byte[] b, int[] pos, int end, int col, BoundKind kind) {
    int p;
    switch (kind) {
      case BOOL:
        p = need(pos[0], 1, end, col);
        pos[0] = p + 1;
        int v = u8(b, p);
        if (v > 1) {
          throw badStats(col, "boolean bound byte " + v);
        }
        return v == 1;
      case INT:
        p = need(pos[0], 8, end, col);
        pos[0] = p + 8;
        return i64(b, p);
      case FLOAT:
        p = need(pos[0], 8, end, col);
        pos[0] = p + 8;
        return Double.longBitsToDouble(i64(b, p));
      case UTF8:
        p = need(pos[0], 4, end, col);
        long n = u32(b, p);
        if (n > end - (p + 4L)) {
          throw badStats(col, "string bound of " + n + " bytes runs past the stats section");
        }
        byte[] s = new byte[(int) n]; // bounded by the check above
        System.arraycopy(b, p + 4, s, 0, (int) n);
        pos[0] = p + 4 + (int) n;
        if (!isValidUtf8(s)) {
          throw badStats(col, "string bound is not valid UTF-8");
        }
        return s;
      case DECIMAL128:
        p = need(pos[0], 16, end, col);
        pos[0] = p + 16;
        byte[] be = new byte[16];
        for (int i = 0; i < 16; i++) {
          be[i] = b[p + 15 - i]; // little-endian two's complement → BigInteger's big-endian
        }
        return new BigInteger(be);
      default:
        throw badStats(col, "bound of kind NONE");
    }
  }

  private static boolean isValidUtf8(byte[] s) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(s));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static void requireHeader(byte[] b, int n) {
    if (b.length < n) {
      throw corrupt(
          "Truncated: frame header needs " + n + " bytes, the frame has " + b.length);
    }
  }

  private static int need(int p, int n, int end, int col) {
    if ((long) p + n > end) {
      throw badStats(col, "entry runs past the end of the stats section");
    }
    return p;
  }

  private static TableCacheException badStats(int col, String message) {
    return corrupt("BadStats: column " + col + ": " + message);
  }

  static TableCacheException corrupt(String message) {
    return new TableCacheException(Kind.CORRUPT_FRAME, message);
  }
}
