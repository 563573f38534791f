package dev.tablecache.format;

import java.util.zip.Checksum;

/**
 * Byte offsets of the frame header fields (V2, V3, V4; FORMAT.md section 2), with the same names
 * as the native {@code header} module, and the metadata checksum both the parser and tests
 * compute.
 */
public final class Header {

  /** The magic (4 bytes). */
  public static final int MAGIC_AT = 0;
  /** The version byte. */
  public static final int VERSION_AT = 4;
  /** The flags byte. */
  public static final int FLAGS_AT = 5;
  /** Two reserved bytes. */
  public static final int RESERVED_AT = 6;
  /** Row count (u32). */
  public static final int ROW_COUNT_AT = 8;
  /** Column count (u32). */
  public static final int COLUMN_COUNT_AT = 12;
  /** Schema section length (u32). */
  public static final int SCHEMA_LEN_AT = 16;
  /** Stats section length (u32). */
  public static final int STATS_LEN_AT = 20;
  /** Metadata checksum (u32), over the header before it and every section after it. */
  public static final int META_CHECKSUM_AT = 24;
  /** Header length; the schema section starts here. */
  public static final int LEN = 28;

  private Header() {}

  /**
   * The metadata checksum of a frame whose payloads start at {@code payloadStart}: {@code crc}
   * (a fresh CRC32C) over the header up to the checksum field, then schema, stats and directory.
   */
  public static long metaChecksum(Checksum crc, byte[] frame, int payloadStart) {
    crc.update(frame, 0, META_CHECKSUM_AT);
    crc.update(frame, LEN, payloadStart - LEN);
    return crc.getValue();
  }
}
