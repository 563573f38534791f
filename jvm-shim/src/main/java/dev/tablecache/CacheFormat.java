package dev.tablecache;

import dev.tablecache.TableCacheException.Kind;

/**
 * The cached-batch formats of FORMAT.md, newest first ({@code TableCache.formatFor} falls back
 * along this order); they mix freely within one cache.
 */
public enum CacheFormat {
  /**
   * V3's per-column frame (version 4) whose column bodies state each buffer's encoding. Written
   * only when asked for: V3 stays the default until the encodings' selection is benchmarked.
   */
  V4,
  /** Per-column frame (version 3): decodes only the projected columns. */
  V3,
  /** Whole-batch frame (version 2) with stats. */
  V2,
  /** A plain Arrow IPC stream, no frame. */
  LEGACY;

  static final int MAGIC_0 = 0x89;
  static final int MAGIC_1 = 0x54; // 'T'
  static final int MAGIC_2 = 0x43; // 'C'
  static final int MAGIC_3 = 0x46; // 'F'

  /**
   * Detects the format of a cached batch from its first bytes (FORMAT.md section 1).
   *
   * @throws TableCacheException CORRUPT_FRAME when truncated or the magic is unknown,
   *     UNSUPPORTED_VERSION for a frame version other than 2, 3 or 4
   */
  public static CacheFormat detect(byte[] bytes) {
    if (bytes == null) {
      throw new TableCacheException(Kind.INVALID_ARGUMENT, "frame is null");
    }
    if (bytes.length < 4) {
      throw new TableCacheException(
          Kind.CORRUPT_FRAME, "Truncated: " + bytes.length + " bytes, need at least 4 to detect");
    }
    int b0 = bytes[0] & 0xFF;
    int b1 = bytes[1] & 0xFF;
    int b2 = bytes[2] & 0xFF;
    int b3 = bytes[3] & 0xFF;
    if (b0 == MAGIC_0 && b1 == MAGIC_1 && b2 == MAGIC_2 && b3 == MAGIC_3) {
      if (bytes.length < 5) {
        throw new TableCacheException(
            Kind.CORRUPT_FRAME, "Truncated: frame of 4 bytes has no version byte");
      }
      int version = bytes[4] & 0xFF;
      switch (version) {
        case 2:
          return V2;
        case 3:
          return V3;
        case 4:
          return V4;
        default:
          throw new TableCacheException(
              Kind.UNSUPPORTED_VERSION, "UnsupportedVersion: frame version " + version);
      }
    }
    if (b0 == 0xFF && b1 == 0xFF && b2 == 0xFF && b3 == 0xFF) {
      return LEGACY;
    }
    throw new TableCacheException(
        Kind.CORRUPT_FRAME,
        String.format("BadMagic: first bytes %02x %02x %02x %02x", b0, b1, b2, b3));
  }

  /** The frame version byte (4, 3, 2), or 0 for legacy. */
  public int versionByte() {
    switch (this) {
      case V4:
        return 4;
      case V3:
        return 3;
      case V2:
        return 2;
      default:
        return 0;
    }
  }
}
