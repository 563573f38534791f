package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tablecache.TableCacheException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The corpus's schema and legacy cases (golden/reject/) through the pure-Java parser in a 64 MB
 * heap (the pom's {@code small-heap} execution): each must be a {@link TableCacheException} of
 * the manifest's kind, never an OutOfMemoryError or StackOverflowError.
 */
@Tag("small-heap")
class SchemaBombSmallHeapTest {

  private static final long SMALL_HEAP = 80L << 20; // -Xmx64m, with the JVM's rounding

  private static Path rejectDir() {
    String dir = System.getProperty("tablecache.golden.dir");
    assertNotNull(dir, "set -Dtablecache.golden.dir (the pom passes ../golden)");
    return Paths.get(dir, "reject");
  }

  /** Manifest lines {file, kind, section, what} whose section the Java parser replays here. */
  private static List<String[]> schemaAndLegacyCases() throws IOException {
    List<String> lines = Files.readAllLines(rejectDir().resolve("manifest.tsv"));
    assertEquals("file\tkind\tsection\twhat", lines.get(0));
    List<String[]> out = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] cols = line.split("\t", -1);
      assertEquals(4, cols.length, line);
      if (cols[2].equals("schema") || cols[2].equals("legacy")) {
        out.add(cols);
      }
    }
    return out;
  }

  @Test
  void theHeapIsSmall() {
    long max = Runtime.getRuntime().maxMemory();
    assertTrue(max <= SMALL_HEAP, "this test must run with -Xmx64m, max heap is " + max);
  }

  @Test
  void theCorpusHasTheSchemaBombs() throws IOException {
    List<String> names =
        schemaAndLegacyCases().stream().map(c -> c[0]).collect(Collectors.toList());
    for (String expected :
        new String[] {
          "schema_dag_40_pow_8.bin",
          "schema_deep_chain_20000.bin",
          "legacy_decimal_mutated_to_union.bin"
        }) {
      assertTrue(names.contains(expected), expected + " in " + names);
    }
  }

  @TestFactory
  Stream<DynamicTest> everySchemaAndLegacyCaseIsRejectedWithItsKind() throws IOException {
    return schemaAndLegacyCases().stream()
        .map(c -> DynamicTest.dynamicTest(c[0], () -> replay(c[0], c[1])));
  }

  private static void replay(String file, String kind) throws IOException {
    byte[] bytes = Files.readAllBytes(rejectDir().resolve(file));
    try {
      ParsedFrame frame = FrameParser.parse(bytes);
      frame.schema();
      frame.validate();
      fail(file + ": the pure-Java parser accepted it");
    } catch (TableCacheException e) {
      assertEquals(kind, e.kind().name(), file + ": " + e.getMessage());
    }
    // Errors (OutOfMemoryError, StackOverflowError) propagate and fail the test.
  }

  @Test
  void goldenFramesStillParseInTheSmallHeap() throws IOException {
    List<Path> frames;
    try (Stream<Path> s = Files.list(rejectDir().getParent())) {
      frames =
          s.filter(p -> p.toString().endsWith(".bin")).sorted().collect(Collectors.toList());
    }
    assertFalse(frames.isEmpty());
    for (Path p : frames) {
      FrameParser.parse(Files.readAllBytes(p)).validate();
    }
  }

  /** A struct chain {@code depth} fields deep (the top-level field is depth 1) over an int. */
  private static byte[] chain(int depth) throws IOException {
    Field field = new Field("leaf", FieldType.nullable(new ArrowType.Int(32, true)), null);
    for (int i = 1; i < depth; i++) {
      field =
          new Field("c", FieldType.nullable(ArrowType.Struct.INSTANCE), Collections.singletonList(field));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    MessageSerializer.serialize(
        new WriteChannel(Channels.newChannel(out)), new Schema(Collections.singletonList(field)));
    return out.toByteArray();
  }

  @Test
  void aChainAtTheDepthLimitPassesAndOneDeeperFailsNamingThePath() throws IOException {
    byte[] at = chain(SchemaBounds.MAX_DEPTH);
    SchemaBounds.check(at, 0, at.length);
    byte[] past = chain(SchemaBounds.MAX_DEPTH + 1);
    try {
      SchemaBounds.check(past, 0, past.length);
      fail("a chain one deeper than the limit passed");
    } catch (TableCacheException e) {
      assertEquals(TableCacheException.Kind.CORRUPT_FRAME, e.kind());
      assertTrue(
          e.getMessage().contains("schema: nesting deeper than 60 at c.c.c."), e.getMessage());
    }
  }

  @Test
  void aNameOverTheLimitIsRejected() throws IOException {
    char[] name = new char[SchemaBounds.MAX_NAME_BYTES + 1];
    java.util.Arrays.fill(name, 'n');
    Field f = new Field(new String(name), FieldType.nullable(new ArrowType.Int(32, true)), null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    MessageSerializer.serialize(
        new WriteChannel(Channels.newChannel(out)), new Schema(Collections.singletonList(f)));
    byte[] b = out.toByteArray();
    try {
      SchemaBounds.check(b, 0, b.length);
      fail("a long name passed");
    } catch (TableCacheException e) {
      assertTrue(e.getMessage().contains("longer than 65536"), e.getMessage());
    }
  }
}
