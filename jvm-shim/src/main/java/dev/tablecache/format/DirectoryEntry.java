package dev.tablecache.format;

import static dev.tablecache.format.LittleEndian.u32;
import static dev.tablecache.format.LittleEndian.u8;

import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.Encoding;

/**
 * One directory entry of a V2, V3 (20 bytes) or V4 (24 bytes) frame (FORMAT.md section 2). Unsigned 32-bit
 * fields are widened to {@code long}. A value class (not a record: the Spark 3.5 jar targets Java 8).
 */
public final class DirectoryEntry {

  /** Bytes of a V2 or V3 entry. */
  static final int LEN = 20;
  /** Bytes of a V4 entry: the V3 entry, then the decoded length. */
  static final int V4_LEN = 24;

  private final long offset;
  private final long storedLen;
  private final long rawLen;
  private final long decodedLen;
  private final long checksum;
  private final int codecId;
  private final int encodingId;

  public DirectoryEntry(
      long offset,
      long storedLen,
      long rawLen,
      long decodedLen,
      long checksum,
      int codecId,
      int encodingId) {
    this.offset = offset;
    this.storedLen = storedLen;
    this.rawLen = rawLen;
    this.decodedLen = decodedLen;
    this.checksum = checksum;
    this.codecId = codecId;
    this.encodingId = encodingId;
  }

  /** The length of one directory entry of a V2, V3 or V4 frame. */
  static int lengthIn(CacheFormat format) {
    return format == CacheFormat.V4 ? V4_LEN : LEN;
  }

  /**
   * The entry at byte {@code at} of {@code frame}, which holds all of its {@link #lengthIn}
   * bytes: the one reader of an entry's fields, for the parser's checks and for the readers of a
   * parsed frame. A V2 or V3 entry's decoded length is its raw length.
   */
  static DirectoryEntry at(byte[] frame, int at, CacheFormat format) {
    long raw = u32(frame, at + 8);
    return new DirectoryEntry(
        u32(frame, at),
        u32(frame, at + 4),
        raw,
        format == CacheFormat.V4 ? u32(frame, at + LEN) : raw,
        u32(frame, at + 12),
        u8(frame, at + 16),
        u8(frame, at + 17));
  }

  /** Payload offset from payload_start. */
  public long offset() {
    return offset;
  }

  /** Bytes of the payload in the frame. */
  public long storedLen() {
    return storedLen;
  }

  /** Bytes after decompression (the column body; in V4 the body with its buffers encoded). */
  public long rawLen() {
    return rawLen;
  }

  /**
   * Bytes of the plain column body the payload decodes to: stated by a V4 entry (its body is
   * encoded), {@link #rawLen()} in V2 and V3.
   */
  public long decodedLen() {
    return decodedLen;
  }

  /** CRC32C of the stored bytes, 0 when the frame has no checksums. */
  public long checksum() {
    return checksum;
  }

  /** 0 none, 1 lz4 block, 2 zstd frame. */
  public int codecId() {
    return codecId;
  }

  /** 0 plain, 1 byte stream split; always 0 in V4, whose bodies state their own encodings. */
  public int encodingId() {
    return encodingId;
  }

  /** The payload codec as a {@link Codec} (never AUTO). */
  public Codec codec() {
    return Codec.fromId(codecId);
  }

  /** The payload encoding as an {@link Encoding}. */
  public Encoding encoding() {
    return Encoding.fromId(encodingId);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof DirectoryEntry)) {
      return false;
    }
    DirectoryEntry e = (DirectoryEntry) o;
    return offset == e.offset
        && storedLen == e.storedLen
        && rawLen == e.rawLen
        && decodedLen == e.decodedLen
        && checksum == e.checksum
        && codecId == e.codecId
        && encodingId == e.encodingId;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(offset, storedLen, rawLen, decodedLen, checksum, codecId, encodingId);
  }

  @Override
  public String toString() {
    return "DirectoryEntry[offset=" + offset + ", storedLen=" + storedLen + ", rawLen=" + rawLen
        + ", decodedLen=" + decodedLen + ", checksum=" + checksum + ", codecId=" + codecId + ", encodingId=" + encodingId + "]";
  }
}
