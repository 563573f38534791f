package dev.tablecache.format;

import static dev.tablecache.format.FramedLayout.COLUMN_COUNT_AT;
import static dev.tablecache.format.FramedLayout.HEADER;
import static dev.tablecache.format.FramedLayout.ROW_COUNT_AT;
import static dev.tablecache.format.Mutation.Expect.equal;
import static dev.tablecache.format.Mutation.Expect.fail;
import static dev.tablecache.format.Mutation.Expect.failOrEqual;
import static dev.tablecache.format.Mutation.Expect.failOrRows;
import static dev.tablecache.format.Mutation.Expect.failOrValid;
import static dev.tablecache.TableCacheException.Kind.CHECKSUM_MISMATCH;
import static dev.tablecache.TableCacheException.Kind.COLUMN_OUT_OF_RANGE;
import static dev.tablecache.TableCacheException.Kind.CORRUPT_FRAME;
import static dev.tablecache.TableCacheException.Kind.SCHEMA_MISMATCH;
import static dev.tablecache.TableCacheException.Kind.UNSUPPORTED_CODEC;
import static dev.tablecache.TableCacheException.Kind.UNSUPPORTED_TYPE;
import static dev.tablecache.TableCacheException.Kind.UNSUPPORTED_VERSION;

import dev.tablecache.CacheFormat;
import dev.tablecache.format.Mutation.Expect;
import dev.tablecache.format.Mutation.Family;
import dev.tablecache.TableCacheException.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Seeded, reproducible mutations of one golden frame, each with the rule its decode must follow.
 * The rules come from FORMAT.md and the reader's check order (detect, flags, reserved, header,
 * section lengths, meta checksum, directory, schema, stats; payload checksum when a column is
 * decoded): with CRC32C every byte before the payloads is covered by the meta checksum and every
 * payload by its own, so damage there has exactly one possible kind.
 */
final class FrameMutations {

  /**
   * What a legacy stream or a frame without checksums may raise for damaged bytes: nothing guards
   * them, so the damage can turn into any structural error, a different but valid schema (which
   * may disagree with the data, or be one Arrow Java cannot hold), or a valid batch with other
   * values. Never INTERNAL, INVALID_ARGUMENT or NATIVE_UNAVAILABLE.
   */
  static final Set<Kind> UNCHECKED =
      EnumSet.of(
          CORRUPT_FRAME,
          SCHEMA_MISMATCH,
          UNSUPPORTED_CODEC,
          UNSUPPORTED_VERSION,
          CHECKSUM_MISMATCH,
          UNSUPPORTED_TYPE,
          COLUMN_OUT_OF_RANGE);

  private static final long MAX_PAYLOAD = Integer.MAX_VALUE - 64L;

  private final String name;
  private final byte[] frame;
  private final FramedLayout framed; // null for a legacy stream
  private final LegacyLayout legacy; // null for a frame
  private final Map<String, byte[]> donors;
  private final Random rnd;
  private final boolean full;
  private Consumer<Mutation> sink;
  private int emitted;

  /**
   * @param donors schema sections of the other golden frames, by file name
   * @param full whether to mutate every entry/column instead of a sample
   */
  FrameMutations(String name, byte[] frame, Map<String, byte[]> donors, long seed, boolean full) {
    this.name = name;
    this.frame = frame;
    boolean isLegacy = CacheFormat.detect(frame) == CacheFormat.LEGACY;
    this.framed = isLegacy ? null : new FramedLayout(frame);
    this.legacy = isLegacy ? new LegacyLayout(frame) : null;
    this.donors = donors;
    this.rnd = new Random(seed);
    this.full = full;
  }

