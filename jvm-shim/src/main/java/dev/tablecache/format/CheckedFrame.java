package dev.tablecache.format;

import dev.tablecache.CacheFormat;
import dev.tablecache.TableCacheException;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A frame whose metadata {@link FrameParser#check} has checked, reduced to what its reads take
 * from it afterwards: the frame, its schema and where its directory starts. The Spark layer keeps
 * one per cached batch, made by the batch's one parse, and its stats filter, decoded-size check
 * and import all read this instead of parsing the frame again. The stats entries are parsed only
 * when asked for ({@link #stats()}): a read that only decodes never needs them.
 *
 * <p>Small on purpose: a cache holds one per batch, and Spark's size estimator walks it. It
 * copies nothing the frame holds (a directory entry is read from the frame bytes when asked for),
 * and its schema is the one instance {@link SchemaCodec} interns for every frame of that schema.
 *
 * <p>Native code never takes it on trust: the native decoder checks the frame again, whole, as
 * it checks every frame.
 */
public final class CheckedFrame {

  private final byte[] frame;
  private final Schema schema;
  /** Where the first directory entry starts; -1 for a legacy stream, which has no directory. */
  private final int directoryAt;

  CheckedFrame(byte[] frame, Schema schema, int directoryAt) {
    this.frame = frame;
    this.schema = schema;
    this.directoryAt = directoryAt;
  }

  /** The frame; not copied, do not modify. */
  public byte[] frame() {
    return frame;
  }

  /** The frame's Arrow schema, checked against its column count. */
  public Schema schema() {
    return schema;
  }

  /** The frame's format. */
  public CacheFormat format() {
    return directoryAt < 0 ? CacheFormat.LEGACY : CacheFormat.detect(frame);
  }

  /** Whether the frame carries a stats section (never a legacy stream). */
  public boolean hasStats() {
    return directoryAt >= 0 && (frame[Header.FLAGS_AT] & FrameParser.FLAG_STATS) != 0;
  }

  /**
   * The entries of the frame's stats section, in column order (empty without one), parsed now
   * with the checks of {@link FrameParser#parse}: every call parses the section, so a caller
   * keeps what it makes of them. Its bytes are covered by the metadata checksum already checked.
   *
   * @throws TableCacheException CORRUPT_FRAME for entries that break FORMAT.md section 4
   */
  public List<ColumnStats> stats() {
    return hasStats() ? FrameParser.parseStats(frame) : Collections.<ColumnStats>emptyList();
  }

  /**
   * The bytes a read of {@code columns} decodes to, from the directory alone (FORMAT.md section
   * 2): the sum of those columns' decoded lengths (V4: their {@code decoded_len}s; V3: their
   * {@code raw_len}s, as a V3 body is plain once decompressed); V2: the one whole-batch payload's;
   * legacy: the stream's length. Asked for before the native decode, so that Spark's memory
   * manager grants the memory first; the native reader refuses a body that decodes to other than
   * its entry states. For a column past the last, the frame's length: the native decode refuses
   * that projection.
   */
  public long decodedBytes(int[] columns) {
    if (directoryAt < 0) {
      return frame.length; // an Arrow IPC stream, mostly uncompressed
    }
    CacheFormat format = format();
    if (format == CacheFormat.V2) {
      return entry(format, 0).decodedLen();
    }
    int columnCount = schema.getFields().size();
    long sum = 0;
    for (int c : columns) {
      if (c < 0 || c >= columnCount) {
        return frame.length;
      }
      sum += entry(format, c).decodedLen();
    }
    return sum;
  }

  /** Directory entry {@code i}, which the parser checked; {@code i} is within the directory. */
  private DirectoryEntry entry(CacheFormat format, int i) {
    return DirectoryEntry.at(frame, directoryAt + DirectoryEntry.lengthIn(format) * i, format);
  }
}
