package dev.tablecache.format;

/**
 * What a read of a frame will decode to, from its directory alone (FORMAT.md section 2): the sum
 * of the decoded lengths of the columns it decodes (V4: those columns' {@code decoded_len}s; V3:
 * their {@code raw_len}s, as a V3 body is plain once decompressed; V2: the one whole-batch
 * payload's; legacy: the stream's length). Read before the native decode, so that the memory can
 * be asked of Spark's memory manager first; the native reader refuses a frame whose declared
 * sizes are over its decode budget or differ from what its bodies decode to. No schema or stats
 * are parsed.
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
    // The decoded length's offset in an entry: V4 states it after the V3 fields; V2 and V3
    // bodies are plain once decompressed, so their raw_len is it.
    int entryLen = version == 4 ? DirectoryEntry.V4_LEN : DirectoryEntry.LEN;
    int decodedAt = version == 4 ? DirectoryEntry.LEN : 8;
    long entries = perColumn ? columnCount : 1;
    if (directory + (long) entryLen * entries > frame.length) {
      return frame.length;
    }
    if (!perColumn) {
      return LittleEndian.u32(frame, (int) (directory + decodedAt));
    }
    long sum = 0;
    for (int c : columns) {
      if (c < 0 || c >= columnCount) {
        return frame.length;
      }
      sum += LittleEndian.u32(frame, (int) (directory + (long) entryLen * c + decodedAt));
    }
    return sum;
  }
}