  /** Emits the deterministic mutations, then random ones up to about {@code budget} in all. */
  int generate(int budget, Consumer<Mutation> out) {
    sink = out;
    emitted = 0;
    truncations();
    versions();
    if (framed != null) {
      framedInflations();
    } else {
      legacyInflations();
    }
    schemaSwaps();
    int random = Math.max(budget - emitted, budget / 4);
    for (int i = 0; i < random; i++) {
      int r = i % 10;
      if (r < 5) {
        flip();
      } else if (r < 8) {
        swap();
      } else {
        truncate(1 + rnd.nextInt(frame.length - 1));
      }
    }
    return emitted;
  }

  private void emit(Family f, String what, byte[] bytes, Function<int[], Expect> expect) {
    emitted++;
    sink.accept(new Mutation(f, what, bytes, expect));
  }

  /** End of the metadata: the directory for a frame, the batch message's metadata for legacy. */
  private int metaEnd() {
    return framed != null ? framed.payloadStart : legacy.batchBodyStart();
  }

  // ---------------------------------------------------------------- truncation

  private void truncations() {
    TreeSet<Integer> cuts = new TreeSet<>();
    if (full) {
      range(cuts, 0, metaEnd());
    } else if (framed != null) {
      range(cuts, 0, HEADER); // every offset of the header and the directory
      range(cuts, framed.dirStart, framed.payloadStart);
      cuts.addAll(Arrays.asList(framed.statsStart - 1, framed.statsStart, framed.statsStart + 1));
    } else {
      range(cuts, 0, 8); // the schema message's prefix, the batch message's prefix + metadata
      range(cuts, legacy.messages.get(1).start(), legacy.batchBodyStart());
    }
    if (legacy != null) {
      range(cuts, legacy.eosAt, frame.length - 1); // inside the end-of-stream marker
    }
    cuts.forEach(this::truncate);
  }

  private static void range(Set<Integer> s, int from, int toInclusive) {
    for (int i = from; i <= toInclusive; i++) {
      s.add(i);
    }
  }

  private void truncate(int n) {
    // Every format detects a cut: a length, offset or the end-of-stream marker runs past the end.
    emit(Family.TRUNCATION, "truncated to " + n + " of " + frame.length + " bytes",
        Arrays.copyOf(frame, n), p -> fail(CORRUPT_FRAME));
  }

  // ---------------------------------------------------------------- bit flips and byte swaps

  private void flip() {
    // A quarter of the flips aim at the metadata, which is small next to the payloads.
    int at = rnd.nextInt(4) == 0 ? rnd.nextInt(metaEnd()) : rnd.nextInt(frame.length);
    int bit = 1 << rnd.nextInt(8);
    byte[] b = frame.clone();
    b[at] ^= (byte) bit;
    emit(Family.BIT_FLIP, String.format("bit flip at byte %d (%s) ^0x%02x", at, region(at), bit), b,
        p -> damaged(p, at));
  }

  private void swap() {
    int i;
    int j;
    do {
      i = rnd.nextInt(frame.length);
      j = rnd.nextInt(frame.length);
    } while (frame[i] == frame[j]);
    byte[] b = frame.clone();
    b[i] = frame[j];
    b[j] = frame[i];
    int x = i;
    int y = j;
    emit(Family.BYTE_SWAP, "swap bytes " + i + " (" + region(i) + ") and " + j + " (" + region(j) + ")",
        b, p -> damaged(p, x, y));
  }

  /** The rule for bytes changed in place at {@code positions}. */
  private Expect damaged(int[] projection, int... positions) {
    if (legacy != null) {
      return failOrValid(UNCHECKED); // no checksum: see UNCHECKED
    }
    int min = Arrays.stream(positions).min().getAsInt();
    int max = Arrays.stream(positions).max().getAsInt();
    if (framed.checksummed) {
      if (min < HEADER) {
        // Magic, version, flags, reserved, a length cut short, or else the meta checksum.
        return fail(CORRUPT_FRAME, CHECKSUM_MISMATCH, UNSUPPORTED_VERSION);
      }
      if (min < framed.payloadStart) {
        return fail(CHECKSUM_MISMATCH); // schema, stats, directory: all under the meta checksum
      }
      return anyDecoded(projection, positions) ? fail(CHECKSUM_MISMATCH) : equal();
    }
    // Without checksums only what is not read at all is certain to decode unchanged.
    if (min >= framed.payloadStart && !anyDecoded(projection, positions)) {
      return equal();
    }
    if (min >= framed.statsStart && max < framed.dirStart) {
      return failOrEqual(CORRUPT_FRAME); // stats never change decoded values
    }
    return failOrValid(UNCHECKED);
  }

