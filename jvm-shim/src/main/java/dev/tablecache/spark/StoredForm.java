package dev.tablecache.spark;

import dev.tablecache.CacheFormat;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.format.Header;
import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectInput;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stored form of a {@link NativeCachedBatch} around its frame: {@code int numRows, int
 * length} (Kryo: a varint length), then the frame. This is what Spark's block manager writes for
 * {@code DISK_ONLY}, spilled, replicated and {@code OFF_HEAP} blocks, and no checksum covers
 * these two fields, so they are checked before use:
 *
 * <ul>
 *   <li>the length is bounded by {@value #MAX_FRAME_BYTES_KEY} and the frame is read in chunks,
 *       so a damaged length costs at most what the stream really holds, never an allocation of
 *       the claimed size;
 *   <li>the row count must equal the frame header's (V2/V3/V4; a legacy stream's is compared
 *       with the decoded batch's at the import).
 * </ul>
 *
 * A mismatch is {@link Kind#CORRUPT_FRAME}: the read heals as any damaged frame does.
 */
final class StoredForm {

  /** SparkConf key (static): the largest stored frame a read accepts. */
  static final String MAX_FRAME_BYTES_KEY = TableCacheConf.PREFIX + "maxFrameBytes";

  /**
   * The default and the ceiling: the largest Java array. A batch closes at {@code batchBytes}
   * (at most 1 GiB of Arrow buffers) plus its last row, so no frame the writer makes is larger.
   */
  static final long MAX_FRAME_BYTES = Integer.MAX_VALUE - 8;

  private static final Logger LOG = LoggerFactory.getLogger(StoredForm.class);
  private static final AtomicBoolean BAD_SETTING_LOGGED = new AtomicBoolean();

  /** Bytes read per step: a length field is trusted only as far as bytes really arrive. */
  private static final int CHUNK = 1 << 20;

  private StoredForm() {}

  /** Reads the frame of a Java-serialized batch whose fields were {@code numRows, len}. */
  static byte[] readFrame(ObjectInput in, int numRows, int len) throws IOException {
    return readChunks(in::read, numRows, len);
  }

  /** Reads the frame of a Kryo-serialized batch: {@code readBytes} fills its range or throws. */
  static byte[] readFrame(KryoChunks in, int numRows, int len) {
    try {
      return readChunks(
          (into, offset, count) -> {
            try {
              in.readFully(into, offset, count);
            } catch (RuntimeException e) { // KryoException: buffer underflow at the block's end
              throw new EndOfBlock(e);
            }
            return count;
          },
          numRows,
          len);
    } catch (IOException e) {
      throw new IllegalStateException("a Kryo read does not throw IOException", e);
    }
  }

  /** Kryo's {@code Input.readBytes(byte[], int, int)}, kept apart from Kryo's types here. */
  interface KryoChunks {
    void readFully(byte[] into, int offset, int count);
  }

  /** A stream read: up to {@code count} bytes into {@code into}, or -1 at the end. */
  private interface Chunks {
    int read(byte[] into, int offset, int count) throws IOException;
  }

  /** The end of a Kryo block, met inside {@link Chunks#read}. */
  private static final class EndOfBlock extends RuntimeException {
    private static final long serialVersionUID = 1L;

    EndOfBlock(RuntimeException cause) {
      super(cause);
    }
  }

  private static byte[] readChunks(Chunks in, int numRows, int len) throws IOException {
    checkFields(numRows, len);
    byte[] frame = new byte[Math.min(len, CHUNK)];
    int filled = 0;
    while (filled < len) {
      if (filled == frame.length) {
        frame = Arrays.copyOf(frame, (int) Math.min(len, 2L * frame.length));
      }
      int n;
      try {
        n = in.read(frame, filled, Math.min(frame.length - filled, CHUNK));
      } catch (EndOfBlock e) {
        throw truncated(filled, len, e.getCause());
      }
      if (n < 0) {
        throw truncated(filled, len, new EOFException());
      }
      filled += n;
    }
    checkRowCount(numRows, frame);
    return frame;
  }

  private static void checkFields(int numRows, int len) {
    if (numRows < 0 || len < 0) {
      throw corrupt("stored batch header is damaged: rows=" + numRows + ", length=" + len);
    }
    long max = maxFrameBytes();
    if (len > max) {
      throw corrupt(
          "stored batch claims a frame of "
              + len
              + " bytes, above "
              + MAX_FRAME_BYTES_KEY
              + "="
              + max
              + ": its length field is damaged");
    }
  }

  /**
   * The stored row count against the frame's own (V2/V3/V4 header, covered by the frame's
   * metadata checksum); a legacy stream has none here.
   */
  static void checkRowCount(int numRows, byte[] frame) {
    CacheFormat format;
    try {
      format = CacheFormat.detect(frame);
    } catch (TableCacheException e) {
      throw corrupt("stored frame is damaged: " + e.getMessage(), e);
    }
    if (format == CacheFormat.LEGACY) {
      return;
    }
    if (frame.length < Header.ROW_COUNT_AT + 4) {
      throw corrupt("stored frame of " + frame.length + " bytes is truncated before its row count");
    }
    long headerRows =
        (frame[Header.ROW_COUNT_AT] & 0xFFL)
            | (frame[Header.ROW_COUNT_AT + 1] & 0xFFL) << 8
            | (frame[Header.ROW_COUNT_AT + 2] & 0xFFL) << 16
            | (frame[Header.ROW_COUNT_AT + 3] & 0xFFL) << 24;
    if (headerRows != numRows) {
      throw corrupt(
          "stored batch says "
              + numRows
              + " rows but its frame's header says "
              + headerRows
              + ": the stored block is damaged");
    }
  }

  /** The largest frame a read accepts: {@value #MAX_FRAME_BYTES_KEY}, capped at the default. */
  static long maxFrameBytes() {
    SparkEnv env = SparkEnv.get();
    if (env == null) {
      return MAX_FRAME_BYTES;
    }
    SparkConf conf = env.conf();
    long configured;
    try {
      configured = conf.getSizeAsBytes(MAX_FRAME_BYTES_KEY, Long.toString(MAX_FRAME_BYTES));
    } catch (RuntimeException e) {
      if (BAD_SETTING_LOGGED.compareAndSet(false, true)) {
        LOG.warn("tablecache: ignoring {}: {}", MAX_FRAME_BYTES_KEY, e.toString());
      }
      return MAX_FRAME_BYTES;
    }
    return configured > 0 ? Math.min(configured, MAX_FRAME_BYTES) : MAX_FRAME_BYTES;
  }

  private static TableCacheException truncated(int filled, int len, Throwable cause) {
    return corrupt(
        "stored block ends after "
            + filled
            + " of the "
            + len
            + " frame bytes its length field claims: the block or that field is damaged",
        cause);
  }

  private static TableCacheException corrupt(String message) {
    return new TableCacheException(Kind.CORRUPT_FRAME, message);
  }

  private static TableCacheException corrupt(String message, Throwable cause) {
    return new TableCacheException(Kind.CORRUPT_FRAME, message, cause);
  }
}
