package dev.tablecache;

import dev.tablecache.TableCacheException.Kind;
import java.util.Locale;
import java.util.Objects;

/**
 * How the native writer chooses the {@link Encoding} of each payload: {@link #AUTO} (the default:
 * the writer chooses per payload) or one {@linkplain #pinned pinned} encoding, for tests and
 * benchmarks. Either way an encoding goes only on payloads the codec compresses (FORMAT.md
 * section 3.1). Immutable.
 */
public final class EncodingPolicy {

  /** The code of {@link #AUTO} on the JNI write request; a pinned encoding's code is its id. */
  public static final int AUTO_CODE = -1;

  /** The writer chooses. Today that is BYTE_STREAM_SPLIT wherever it changes a buffer. */
  public static final EncodingPolicy AUTO = new EncodingPolicy(null);

  /** Non-null for a pinned policy. */
  private final Encoding pinned;

  private EncodingPolicy(Encoding pinned) {
    this.pinned = pinned;
  }

  /**
   * This encoding on every payload it applies to.
   *
   * @throws TableCacheException INVALID_ARGUMENT for null
   */
  public static EncodingPolicy pinned(Encoding encoding) {
    if (encoding == null) {
      throw new TableCacheException(Kind.INVALID_ARGUMENT, "pinned encoding must not be null");
    }
    return new EncodingPolicy(encoding);
  }

  /** Whether the writer chooses. */
  public boolean isAuto() {
    return pinned == null;
  }

  /** The pinned encoding, or null for {@link #AUTO}. */
  public Encoding pinnedEncoding() {
    return pinned;
  }

  /**
   * The int the native writer takes ({@code NativeCodec.serialize}): {@link #AUTO_CODE} for auto,
   * else the pinned encoding's id (what shims sent before policies, with the same meaning).
   */
  public int code() {
    return pinned == null ? AUTO_CODE : pinned.id();
  }

  /** {@code AUTO}, or the pinned encoding's name ({@code PLAIN}, {@code BYTE_STREAM_SPLIT}). */
  public String name() {
    return pinned == null ? "AUTO" : pinned.name();
  }

  /**
   * Parses a policy name leniently: {@code auto}, or any name {@link Encoding#parse} accepts,
   * which pins that encoding. Case, surrounding blanks and '-' versus '_' are ignored.
   *
   * @throws TableCacheException INVALID_ARGUMENT for null or an unknown name
   */
  public static EncodingPolicy parse(String name) {
    if (name == null) {
      throw new TableCacheException(Kind.INVALID_ARGUMENT, "encoding name is null");
    }
    if (name.trim().toLowerCase(Locale.ROOT).equals("auto")) {
      return AUTO;
    }
    try {
      return pinned(Encoding.parse(name));
    } catch (TableCacheException e) {
      throw new TableCacheException(
          Kind.INVALID_ARGUMENT,
          "unknown encoding '" + name + "' (expected auto, byte_stream_split, plain)");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EncodingPolicy && ((EncodingPolicy) o).pinned == pinned;
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(pinned);
  }

  @Override
  public String toString() {
    return name();
  }
}
