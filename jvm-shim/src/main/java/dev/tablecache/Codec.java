package dev.tablecache;

import dev.tablecache.TableCacheException.Kind;
import java.util.Locale;

/** Payload compression, with the ids the native writer takes (docs/ARCHITECTURE.md). */
public enum Codec {
  NONE(0),
  LZ4(1),
  ZSTD(2),
  /** lz4, but a payload is stored raw when compression saves less than 1/8. */
  AUTO(3),
  /**
   * lz4, or zstd for a payload where zstd stores at most four fifths of lz4's bytes (text such as
   * JSON, URLs, log messages); raw when neither saves 1/8.
   */
  ADAPTIVE(4);

  /** Largest expansion one stored byte can produce in the LZ4 block format. */
  public static final long LZ4_MAX_RATIO = 255;
  /** Largest expansion of a zstd frame (RLE blocks: a few bytes per 128 KiB block). */
  public static final long ZSTD_MAX_RATIO = 32768;

  private final int id;

  Codec(int id) {
    this.id = id;
  }

  /** The id passed to the native writer. */
  public int id() {
    return id;
  }

  /** The codec with this id. */
  public static Codec fromId(int id) {
    for (Codec c : values()) {
      if (c.id == id) {
        return c;
      }
    }
    throw new TableCacheException(Kind.INVALID_ARGUMENT, "unknown codec id " + id);
  }

  /**
   * Parses a codec name leniently: case and surrounding blanks are ignored, and the spellings
   * Spark and users commonly write are accepted ("uncompressed", "lz4_frame", "zstandard", an id
   * digit).
   *
   * @throws TableCacheException INVALID_ARGUMENT for null or an unknown name
   */
  public static Codec parse(String name) {
    if (name == null) {
      throw new TableCacheException(Kind.INVALID_ARGUMENT, "codec name is null");
    }
    String n = name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    switch (n) {
      case "none":
      case "uncompressed":
      case "off":
      case "0":
        return NONE;
      case "lz4":
      case "lz4_block":
      case "lz4_frame":
      case "1":
        return LZ4;
      case "zstd":
      case "zstandard":
      case "2":
        return ZSTD;
      case "auto":
      case "3":
        return AUTO;
      case "adaptive":
      case "4":
        return ADAPTIVE;
      default:
        throw new TableCacheException(
            Kind.INVALID_ARGUMENT,
            "unknown codec '" + name + "' (expected none, lz4, zstd, auto, adaptive)");
    }
  }
}
