package dev.tablecache.spark;

import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.EncodingPolicy;
import dev.tablecache.WriteOptions;
import dev.tablecache.spark.write.WriteSettings;
import java.util.Locale;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The {@code spark.tablecache.*} keys, read from the session's {@link SQLConf} on the driver. The
 * README's configuration table documents the same keys and defaults.
 */
public final class TableCacheConf {

  public static final String PREFIX = "spark.tablecache.";
  /**
   * v4 (default) | v3 | v2 | legacy: the preferred frame format; a library that cannot write it
   * writes the next older one (V4, V3, V2, legacy).
   */
  static final String FORMAT = PREFIX + "format";
  /** true | false: write partition statistics (needed for batch pruning). */
  static final String STATS = PREFIX + "stats";
  /** adaptive (default) | lz4 | zstd | none | auto. */
  static final String CODEC = PREFIX + "codec";
  /**
   * auto | byte_stream_split | plain: how each payload's encoding is chosen (auto, the default:
   * the writer chooses; a name pins that encoding, for tests and benchmarks).
   */
  public static final String ENCODING = PREFIX + "encoding";
  /** Rows per cached batch; default spark.sql.inMemoryColumnarStorage.batchSize. */
  public static final String BATCH_ROWS = PREFIX + "batchRows";
  /** Upper bound of a cached batch's Arrow bytes when rows are coalesced/copied. */
  public static final String BATCH_BYTES = PREFIX + "batchBytes";
  /** Arrow input batches with at least this many rows are cached as they are (zero copy). */
  static final String ZERO_COPY_MIN_ROWS = PREFIX + "zeroCopyMinRows";
  /** Bytes kept of a string min/max bound. */
  static final String STRING_BOUND_LIMIT = PREFIX + "stringBoundLimit";
  /** fallback | fail: what to do when the native library is unavailable. */
  public static final String ON_UNAVAILABLE = PREFIX + "onUnavailable";
  /**
   * true | false: with {@link TableCacheExtensions} installed, read caches through columnar
   * whole-stage code ({@code plan.ColumnarCacheReadRule}); a runtime switch for that rule.
   */
  static final String COLUMNAR_READ = PREFIX + "columnarRead";
  /**
   * true | false: with {@link TableCacheExtensions} installed, answer the partial {@code count},
   * {@code min} and {@code max} of a global aggregate over a cache from each frame's stats,
   * decoding only what the stats cannot give ({@code plan.CachedAggregateRule}).
   */
  static final String AGGREGATES_FROM_STATS = PREFIX + "aggregatesFromStats";
  /**
   * true | false: cache rows by handing their UnsafeRow bytes to the native writer, which
   * transposes them (false: Spark's ArrowWriter fills Arrow vectors value by value).
   */
  public static final String UNSAFE_ROW_INPUT = PREFIX + "unsafeRowInput";
  /**
   * true | false: take columnar input batches (true, except from engines whose batches cannot be
   * read through ColumnVector, see {@code engine.foreign.ForeignBatchGuard}); false: always build caches from
   * rows, keeping any engine's columnar-to-row transition. Read when a cache is defined.
   */
  public static final String COLUMNAR_INPUT = PREFIX + "columnarInput";

  /**
   * true | false, default false. FAULT INJECTION FOR TESTS ONLY: every frame written while it is
   * set gets one flipped byte, so that reading it fails its checksum (a simulated broken writer;
   * the fault suite checks that block healing stops instead of looping). Never set it otherwise.
   */
  static final String TEST_CORRUPT_FRAMES = PREFIX + "test.corruptFrames";

  static final long DEFAULT_BATCH_BYTES = 32L << 20;
  /** Hard cap: a frame's column lengths are u32 and raw lengths must stay below 2^31. */
  static final long MAX_BATCH_BYTES = 1L << 30;

  private TableCacheConf() {}

