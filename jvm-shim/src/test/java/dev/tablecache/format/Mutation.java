package dev.tablecache.format;

import dev.tablecache.TableCacheException.Kind;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;

/**
 * One damaged frame: its family, a description precise enough to rebuild it by hand, the bytes,
 * and what decoding it may do for a given projection (null = all columns). Classes, not records
 * here and below: the Spark 3.5 line's tests compile at release 8, to run on Java 8.
 */
final class Mutation {

  private final Family family;
  private final String what;
  private final byte[] bytes;
  private final Function<int[], Expect> expect;

  Mutation(Family family, String what, byte[] bytes, Function<int[], Expect> expect) {
    this.family = family;
    this.what = what;
    this.bytes = bytes;
    this.expect = expect;
  }

  Family family() {
    return family;
  }

  String what() {
    return what;
  }

  byte[] bytes() {
    return bytes;
  }

  Function<int[], Expect> expect() {
    return expect;
  }

  /** Mutation families, as the summary reports them. */
  enum Family {
    BIT_FLIP("bit flip"),
    BYTE_SWAP("byte swap"),
    TRUNCATION("truncation"),
    VERSION("version/flags byte"),
    INFLATED("inflated field, checksums valid or none"),
    INFLATED_STALE("inflated field, stale checksum"),
    SCHEMA_SWAP("schema swap, checksums valid or none"),
    SCHEMA_SWAP_STALE("schema swap, stale checksum");

    final String label;

    Family(String label) {
      this.label = label;
    }
  }

  /** What a successful decode must look like. */
  enum Decode {
    /** Decoding must fail. */
    NEVER,
    /** It may succeed only with exactly the unmutated frame's decode. */
    EQUAL,
    /** It may succeed with any structurally valid batch (no checksum guards these bytes). */
    VALID,
    /** It may succeed only as a column-less batch of {@link Expect#rows} rows. */
    ROWS
  }

  /** The kinds a failure may have, and what a success must look like. */
  static final class Expect {
    private final Set<Kind> kinds;
    private final Decode decode;
    private final long rows;

    Expect(Set<Kind> kinds, Decode decode, long rows) {
      this.kinds = kinds;
      this.decode = decode;
      this.rows = rows;
    }

    Set<Kind> kinds() {
      return kinds;
    }

    Decode decode() {
      return decode;
    }

    long rows() {
      return rows;
    }

    static Expect fail(Kind first, Kind... rest) {
      return new Expect(EnumSet.of(first, rest), Decode.NEVER, -1);
    }

    static Expect equal() {
      return new Expect(EnumSet.noneOf(Kind.class), Decode.EQUAL, -1);
    }

    static Expect failOrEqual(Kind first, Kind... rest) {
      return new Expect(EnumSet.of(first, rest), Decode.EQUAL, -1);
    }

    static Expect failOrValid(Set<Kind> kinds) {
      return new Expect(EnumSet.copyOf(kinds), Decode.VALID, -1);
    }

    static Expect failOrRows(long rows, Kind first, Kind... rest) {
      return new Expect(EnumSet.of(first, rest), Decode.ROWS, rows);
    }

    @Override
    public String toString() {
      return (decode == Decode.NEVER ? "" : "decode " + decode + (decode == Decode.ROWS ? "(" + rows + ")" : "") + " or ")
          + "one of " + kinds;
    }
  }
}