  private boolean anyDecoded(int[] projection, int... positions) {
    for (int pos : positions) {
      FramedLayout.Entry e = framed.entryAt(pos);
      if (e != null && decoded(e.index(), projection)) {
        return true;
      }
    }
    return false;
  }

  /** Whether decoding with {@code projection} reads payload {@code entry}: V2 always reads all. */
  private boolean decoded(int entry, int[] projection) {
    if (framed.version == 2 || projection == null) {
      return true;
    }
    return Arrays.stream(projection).anyMatch(c -> c == entry);
  }

  private String region(int pos) {
    if (legacy != null) {
      for (int m = 0; m < legacy.messages.size(); m++) {
        LegacyLayout.Msg msg = legacy.messages.get(m);
        if (pos < msg.bodyStart()) {
          return "message " + m + (pos < msg.metaStart() ? " prefix" : " metadata");
        }
        if (pos < msg.end()) {
          return "message " + m + " body";
        }
      }
      return "end-of-stream";
    }
    if (pos < HEADER) {
      return "header";
    } else if (pos < framed.statsStart) {
      return "schema";
    } else if (pos < framed.dirStart) {
      return "stats";
    } else if (pos < framed.payloadStart) {
      return "directory entry " + (pos - framed.dirStart) / framed.entryLen;
    }
    return "payload " + framed.entryAt(pos).index();
  }

  // ---------------------------------------------------------------- version and flags

  private void versions() {
    if (legacy != null) {
      // An IPC stream's version is Message.version (V5 = 4) in each message's flatbuffer.
      for (LegacyLayout.Field f : legacy.versions) {
        for (int v : new int[] {0, 1, 2, 3, 5, 0x7FFF, -1}) {
          byte[] b = frame.clone();
          b[f.at()] = (byte) v;
          b[f.at() + 1] = (byte) (v >> 8);
          emit(Family.VERSION, f.name() + " = " + v, b, p -> failOrValid(UNCHECKED));
        }
      }
      return;
    }
    for (int v = 0; v < 256; v++) {
      if (v < 2 || v > 4) { // 2, 3 and 4 are known: relabels() below
        emit(Family.VERSION, "version byte = " + v, TestFrames.putU8(frame, 4, v),
            p -> fail(UNSUPPORTED_VERSION));
      }
    }
    int flags = frame[5] & 0xFF;
    for (int bit = 4; bit < 8; bit++) {
      emit(Family.VERSION, "reserved flag bit " + bit + " set", TestFrames.putU8(frame, 5, flags | 1 << bit),
          p -> fail(UNSUPPORTED_VERSION));
    }
    // ENCODED (bit 3) is known, so a toggle is not a version problem: it contradicts the
    // directory's encodings, which only the meta checksum or the directory check can see.
    byte[] toggled = TestFrames.putU8(frame, 5, flags ^ FrameParser.FLAG_ENCODED);
    String toggle = "ENCODED flag " + ((flags & FrameParser.FLAG_ENCODED) != 0 ? "cleared" : "set");
    if (framed.checksummed) {
      emit(Family.VERSION, toggle + " (stale checksum)", toggled, p -> fail(CHECKSUM_MISMATCH));
    }
    emit(Family.VERSION, toggle + (framed.checksummed ? " (resealed)" : ""), framed.reseal(toggled, -1),
        p -> fail(CORRUPT_FRAME));
    for (int kind = 2; kind < 4; kind++) {
      emit(Family.VERSION, "checksum kind " + kind, TestFrames.putU8(frame, 5, flags & ~6 | kind << 1),
          p -> fail(UNSUPPORTED_VERSION));
    }
    relabels();
  }

