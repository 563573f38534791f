package dev.tablecache.format;

/** Little-endian reads from a byte array; callers check bounds first. */
final class LittleEndian {

  private LittleEndian() {}

  static int u8(byte[] b, int off) {
    return b[off] & 0xFF;
  }

  static long u32(byte[] b, int off) {
    return i32(b, off) & 0xFFFF_FFFFL;
  }

  static int i32(byte[] b, int off) {
    return (b[off] & 0xFF)
        | (b[off + 1] & 0xFF) << 8
        | (b[off + 2] & 0xFF) << 16
        | (b[off + 3] & 0xFF) << 24;
  }

  static long i64(byte[] b, int off) {
    return (i32(b, off) & 0xFFFF_FFFFL) | ((long) i32(b, off + 4)) << 32;
  }
}
