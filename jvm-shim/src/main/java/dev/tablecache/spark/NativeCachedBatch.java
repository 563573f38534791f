package dev.tablecache.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.tablecache.CacheFormat;
import dev.tablecache.format.FrameParser;
import dev.tablecache.format.ParsedFrame;
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
 * storage levels see the real footprint. Stats live only inside the frame; {@link #stats()}
 * parses them on first use (pure Java, no JNI) and keeps the row in a transient field.
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
    return parsed().hasStats;
  }

  @Override
  public InternalRow stats() {
    return parsed().stats;
  }

  private Parsed parsed() {
    Parsed p = parsed;
    if (p == null) {
      p = Parsed.of(frame, numRows);
      parsed = p;
    }
    return p;
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

  /** The parsed view of a frame's header and stats. */
  private static final class Parsed {
    final boolean hasStats;
    final InternalRow stats;

    private Parsed(boolean hasStats, InternalRow stats) {
      this.hasStats = hasStats;
      this.stats = stats;
    }

    static Parsed of(byte[] frame, int numRows) {
      if (CacheFormat.detect(frame) == CacheFormat.LEGACY) {
        return new Parsed(false, StatsRows.withoutStats(0, numRows));
      }
      ParsedFrame f = FrameParser.parse(frame);
      if (!f.hasStats()) {
        return new Parsed(false, StatsRows.withoutStats(f.columnCount(), numRows));
      }
      return new Parsed(true, StatsRows.build(f.schema().getFields(), f.stats()));
    }
  }
}
