package dev.tablecache.format;

/**
 * UTF-8 validation without decoding, by the rules of Rust's {@code str::from_utf8} (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF), so the Java parser refuses exactly
 * the strings the native verifier refuses, and allocates nothing for a string of any length.
 */
final class Utf8 {

  private Utf8() {}

  /** The index of the first byte of the first invalid sequence in {@code [from, to)}, or -1. */
  static int firstInvalid(byte[] b, int from, int to) {
    int i = from;
    while (i < to) {
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        i++;
        continue;
      }
      int n;
      int lo = 0x80;
      int hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        n = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        if (c == 0xE0) {
          lo = 0xA0; // overlong below U+0800
        } else if (c == 0xED) {
          hi = 0x9F; // surrogates U+D800..U+DFFF
        }
      } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        if (c == 0xF0) {
          lo = 0x90; // overlong below U+10000
        } else if (c == 0xF4) {
          hi = 0x8F; // above U+10FFFF
        }
      } else {
        return i; // a continuation byte, C0, C1 or F5..FF
      }
      if (to - i <= n) {
        return i;
      }
      int second = b[i + 1] & 0xFF;
      if (second < lo || second > hi) {
        return i;
      }
      for (int k = 2; k <= n; k++) {
        int cont = b[i + k] & 0xFF;
        if (cont < 0x80 || cont > 0xBF) {
          return i;
        }
      }
      i += n + 1;
    }
    return -1;
  }
}