  /** The frame under each other known version byte. */
  private void relabels() {
    for (int other = 2; other <= 4; other++) {
      if (other == framed.version) {
        continue;
      }
      byte[] swapped = TestFrames.putU8(frame, 4, other);
      if (framed.checksummed) {
        emit(Family.VERSION, "version byte = " + other + " (stale checksum)", swapped,
            p -> fail(CHECKSUM_MISMATCH, CORRUPT_FRAME));
      }
      // V2 against V3/V4: the directory is read with the wrong entry count; V3 against V4: with
      // the wrong entry length (a V4 entry states its decoded length). Only a frame without
      // columns has the same metadata under another per-column version.
      boolean sameMetadata = framed.perColumn() && other != 2 && framed.columnCount == 0;
      Function<int[], Expect> rule =
          sameMetadata
              ? p -> p != null && p.length == 0
                  ? failOrRows(framed.rowCount, CORRUPT_FRAME)
                  : failOrEqual(CORRUPT_FRAME, SCHEMA_MISMATCH, UNSUPPORTED_CODEC)
              : p -> fail(CORRUPT_FRAME, SCHEMA_MISMATCH, UNSUPPORTED_CODEC, CHECKSUM_MISMATCH);
      emit(Family.VERSION, "version byte = " + other + (framed.checksummed ? " (resealed)" : ""),
          framed.reseal(swapped, -1), rule);
    }
  }

  // ---------------------------------------------------------------- inflated fields: frames

  private long[] inflations(long v) {
    long[] candidates = {
      v + 1, v + 8, v + 4096, frame.length, MAX_PAYLOAD, MAX_PAYLOAD + 1, 0x7FFF_FFFFL, 0x8000_0000L,
      0xFFFF_FFFFL
    };
    return Arrays.stream(candidates).map(x -> x & 0xFFFF_FFFFL).filter(x -> x != v).distinct().toArray();
  }

  private void framedInflations() {
    String[] header = {"row_count", "column_count", "schema_len", "stats_len"};
    for (int k = 0; k < header.length; k++) {
      int at = ROW_COUNT_AT + 4 * k;
      inflate("header." + header[k], at, -1,
          value -> p -> headerRule(at, value, p),
          at == ROW_COUNT_AT ? p -> fail(CHECKSUM_MISMATCH) : p -> fail(CHECKSUM_MISMATCH, CORRUPT_FRAME));
    }
    for (FramedLayout.Entry e : sample(framed.entries)) {
      String d = "dir[" + e.index() + "].";
      inflate(d + "offset", e.at(), -1, value -> p -> fail(CORRUPT_FRAME), p -> fail(CHECKSUM_MISMATCH));
      inflate(d + "stored_len", e.at() + 4, -1, value -> p -> fail(CORRUPT_FRAME), p -> fail(CHECKSUM_MISMATCH));
      inflate(d + "raw_len", e.at() + 8, -1, value -> p -> rawLenRule(e, value, p), p -> fail(CHECKSUM_MISMATCH));
      if (framed.version == 4) {
        // Unaligned, refused by the parsers; aligned, by the reader of that column only (its
        // buffers no longer add up to it, or it is over the decode budget).
        inflate(d + "decoded_len", e.at() + 20, -1,
            value -> p -> value % 8 != 0 || decoded(e.index(), p) ? fail(CORRUPT_FRAME) : equal(),
            p -> fail(CHECKSUM_MISMATCH));
      }
    }
    for (FramedLayout.Field32 f : sample(framed.statsFields)) {
      // Stats never change decoded values; only counts they can be checked against are rejected.
      Function<Long, Function<int[], Expect>> rule =
          f.name().endsWith("null_count")
              ? value -> p -> failOrEqual(CORRUPT_FRAME)
              : value -> p -> fail(CORRUPT_FRAME);
      inflate(f.name(), f.at(), -1, rule, p -> fail(CHECKSUM_MISMATCH));
    }
    for (FramedLayout.Field32 f : sample(framed.bodyFields)) {
      int entry = f.entry();
      // A buffer length grown inside its 8-byte padding still covers the same values, so a
      // decode equal to the original is acceptable; anything else must be rejected.
      inflate("payload " + entry + " " + f.name(), f.at(), entry,
          value -> p -> decoded(entry, p) ? failOrEqual(CORRUPT_FRAME, SCHEMA_MISMATCH) : equal(),
          p -> decoded(entry, p) ? fail(CHECKSUM_MISMATCH) : equal());
    }
  }

