package dev.tablecache;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tablecache.format.BoundKind;
import dev.tablecache.format.ColumnStats;
import dev.tablecache.format.DirectoryEntry;
import dev.tablecache.format.FrameParser;
import dev.tablecache.format.ParsedFrame;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Cross-language parity on golden/: every NAME.bin against NAME.json (golden/README.md). The
 * pure-Java parser must match the manifest field by field; JNI decoding must give the manifest's
 * values; and writing the decoded batch again through JNI then parsing it in Java must give the
 * same stats and values.
 */
public class GoldenParityTest extends NativeTestBase {

  private static final ObjectMapper JSON = new ObjectMapper();

  public static Path goldenDir() {
    String dir = System.getProperty("tablecache.golden.dir");
    assertNotNull(dir, "set -Dtablecache.golden.dir (the pom passes ../golden)");
    return Paths.get(dir);
  }

  public static List<Path> goldenFiles() throws IOException {
    try (Stream<Path> s = Files.list(goldenDir())) {
      return s.filter(p -> p.toString().endsWith(".bin")).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void goldenFilesExist() throws IOException {
    List<Path> files = goldenFiles();
    assertFalse(files.isEmpty(), "no golden/*.bin files in " + goldenDir());
    for (Path bin : files) {
      assertTrue(Files.exists(manifestOf(bin)), "missing manifest for " + bin);
    }
    List<String> formats = new ArrayList<>();
    for (Path bin : files) {
      formats.add(JSON.readTree(manifestOf(bin).toFile()).get("format").asText());
    }
    for (String f : Arrays.asList("V4", "V3", "V2", "LEGACY")) {
      assertTrue(formats.contains(f), "no golden frame of format " + f + ": " + formats);
    }
  }

  static Path manifestOf(Path bin) {
    String name = bin.getFileName().toString();
    return bin.resolveSibling(name.substring(0, name.length() - 4) + ".json");
  }

  @TestFactory
  Stream<DynamicNode> golden() throws IOException {
    return goldenFiles().stream()
        .map(
            bin ->
                DynamicContainer.dynamicContainer(
                    bin.getFileName().toString(),
                    Stream.of(
                        DynamicTest.dynamicTest("parse", () -> checkParse(bin)),
                        DynamicTest.dynamicTest("decode", () -> checkDecode(bin)),
                        DynamicTest.dynamicTest("rewrite", () -> checkRewrite(bin)))));
  }

  private static JsonNode manifest(Path bin) throws IOException {
    return JSON.readTree(manifestOf(bin).toFile());
  }

  // ------------------------------------------------------------------ parse

  private void checkParse(Path bin) throws IOException {
    byte[] bytes = Files.readAllBytes(bin);
    JsonNode m = manifest(bin);
    ParsedFrame p = FrameParser.parse(bytes).validate();
    p.verifyPayloadChecksums();
    assertEquals(CacheFormat.valueOf(m.get("format").asText()), p.format());
    assertEquals(m.get("row_count").asLong(), p.rowCount(), "row_count");
    assertEquals(m.get("column_count").asLong(), p.columnCount(), "column_count");
    JsonNode h = m.get("header");
    if (p.format() == CacheFormat.LEGACY) {
      assertTrue(h == null || h.isNull(), "legacy has no header");
      assertFalse(p.hasStats());
    } else {
      assertEquals(h.get("version").asInt(), p.version(), "version");
      assertEquals(h.get("flags").asInt(), p.flags(), "flags");
      assertEquals(h.get("stats_present").asBoolean(), p.statsPresent(), "stats_present");
      assertEquals(h.get("checksum_kind").asInt(), p.checksumKind(), "checksum_kind");
      assertEquals(h.get("schema_len").asLong(), p.schemaLength(), "schema_len");
      assertEquals(h.get("stats_len").asLong(), p.statsLength(), "stats_len");
      assertEquals(h.get("meta_checksum").asLong(), p.metaChecksum(), "meta_checksum");
    }
    JsonNode dir = m.get("directory");
    List<DirectoryEntry> entries = p.directory();
    int expectedEntries = dir == null || dir.isNull() ? 0 : dir.size();
    assertEquals(expectedEntries, entries.size(), "directory size");
    for (int i = 0; i < entries.size(); i++) {
      JsonNode e = dir.get(i);
      DirectoryEntry d = entries.get(i);
      String at = "directory[" + i + "].";
      assertEquals(e.get("offset").asLong(), d.offset(), at + "offset");
      assertEquals(e.get("stored_len").asLong(), d.storedLen(), at + "stored_len");
      assertEquals(e.get("raw_len").asLong(), d.rawLen(), at + "raw_len");
      // Only V4 entries state a decoded length; V2/V3 manifests keep their bytes.
      JsonNode decoded = e.get("decoded_len");
      assertEquals(
          decoded == null ? d.rawLen() : decoded.asLong(), d.decodedLen(), at + "decoded_len");
      assertEquals(e.get("checksum").asLong(), d.checksum(), at + "checksum");
      assertEquals(e.get("codec").asInt(), d.codecId(), at + "codec");
      assertNotNull(e.get("encoding"), at + "encoding missing from the manifest (regenerate golden/)");
      assertEquals(e.get("encoding").asInt(), d.encodingId(), at + "encoding");
    }
    JsonNode stats = m.get("stats");
    if (stats == null || stats.isNull()) {
      assertFalse(p.hasStats(), "stats");
    } else {
      assertTrue(p.hasStats(), "stats");
      assertStats(stats, p.stats(), "");
    }
    JsonNode fields = m.get("fields");
    List<Field> actual = p.schema().getFields();
    assertEquals(fields.size(), actual.size(), "fields");
    for (int i = 0; i < actual.size(); i++) {
      assertEquals(fields.get(i).get("name").asText(), actual.get(i).getName(), "fields[" + i + "].name");
      assertEquals(fields.get(i).get("nullable").asBoolean(), actual.get(i).isNullable(), "fields[" + i + "].nullable");
    }
  }

  static void assertStats(JsonNode expected, List<ColumnStats> actual, String context) {
    assertEquals(expected.size(), actual.size(), context + "stats size");
    for (int i = 0; i < actual.size(); i++) {
      JsonNode e = expected.get(i);
      ColumnStats s = actual.get(i);
      String at = context + "stats[" + i + "].";
      assertEquals(e.get("null_count").asLong(), s.nullCount(), at + "null_count");
      assertEquals(e.get("row_count").asLong(), s.rowCount(), at + "row_count");
      assertEquals(e.get("size_in_bytes").asLong(), s.sizeInBytes(), at + "size_in_bytes");
      assertEquals(e.get("unsupported").asBoolean(), s.unsupported(), at + "unsupported");
      assertEquals(e.get("has_nan").asBoolean(), s.hasNaN(), at + "has_nan");
      assertEquals(e.get("bound_kind").asInt(), s.boundKind().id(), at + "bound_kind");
      assertBound(e.get("lower"), s.hasLower(), s.lower(), s.boundKind(), at + "lower");
      assertBound(e.get("upper"), s.hasUpper(), s.upper(), s.boundKind(), at + "upper");
    }
  }

  private static void assertBound(JsonNode e, boolean present, Object actual, BoundKind kind, String at) {
    boolean expectedPresent = e != null && !e.isMissingNode();
    assertEquals(expectedPresent, present, at + " presence");
    if (!present) {
      assertNull(actual, at);
      return;
    }
    switch (kind) {
      case BOOL:
        assertEquals(e.asBoolean(), actual, at);
        break;
      case INT:
        assertTrue(e.isIntegralNumber(), at + " is a number");
        assertEquals(e.longValue(), actual, at);
        break;
      case FLOAT: {
        double want = Double.parseDouble(e.asText());
        double got = (Double) actual;
        if (Double.isNaN(want)) {
          assertTrue(Double.isNaN(got), at);
        } else {
          assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(got), at + " " + want + " vs " + got);
        }
        break;
      }
      case UTF8:
        assertArrayEquals(e.asText().getBytes(StandardCharsets.UTF_8), (byte[]) actual, at);
        break;
      case DECIMAL128:
        assertEquals(new BigInteger(e.asText()), actual, at);
        break;
      default:
        fail(at + ": bound of kind NONE");
    }
  }

  // ------------------------------------------------------------------ decode

  private void checkDecode(Path bin) throws IOException {
    byte[] bytes = Files.readAllBytes(bin);
    JsonNode m = manifest(bin);
    try (VectorSchemaRoot root = TableCache.deserialize(bytes, null, allocator)) {
      assertValues(m, root, null);
    }
    int n = (int) m.get("column_count").asLong();
    int[] reversed = new int[n];
    for (int i = 0; i < n; i++) {
      reversed[i] = n - 1 - i;
    }
    try (VectorSchemaRoot root = TableCache.deserialize(bytes, reversed, allocator)) {
      assertValues(m, root, reversed);
    }
  }

  static void assertValues(JsonNode m, VectorSchemaRoot root, int[] projection) {
    assertEquals(m.get("row_count").asLong(), root.getRowCount(), "row count");
    JsonNode columns = m.get("columns");
    int count = projection == null ? columns.size() : projection.length;
    assertEquals(count, root.getFieldVectors().size(), "decoded columns");
    for (int k = 0; k < count; k++) {
      JsonNode col = columns.get(projection == null ? k : projection[k]);
      Field field = root.getSchema().getFields().get(k);
      assertEquals(col.get("name").asText(), field.getName(), "column " + k + " name");
      assertEquals(
          Canonical.normalizeColumn(field, col.get("values")),
          Canonical.column(root.getVector(k)),
          "values of column '" + field.getName() + "'");
    }
  }

  // ------------------------------------------------------------------ rewrite

  /** The string-bound limit scripts/regen-golden.sh writes with (golden/INDEX.md). */
  static final int GOLDEN_STRING_LIMIT = 16;

  private void checkRewrite(Path bin) throws IOException {
    byte[] bytes = Files.readAllBytes(bin);
    JsonNode m = manifest(bin);
    ParsedFrame golden = FrameParser.parse(bytes);
    CacheFormat format = golden.format();
    // Legacy is rewritten as V3 so the Java parser has stats to read back; V2 always has stats
    // when written from Java.
    boolean stats = format == CacheFormat.V2 || format == CacheFormat.LEGACY || golden.hasStats();
    WriteOptions o =
        WriteOptions.builder()
            .preferredFormat(format == CacheFormat.LEGACY ? CacheFormat.V3 : format)
            .stats(stats)
            .codec(uniformCodec(golden))
            .encoding(encodingOf(golden))
            .stringBoundLimit(GOLDEN_STRING_LIMIT)
            .build();
    if (format == CacheFormat.V4) {
      // V4 states its encodings in the bodies, and its raw fallback is per entry, so neither can
      // be read back from the directory: the manifest's write options say them.
      JsonNode w = m.get("write_options");
      assertEquals("V4", w.get("format").asText(), "write_options.format");
      o =
          o.toBuilder()
              .codec(Codec.parse(w.get("codec").asText()))
              .encodingPolicy(EncodingPolicy.parse(w.get("encoding").asText()))
              .build();
    }
    byte[] rewritten;
    try (VectorSchemaRoot root = TableCache.deserialize(bytes, null, allocator)) {
      rewritten = TableCache.serialize(root, o);
    }
    ParsedFrame p = FrameParser.parse(rewritten).validate();
    p.verifyPayloadChecksums();
    assertEquals(o.preferredFormat(), p.format());
    assertEquals(golden.rowCount(), p.rowCount());
    assertEquals(golden.schema(), p.schema(), "schema after a Java round trip");
    if (golden.hasStats()) {
      assertStats(m.get("stats"), p.stats(), "rewritten ");
    }
    boolean reproducible =
        format != CacheFormat.LEGACY
            && stats == golden.hasStats()
            && golden.checksumKind() == ParsedFrame.CHECKSUM_CRC32C;
    if (reproducible) {
      // Same batch, same options, deterministic writer: the frame must come back byte for byte,
      // which pins the Java export path (VectorUnloader addresses) to the Rust one.
      assertArrayEquals(bytes, rewritten, "rewritten frame differs from the golden bytes");
      if (o.encodingPolicy().pinnedEncoding() == Encoding.BYTE_STREAM_SPLIT) {
        // Auto, the default, chooses what the split golden files pin, through JNI as in Rust.
        WriteOptions auto = o.toBuilder().encodingPolicy(EncodingPolicy.AUTO).build();
        try (VectorSchemaRoot root = TableCache.deserialize(bytes, null, allocator)) {
          assertArrayEquals(bytes, TableCache.serialize(root, auto), "auto on " + bin);
        }
      }
    }
    try (VectorSchemaRoot again = TableCache.deserialize(rewritten, null, allocator)) {
      assertValues(m, again, null);
    }
  }

  private static Codec uniformCodec(ParsedFrame p) {
    Integer id = null;
    for (DirectoryEntry e : p.directory()) {
      if (id != null && id != e.codecId()) {
        return Codec.AUTO;
      }
      id = e.codecId();
    }
    return id == null ? Codec.LZ4 : Codec.fromId(id);
  }

  /**
   * The write option that reproduces the golden's encodings: split when any payload is split. The
   * writer leaves payloads plain when they are stored uncompressed or hold nothing fixed-width.
   */
  private static Encoding encodingOf(ParsedFrame p) {
    boolean split =
        p.directory().stream()
            .anyMatch(e -> e.encodingId() == Encoding.BYTE_STREAM_SPLIT.id());
    return split ? Encoding.BYTE_STREAM_SPLIT : Encoding.PLAIN;
  }
}
