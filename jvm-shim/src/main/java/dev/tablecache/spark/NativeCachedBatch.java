package dev.tablecache.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.tablecache.CacheFormat;
import dev.tablecache.format.CheckedFrame;
import dev.tablecache.format.FrameParser;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import dev.tablecache.spark.stats.StatsRows;
import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.SimpleMetricsCachedBatch;

/**
 * One cached batch: the row count and the frame bytes, on heap, so Spark's size estimator and
 * storage levels see the real footprint. Stats live only inside the frame. The first read that
 * needs the frame's metadata (the stats filter, partial aggregates, a decode) parses it once,
 * pure Java, no JNI, and the batch keeps what the reads take from it in a transient field: the
 * {@link CheckedFrame} (schema, directory position) and, once the stats are read, the stats row.
 * Every later read of the batch, in this query or the next, uses those instead of parsing again.
 *
 * <p>Java serialization (Externalizable) and Kryo (KryoSerializable) both write exactly
 * {@code numRows, length, bytes}; reads check both fields against the stream and the frame
 * ({@link StoredForm}). Under {@code spark.kryo.registrationRequired=true} register this
 * class, e.g. {@code spark.kryo.classesToRegister=dev.tablecache.spark.NativeCachedBatch} or
 * {@code spark.kryo.registrator=dev.tablecache.spark.TableCacheKryoRegistrator}.
 */
public final class NativeCachedBatch
    implements SimpleMetricsCachedBatch, Externalizable, KryoSerializable, AutoCloseable {

  private static final long serialVersionUID = 1L;

  private int numRows;
  private byte[] frame;
  private transient volatile Parsed parsed;

  /** For deserialization only. */
  public NativeCachedBatch() {}

  public NativeCachedBatch(int numRows, byte[] frame) {
    if (numRows < 0 || frame == null) {
      throw new IllegalArgumentException("numRows=" + numRows + ", frame=" + frame);
    }
    this.numRows = numRows;
    this.frame = frame;
  }

  @Override
  public int numRows() {
    return numRows;
  }

  /** The frame length: the bytes this batch really holds. */
  @Override
  public long sizeInBytes() {
    return frame.length;
  }

  /** The frame; not copied, do not modify. */
  public byte[] frame() {
    return frame;
  }

  CacheFormat format() {
    return CacheFormat.detect(frame);
  }

  /** Whether the frame carries partition statistics (V4/V3/V2 written with stats on). */
  public boolean hasStats() {
    return parsed().frame.hasStats();
  }

  /** The stats row ({@link StatsRows}), built from the frame's stats entries on first use. */
  @Override
  public InternalRow stats() {
    Parsed p = parsed();
    InternalRow row = p.stats;
    return row != null ? row : statsOnce(p);
  }

  /**
   * The frame's metadata as the parser checked it, for the decoded-size check and the import:
   * parsed on first use (here, or by {@link #hasStats()} or {@link #stats()}), then kept.
   *
   * @throws dev.tablecache.TableCacheException with the native reader's kind for a damaged frame
   */
  public CheckedFrame checkedFrame() {
    return parsed().frame;
  }

  private Parsed parsed() {
    Parsed p = parsed;
    return p != null ? p : parseOnce();
  }

  /**
   * Parses the frame's metadata unless a reader did already. Under the batch's lock, as is {@link
   * #statsOnce}, so that first readers at once (two tasks scanning one cached block) wait for one
   * parse instead of each making their own. A parse that fails keeps nothing: the next read
   * parses again and fails the same way.
   */
  private synchronized Parsed parseOnce() {
    Parsed p = parsed;
    if (p == null) {
      p = new Parsed(FrameParser.check(frame));
      parsed = p;
    }
    return p;
  }

  /** Builds the stats row of {@code p} unless a reader did already. */
  private synchronized InternalRow statsOnce(Parsed p) {
    InternalRow row = p.stats;
    if (row == null) {
      row = statsRow(p.frame, numRows);
      p.stats = row;
    }
    return row;
  }

  private static InternalRow statsRow(CheckedFrame frame, int numRows) {
    if (frame.format() == CacheFormat.LEGACY) {
      return StatsRows.withoutStats(0, numRows);
    }
    if (!frame.hasStats()) {
      return StatsRows.withoutStats(frame.schema().getFields().size(), numRows);
    }
    return StatsRows.build(frame.schema().getFields(), frame.stats());
  }

  /** Called by Spark's block manager when the block holding this batch is removed. */
  @Override
  public void close() {
    parsed = null;
    TableCacheMetrics.BATCHES_CLOSED.increment();
  }

  @Override
  public void writeExternal(ObjectOutput out) throws IOException {
    out.writeInt(numRows);
    out.writeInt(frame.length);
    out.write(frame);
  }

  @Override
  public void readExternal(ObjectInput in) throws IOException {
    int rows = in.readInt();
    int len = in.readInt();
    frame = StoredForm.readFrame(in, rows, len);
    numRows = rows;
  }

  @Override
  public void write(Kryo kryo, Output output) {
    output.writeInt(numRows);
    output.writeInt(frame.length, true);
    output.writeBytes(frame);
  }

  @Override
  public void read(Kryo kryo, Input input) {
    int rows = input.readInt();
    int len = input.readInt(true);
    frame = StoredForm.readFrame(input::readBytes, rows, len);
    numRows = rows;
  }

  @Override
  public String toString() {
    return "NativeCachedBatch{rows=" + numRows + ", bytes=" + frame.length + "}";
  }

  /**
   * What the reads of a batch take from its frame's metadata: the checked frame, and the stats
   * row once a reader asked for the stats. Nothing else of the parse is kept: a cache holds one
   * of these per batch.
   */
  private static final class Parsed {
    final CheckedFrame frame;
    /** Null until {@link #statsOnce} builds it. */
    volatile InternalRow stats;

    Parsed(CheckedFrame frame) {
      this.frame = frame;
    }
  }
}