  /** The write settings of one cache build, captured on the driver and shipped to tasks. */
  public static WriteSettings writeSettings(SQLConf conf) {
    int batchRows = intConf(conf, BATCH_ROWS, conf.columnBatchSize());
    if (batchRows < 1) {
      throw new IllegalArgumentException(BATCH_ROWS + " must be >= 1, got " + batchRows);
    }
    long batchBytes = bytesConf(conf, BATCH_BYTES, DEFAULT_BATCH_BYTES);
    if (batchBytes < 1 || batchBytes > MAX_BATCH_BYTES) {
      throw new IllegalArgumentException(
          BATCH_BYTES + " must be in [1, " + MAX_BATCH_BYTES + "], got " + batchBytes);
    }
    int zeroCopyMinRows = intConf(conf, ZERO_COPY_MIN_ROWS, Math.max(1, batchRows / 2));
    WriteOptions options =
        WriteOptions.builder()
            .preferredFormat(format(conf.getConfString(FORMAT, "v4")))
            .stats(boolConf(conf, STATS, true))
            .codec(Codec.parse(conf.getConfString(CODEC, "adaptive")))
            .encodingPolicy(EncodingPolicy.parse(conf.getConfString(ENCODING, "auto")))
            .stringBoundLimit(
                intConf(conf, STRING_BOUND_LIMIT, WriteOptions.DEFAULT_STRING_BOUND_LIMIT))
            .build();
    return new WriteSettings(
        options,
        batchRows,
        batchBytes,
        zeroCopyMinRows,
        boolConf(conf, UNSAFE_ROW_INPUT, true),
        conf.sessionLocalTimeZone(),
        boolConf(conf, TEST_CORRUPT_FRAMES, false));
  }

  /** Whether {@code plan.ColumnarCacheReadRule} rewrites plans in this session. */
  public static boolean columnarRead(SQLConf conf) {
    return boolConf(conf, COLUMNAR_READ, true);
  }

  /** Whether {@code plan.CachedAggregateRule} rewrites plans in this session. */
  public static boolean aggregatesFromStats(SQLConf conf) {
    return boolConf(conf, AGGREGATES_FROM_STATS, true);
  }

  /** Whether caches may take columnar input at all ({@link #COLUMNAR_INPUT}). */
  public static boolean columnarInput(SQLConf conf) {
    return boolConf(conf, COLUMNAR_INPUT, true);
  }

  /** Whether an unavailable native library must fail the query instead of falling back. */
  public static boolean failWhenUnavailable(SQLConf conf) {
    String v = conf.getConfString(ON_UNAVAILABLE, "fallback").trim().toLowerCase(Locale.ROOT);
    switch (v) {
      case "fallback":
        return false;
      case "fail":
        return true;
      default:
        throw new IllegalArgumentException(
            ON_UNAVAILABLE + " must be 'fallback' or 'fail', got '" + v + "'");
    }
  }

  static CacheFormat format(String value) {
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "v4":
        return CacheFormat.V4;
      case "v3":
        return CacheFormat.V3;
      case "v2":
        return CacheFormat.V2;
      case "legacy":
        return CacheFormat.LEGACY;
      default:
        throw new IllegalArgumentException(
            FORMAT + " must be v4, v3, v2 or legacy, got '" + value + "'");
    }
  }

  private static int intConf(SQLConf conf, String key, int dflt) {
    String v = conf.getConfString(key, null);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'", e);
    }
  }

  private static boolean boolConf(SQLConf conf, String key, boolean dflt) {
    String v = conf.getConfString(key, null);
    if (v == null) {
      return dflt;
    }
    switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new IllegalArgumentException(key + " must be true or false, got '" + v + "'");
    }
  }

  /** Accepts Spark's byte strings ("32m", "1g", "4096b") and plain numbers of bytes. */
  private static long bytesConf(SQLConf conf, String key, long dflt) {
    String v = conf.getConfString(key, null);
    if (v == null) {
      return dflt;
    }
    try {
      return org.apache.spark.network.util.JavaUtils.byteStringAsBytes(v.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(key + " must be a byte size, got '" + v + "'", e);
    }
  }
}
