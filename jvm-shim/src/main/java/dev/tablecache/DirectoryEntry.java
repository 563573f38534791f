package dev.tablecache;

/**
 * One 20-byte directory entry of a V2/V3 frame (FORMAT.md section 2). Unsigned 32-bit fields are
 * widened to {@code long}.
 *
 * @param offset payload offset from payload_start
 * @param storedLen bytes of the payload in the frame
 * @param rawLen bytes after decompression (the column body)
 * @param checksum CRC32C of the stored bytes, 0 when the frame has no checksums
 * @param codecId 0 none, 1 lz4 block, 2 zstd frame
 * @param encodingId 0 plain, 1 byte stream split
 */
public record DirectoryEntry(
    long offset, long storedLen, long rawLen, long checksum, int codecId, int encodingId) {

  /** Codec id for uncompressed payloads. */
  public static final int CODEC_NONE = 0;
  /** Codec id for lz4 block payloads. */
  public static final int CODEC_LZ4 = 1;
  /** Codec id for zstd frame payloads. */
  public static final int CODEC_ZSTD = 2;
  /** Encoding id for payloads whose buffers are stored as Arrow holds them. */
  public static final int ENCODING_PLAIN = 0;
  /** Encoding id for byte-stream-split payloads. */
  public static final int ENCODING_BYTE_STREAM_SPLIT = 1;

  /** The payload codec as a {@link Codec} (never AUTO). */
  public Codec codec() {
    return Codec.fromId(codecId);
  }

  /** The payload encoding as an {@link Encoding}. */
  public Encoding encoding() {
    return Encoding.fromId(encodingId);
  }
}
