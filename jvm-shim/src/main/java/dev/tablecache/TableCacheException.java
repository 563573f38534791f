package dev.tablecache;

import java.util.Locale;

/**
 * The one exception type of tablecache, thrown by the pure-Java parser and (through JNI) by the
 * native library. {@link #kind()} mirrors the Rust error kinds of FORMAT.md section 7, so callers
 * can react to a class of failure (for example treat {@link Kind#CORRUPT_FRAME} as a lost cache
 * block) without parsing messages.
 */
public class TableCacheException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Failure classes, named exactly as the native side names them. */
  public enum Kind {
    CORRUPT_FRAME,
    CHECKSUM_MISMATCH,
    UNSUPPORTED_VERSION,
    UNSUPPORTED_CODEC,
    SCHEMA_MISMATCH,
    COLUMN_OUT_OF_RANGE,
    UNSUPPORTED_TYPE,
    INVALID_ARGUMENT,
    INTERNAL,
    /** The native library could not be loaded or refused to be used; Java-side only. */
    NATIVE_UNAVAILABLE,
    /**
     * A columnar input batch whose vectors do not give their values through Spark's {@code
     * ColumnVector} getters (another engine's batches); Java-side only.
     */
    UNREADABLE_INPUT;

    /** Maps a kind name to a kind; unknown or null names are {@link #INTERNAL}. */
    public static Kind fromName(String name) {
      if (name == null) {
        return INTERNAL;
      }
      try {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        return INTERNAL;
      }
    }
  }

  private final Kind kind;

  /**
   * Called by the native library through JNI: keep this exact signature. An unknown kind string
   * becomes {@link Kind#INTERNAL} and is kept in the message so nothing is lost.
   */
  public TableCacheException(String kind, String message) {
    this(Kind.fromName(kind), annotateUnknown(kind, message));
  }

  public TableCacheException(Kind kind, String message) {
    super(format(kind, message));
    this.kind = kind;
  }

  public TableCacheException(Kind kind, String message, Throwable cause) {
    super(format(kind, message), cause);
    this.kind = kind;
  }

  /** The failure class. Never null. */
  public Kind kind() {
    return kind;
  }

  private static String format(Kind kind, String message) {
    Kind k = kind == null ? Kind.INTERNAL : kind;
    return k.name() + ": " + (message == null ? "(no message)" : message);
  }

  private static String annotateUnknown(String kind, String message) {
    Kind mapped = Kind.fromName(kind);
    if (mapped == Kind.INTERNAL && !"INTERNAL".equalsIgnoreCase(String.valueOf(kind).trim())) {
      return "(unknown native kind '" + kind + "') " + message;
    }
    return message;
  }
}
