package dev.tablecache.format;

/**
 * What a read of a frame will decode to, from its directory alone (FORMAT.md section 2): the sum
 * of the {@code raw_len}s of the columns it decodes (V3, V4: those columns' entries; V2: the one
 * whole-batch payload; legacy: the stream's length). Read before the native decode, so that the
 * memory can be asked of Spark's memory manager first; the native reader refuses a frame whose
 * declared sizes are over its decode budget. No schema or stats are parsed.
 *
 * <p>A V4 entry's {@code raw_len} is its encoded body's length, which the lightweight encodings
 * may keep far below the decoded column (a constant column is a few bytes): for V4 this is a
 * lower bound, since only the native reader reads the bodies that state the decoded sizes.
 */
public final class DecodedSize {

  private DecodedSize() {}

  /**
   * The decoded bytes a read of {@code columns} of {@code frame} declares; for a frame too
   * damaged to tell, its length (the native decode refuses it).
   */
  public static long declared(byte[] frame, int[] columns) {
    if (frame.length < Header.LEN || (frame[0] & 0xFF) != 0x89) {
      return frame.length; // legacy (or damaged): an Arrow IPC stream, mostly uncompressed
    }
    int version = frame[Header.VERSION_AT] & 0xFF;
    long columnCount = LittleEndian.u32(frame, Header.COLUMN_COUNT_AT);
    long directory =
        Header.LEN
            + LittleEndian.u32(frame, Header.SCHEMA_LEN_AT)
            + LittleEndian.u32(frame, Header.STATS_LEN_AT);
    boolean perColumn = version == 3 || version == 4;
    long entries = perColumn ? columnCount : 1;
    if (directory + 20 * entries > frame.length) {
      return frame.length;
    }
    if (!perColumn) {
      return rawLen(frame, directory, 0);
    }
    long sum = 0;
    for (int c : columns) {
      if (c < 0 || c >= columnCount) {
        return frame.length;
      }
      sum += rawLen(frame, directory, c);
    }
    return sum;
  }

  private static long rawLen(byte[] frame, long directory, long entry) {
    return LittleEndian.u32(frame, (int) (directory + 20 * entry + 8));
  }
}
