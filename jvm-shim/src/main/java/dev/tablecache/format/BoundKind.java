package dev.tablecache.format;

/** How a column's stats bounds are encoded (FORMAT.md section 4). */
public enum BoundKind {
  /** No bound present. */
  NONE(0),
  /** Boolean: one byte, 0 or 1. */
  BOOL(1),
  /** Int8..Int64, Date32 days, Timestamp raw value: i64. */
  INT(2),
  /** Float32/Float64: f64 bits. */
  FLOAT(3),
  /** Utf8/LargeUtf8: u32 length + UTF-8 bytes. */
  UTF8(4),
  /** Decimal128: i128 unscaled value. */
  DECIMAL128(5);

  private final int id;

  BoundKind(int id) {
    this.id = id;
  }

  /** The byte stored in the stats section. */
  public int id() {
    return id;
  }

  /** The kind with this id, or null when the id is unknown. */
  public static BoundKind fromId(int id) {
    for (BoundKind k : values()) {
      if (k.id == id) {
        return k;
      }
    }
    return null;
  }
}