  /**
   * Writes each inflated value at {@code at}: once with checksums resealed (or as is without
   * checksums) under {@code resealed}, once with the stale checksum under {@code stale}.
   */
  private void inflate(
      String field,
      int at,
      int payloadEntry,
      Function<Long, Function<int[], Expect>> resealed,
      Function<int[], Expect> stale) {
    long v = LittleEndian.u32(frame, at);
    for (long value : inflations(v)) {
      byte[] b = TestFrames.putU32(frame, at, value);
      String what = field + " " + v + " -> " + value;
      if (framed.checksummed) {
        emit(Family.INFLATED_STALE, what + " (stale checksum)", b, stale);
        emit(Family.INFLATED, what + " (resealed)", framed.reseal(b, payloadEntry), resealed.apply(value));
      } else {
        emit(Family.INFLATED, what, b, resealed.apply(value));
      }
    }
  }

  private Expect headerRule(int at, long value, int[] p) {
    if (at == ROW_COUNT_AT) {
      if (framed.hasStats || value > Integer.MAX_VALUE) {
        // Each stats entry repeats the row count; above i32::MAX the header alone is corrupt.
        return fail(CORRUPT_FRAME);
      }
      if (framed.perColumn() && p != null && p.length == 0) {
        // Nothing is decoded, so nothing contradicts the (validly sealed) header: the documented
        // "empty projection = row count only" answer.
        return failOrRows(value, CORRUPT_FRAME, SCHEMA_MISMATCH);
      }
      return fail(SCHEMA_MISMATCH); // a decoded column has the old length
    }
    if (at == COLUMN_COUNT_AT) {
      if (framed.version == 2) {
        // V2's directory does not depend on it. The stats section, read before the schema
        // (FORMAT.md section 4), holds one entry per column and disagrees first; without stats
        // the schema disagrees.
        return framed.hasStats ? fail(CORRUPT_FRAME) : fail(SCHEMA_MISMATCH);
      }
      return fail(CORRUPT_FRAME, UNSUPPORTED_CODEC, SCHEMA_MISMATCH);
    }
    // schema_len, stats_len: every later section shifts and the directory reads other bytes.
    return fail(CORRUPT_FRAME, UNSUPPORTED_CODEC, SCHEMA_MISMATCH, CHECKSUM_MISMATCH);
  }

  /** raw_len is checked against stored_len at parse time, and against the codec's output when read. */
  private Expect rawLenRule(FramedLayout.Entry e, long raw, int[] p) {
    boolean plausible;
    switch (e.codec()) {
      case 0:
        plausible = raw == e.stored();
        break;
      case 1:
        plausible = raw <= 255 * e.stored() + 16;
        break;
      default:
        plausible = raw <= 32768 * e.stored() + 1024;
    }
    if (raw > MAX_PAYLOAD || !plausible || decoded(e.index(), p)) {
      return fail(CORRUPT_FRAME);
    }
    return equal();
  }

  private <T> List<T> sample(List<T> all) {
    if (full || all.size() <= 4) {
      return all;
    }
    List<T> out = new ArrayList<>(Arrays.asList(all.get(0), all.get(all.size() - 1)));
    for (int i = 0; i < 2; i++) {
      out.add(all.get(1 + rnd.nextInt(all.size() - 2)));
    }
    return out;
  }

