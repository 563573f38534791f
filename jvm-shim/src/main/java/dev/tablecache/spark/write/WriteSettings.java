package dev.tablecache.spark.write;

import dev.tablecache.WriteOptions;
import java.io.Serializable;

/**
 * How one cache build writes its batches: captured from the session conf on the driver and
 * shipped to every task (hence Serializable; {@link WriteOptions} is rebuilt per task from the
 * plain fields).
 */
public final class WriteSettings implements Serializable {
  private static final long serialVersionUID = 5L; // 5: encodingPolicy (auto)

  private final String format;
  private final boolean stats;
  private final String codec;
  /** {@link dev.tablecache.EncodingPolicy#name()}. */
  private final String encodingPolicy;
  private final int stringBoundLimit;
  final int batchRows;
  final long batchBytes;
  final int zeroCopyMinRows;
  /** Rows reach the native writer as UnsafeRow bytes where it reads every column type. */
  final boolean unsafeRowInput;
  public final String timeZoneId;
  /**
   * Fault injection for the fault suite ({@code spark.tablecache.test.corruptFrames}): every
   * written frame gets one flipped byte, as a broken writer would produce.
   */
  final boolean corruptFrames;
  private transient WriteOptions options;

  public WriteSettings(
      WriteOptions options,
      int batchRows,
      long batchBytes,
      int zeroCopyMinRows,
      boolean unsafeRowInput,
      String tz,
      boolean corruptFrames) {
    this.format = options.preferredFormat().name();
    this.stats = options.stats();
    this.codec = options.codec().name();
    this.encodingPolicy = options.encodingPolicy().name();
    this.stringBoundLimit = options.stringBoundLimit();
    this.batchRows = batchRows;
    this.batchBytes = batchBytes;
    this.zeroCopyMinRows = zeroCopyMinRows;
    this.unsafeRowInput = unsafeRowInput;
    this.timeZoneId = tz;
    this.corruptFrames = corruptFrames;
    this.options = options;
  }

  WriteOptions options() {
    WriteOptions o = options;
    if (o == null) {
      o =
          WriteOptions.builder()
              .preferredFormat(dev.tablecache.CacheFormat.valueOf(format))
              .stats(stats)
              .codec(dev.tablecache.Codec.valueOf(codec))
              .encodingPolicy(dev.tablecache.EncodingPolicy.parse(encodingPolicy))
              .stringBoundLimit(stringBoundLimit)
              .build();
      options = o;
    }
    return o;
  }

  @Override
  public String toString() {
    return "WriteSettings{"
        + options()
        + ", batchRows="
        + batchRows
        + ", batchBytes="
        + batchBytes
        + ", zeroCopyMinRows="
        + zeroCopyMinRows
        + ", unsafeRowInput="
        + unsafeRowInput
        + ", tz="
        + timeZoneId
        + (corruptFrames ? ", corruptFrames" : "")
        + "}";
  }
}
