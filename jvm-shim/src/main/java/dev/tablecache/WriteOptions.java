package dev.tablecache;

import dev.tablecache.TableCacheException.Kind;
import java.util.Objects;

/**
 * How {@link TableCache#serialize} writes a batch. Immutable; build with {@link #builder()}.
 * Defaults: format V3, stats on, codec LZ4, encoding policy {@link EncodingPolicy#AUTO}, string-bound
 * limit 256 bytes.
 */
public final class WriteOptions {

  public static final int DEFAULT_STRING_BOUND_LIMIT = 256;

  private static final WriteOptions DEFAULTS = builder().build();

  private final CacheFormat preferredFormat;
  private final boolean stats;
  private final Codec codec;
  private final EncodingPolicy encodingPolicy;
  private final int stringBoundLimit;

  private WriteOptions(Builder b) {
    this.preferredFormat = b.preferredFormat;
    this.stats = b.stats;
    this.codec = b.codec;
    this.encodingPolicy = b.encodingPolicy;
    this.stringBoundLimit = b.stringBoundLimit;
  }

  /** The default options. */
  public static WriteOptions defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder()
        .preferredFormat(preferredFormat)
        .stats(stats)
        .codec(codec)
        .encodingPolicy(encodingPolicy)
        .stringBoundLimit(stringBoundLimit);
  }

  /** The format to write when the library can; older formats are the fallback. */
  public CacheFormat preferredFormat() {
    return preferredFormat;
  }

  /** Whether to write partition statistics (V4, V3, V2; legacy never has them). */
  public boolean stats() {
    return stats;
  }

  public Codec codec() {
    return codec;
  }

  /**
   * How the encoding of each V3/V2 payload (of each buffer in V4) is chosen; legacy streams are
   * always plain.
   */
  public EncodingPolicy encodingPolicy() {
    return encodingPolicy;
  }

  /** Bytes kept of a string bound (FORMAT.md section 4); at least 1. */
  public int stringBoundLimit() {
    return stringBoundLimit;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof WriteOptions)) {
      return false;
    }
    WriteOptions w = (WriteOptions) o;
    return preferredFormat == w.preferredFormat
        && stats == w.stats
        && codec == w.codec
        && encodingPolicy.equals(w.encodingPolicy)
        && stringBoundLimit == w.stringBoundLimit;
  }

  @Override
  public int hashCode() {
    return Objects.hash(preferredFormat, stats, codec, encodingPolicy, stringBoundLimit);
  }

  @Override
  public String toString() {
    return "WriteOptions{format="
        + preferredFormat
        + ", stats="
        + stats
        + ", codec="
        + codec
        + ", encoding="
        + encodingPolicy
        + ", stringBoundLimit="
        + stringBoundLimit
        + "}";
  }

  /** Builder for {@link WriteOptions}; setters validate eagerly. */
  public static final class Builder {
    private CacheFormat preferredFormat = CacheFormat.V3;
    private boolean stats = true;
    private Codec codec = Codec.LZ4;
    private EncodingPolicy encodingPolicy = EncodingPolicy.AUTO;
    private int stringBoundLimit = DEFAULT_STRING_BOUND_LIMIT;

    private Builder() {}

    public Builder preferredFormat(CacheFormat format) {
      this.preferredFormat = require(format, "preferredFormat");
      return this;
    }

    public Builder stats(boolean stats) {
      this.stats = stats;
      return this;
    }

    public Builder codec(Codec codec) {
      this.codec = require(codec, "codec");
      return this;
    }

    /**
     * How each payload's encoding (each buffer's in V4) is chosen; legacy streams are always
     * plain.
     */
    public Builder encodingPolicy(EncodingPolicy policy) {
      this.encodingPolicy = require(policy, "encodingPolicy");
      return this;
    }

    /** Pins one encoding: {@code encodingPolicy(EncodingPolicy.pinned(encoding))}. */
    public Builder encoding(Encoding encoding) {
      return encodingPolicy(EncodingPolicy.pinned(require(encoding, "encoding")));
    }

    /** @throws TableCacheException INVALID_ARGUMENT when {@code limit < 1} */
    public Builder stringBoundLimit(int limit) {
      if (limit < 1) {
        throw new TableCacheException(
            Kind.INVALID_ARGUMENT, "stringBoundLimit must be >= 1, got " + limit);
      }
      this.stringBoundLimit = limit;
      return this;
    }

    public WriteOptions build() {
      return new WriteOptions(this);
    }

    private static <T> T require(T value, String name) {
      if (value == null) {
        throw new TableCacheException(Kind.INVALID_ARGUMENT, name + " must not be null");
      }
      return value;
    }
  }
}
