package dev.tablecache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Names quoted in exception messages and log lines, kept short (ARCHITECTURE.md, "Error text").
 *
 * <p>A field name may be up to 64 KiB, and Spark logs a task's failure on every retry: so every
 * name or schema path segment that a message quotes is cut to {@link #MAX_NAME_BYTES} bytes of
 * UTF-8 on a character boundary, followed by {@code …(+N bytes)} saying how much was cut. The
 * native library's {@code names.rs} applies the same rule.
 */
public final class ErrorText {

  /** Most UTF-8 bytes of one name (one path segment) that a message quotes. */
  public static final int MAX_NAME_BYTES = 64;

  /**
   * Most UTF-8 bytes of text that quotes names indirectly (a Spark type's {@code simpleString},
   * an Arrow field or exception) that a message carries.
   */
  public static final int MAX_TEXT_BYTES = 1024;

  private static final String DELIMITERS = "\"'`.,:;()[]{}<>=/\\|…";

  private ErrorText() {}

  /** {@code name} as message text: at most {@link #MAX_NAME_BYTES} bytes of it, then the cut. */
  public static String name(String name) {
    return cut(name, MAX_NAME_BYTES);
  }

  /** {@link #name} for a name read as raw UTF-8 bytes (invalid bytes shown as U+FFFD). */
  public static String name(ByteBuffer utf8) {
    ByteBuffer b = utf8.duplicate();
    int len = b.remaining();
    if (len <= MAX_NAME_BYTES) {
      return StandardCharsets.UTF_8.decode(b).toString();
    }
    int head = MAX_NAME_BYTES;
    // Back off from a UTF-8 continuation byte (0b10xx_xxxx), at most three.
    while (head > MAX_NAME_BYTES - 3 && (b.get(b.position() + head) & 0xc0) == 0x80) {
      head--;
    }
    b.limit(b.position() + head);
    return StandardCharsets.UTF_8.decode(b) + "…(+" + (len - head) + " bytes)";
  }

  /**
   * Text that may quote names (a type's {@code simpleString}, an Arrow {@code Field}, another
   * library's exception), made safe for a message: every run of more than {@link
   * #MAX_NAME_BYTES} bytes between quotes, spaces and punctuation is cut as {@link #name} cuts a
   * name, and the whole is cut to {@link #MAX_TEXT_BYTES}.
   */
  public static String text(Object text) {
    String s = String.valueOf(text);
    // A run of more than 64 bytes has more than 21 chars; only then is there work.
    if (s.length() <= MAX_NAME_BYTES / 3 || (!hasLongRun(s) && utf8Length(s) <= MAX_TEXT_BYTES)) {
      return s;
    }
    StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_TEXT_BYTES + 32));
    int runStart = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (isDelimiter(c)) {
        out.append(name(s.substring(runStart, i))).append(c);
        runStart = i + 1;
      }
    }
    out.append(name(s.substring(runStart)));
    return cut(out.toString(), MAX_TEXT_BYTES);
  }

  private static boolean hasLongRun(String s) {
    int run = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (isDelimiter(c)) {
        run = 0;
      } else {
        run += c < 0x80 ? 1 : (c < 0x800 ? 2 : (Character.isSurrogate(c) ? 2 : 3));
        if (run > MAX_NAME_BYTES) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean isDelimiter(char c) {
    return Character.isWhitespace(c) || DELIMITERS.indexOf(c) >= 0;
  }

  /** {@code s} cut to at most {@code max} UTF-8 bytes on a code point boundary, then the cut. */
  private static String cut(String s, int max) {
    if (s.length() <= max / 3) {
      return s; // at most 3 bytes per char
    }
    int bytes = 0;
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + n > max) {
        break;
      }
      bytes += n;
      i += Character.charCount(cp);
    }
    if (i == s.length()) {
      return s;
    }
    return s.substring(0, i) + "…(+" + (utf8Length(s) - bytes) + " bytes)";
  }

  private static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