  // ---------------------------------------------------------------- inflated fields: legacy

  private long[] inflations64(long v) {
    long[] candidates = {
      v + 1, v + 8, v + 4096, frame.length, Integer.MAX_VALUE, 1L << 31, 1L << 32, 1L << 62, Long.MAX_VALUE, -1
    };
    return Arrays.stream(candidates).filter(x -> x != v).distinct().toArray();
  }

  private void legacyInflations() {
    for (LegacyLayout.Field f : legacy.lengthPrefixes) {
      // The reader walks every message's length before decoding anything: a cut is certain.
      long v = LittleEndian.u32(frame, f.at());
      for (long value : inflations(v)) {
        emit(Family.INFLATED, f.name() + " " + v + " -> " + value, TestFrames.putU32(frame, f.at(), value),
            p -> fail(CORRUPT_FRAME));
      }
    }
    for (LegacyLayout.Field f : legacy.bodyLengths) {
      // A longer body swallows the next message or the end-of-stream marker.
      inflate64(f, p -> fail(CORRUPT_FRAME));
    }
    for (LegacyLayout.Field f : sample(legacy.batchFields)) {
      inflate64(f, p -> failOrValid(UNCHECKED)); // no checksum: see UNCHECKED
    }
  }

  private void inflate64(LegacyLayout.Field f, Function<int[], Expect> rule) {
    long v = LittleEndian.i64(frame, f.at());
    for (long value : inflations64(v)) {
      byte[] b = frame.clone();
      for (int i = 0; i < 8; i++) {
        b[f.at() + i] = (byte) (value >>> (8 * i));
      }
      emit(Family.INFLATED, f.name() + " " + v + " -> " + value, b, rule);
    }
  }

  // ---------------------------------------------------------------- schema swap

  private void schemaSwaps() {
    byte[] own = framed != null ? framed.schemaSection() : legacy.schemaSection();
    List<byte[]> seen = new ArrayList<>();
    for (Map.Entry<String, byte[]> d : donors.entrySet()) {
      byte[] donor = d.getValue();
      if (d.getKey().equals(name) || Arrays.equals(donor, own) || seen.stream().anyMatch(s -> Arrays.equals(s, donor))) {
        continue; // the same bytes would not be a mutation
      }
      seen.add(donor);
      String what = "schema section of " + d.getKey();
      if (legacy != null) {
        byte[] b = TestFrames.concat(donor, Arrays.copyOfRange(frame, own.length, frame.length));
        emit(Family.SCHEMA_SWAP, what, b, p -> failOrValid(UNCHECKED));
        continue;
      }
      byte[] b = TestFrames.concat(
          Arrays.copyOf(frame, HEADER), donor, Arrays.copyOfRange(frame, framed.statsStart, frame.length));
      b = TestFrames.putU32(b, FramedLayout.SCHEMA_LEN_AT, donor.length);
      int donorFields = SchemaCodec.decode(donor, 0, donor.length).getFields().size();
      // A schema of another field count fails the header's column count; one of the same count
      // (validly sealed) relabels the same payloads: the reader cannot tell, so any valid batch or
      // a mismatch/corrupt error is acceptable.
      Function<int[], Expect> rule =
          donorFields != framed.columnCount
              ? p -> fail(SCHEMA_MISMATCH)
              : p -> failOrValid(EnumSet.of(SCHEMA_MISMATCH, CORRUPT_FRAME, UNSUPPORTED_TYPE));
      if (framed.checksummed) {
        emit(Family.SCHEMA_SWAP_STALE, what + " (stale checksum)", b, p -> fail(CHECKSUM_MISMATCH));
        emit(Family.SCHEMA_SWAP, what + " (resealed)", framed.reseal(b, -1), rule);
      } else {
        emit(Family.SCHEMA_SWAP, what, b, rule);
      }
    }
  }
}
