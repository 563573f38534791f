package dev.tablecache;

import dev.tablecache.TableCacheException.Kind;
import java.util.Locale;

/**
 * How a payload's column bodies are laid out before the codec (FORMAT.md section 3.1), with the ids
 * the native writer takes and directory entries record (docs/ARCHITECTURE.md).
 */
public enum Encoding {
  /** Buffers as Arrow holds them. */
  PLAIN(0),
  /** Fixed-width buffers stored one stream per byte position, which compresses far better. */
  BYTE_STREAM_SPLIT(1);

  private final int id;

  Encoding(int id) {
    this.id = id;
  }

  /** The id passed to the native writer and stored in a directory entry. */
  public int id() {
    return id;
  }

  /**
   * The encoding with this id.
   *
   * @throws TableCacheException INVALID_ARGUMENT for an unknown id
   */
  public static Encoding fromId(int id) {
    for (Encoding e : values()) {
      if (e.id == id) {
        return e;
      }
    }
    throw new TableCacheException(Kind.INVALID_ARGUMENT, "unknown encoding id " + id);
  }

  /** Whether a directory entry's encoding id is one this reader knows. */
  public static boolean isKnownId(int id) {
    for (Encoding e : values()) {
      if (e.id == id) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses an encoding name leniently: case, surrounding blanks and '-' versus '_' are ignored,
   * and the short spellings users write ("none", "split") are accepted.
   *
   * @throws TableCacheException INVALID_ARGUMENT for null or an unknown name
   */
  public static Encoding parse(String name) {
    if (name == null) {
      throw new TableCacheException(Kind.INVALID_ARGUMENT, "encoding name is null");
    }
    String n = name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    switch (n) {
      case "plain":
      case "none":
        return PLAIN;
      case "byte_stream_split":
      case "bytestreamsplit":
      case "split":
        return BYTE_STREAM_SPLIT;
      default:
        throw new TableCacheException(
            Kind.INVALID_ARGUMENT,
            "unknown encoding '" + name + "' (expected byte_stream_split, plain)");
    }
  }
}
