package dev.tablecache.format;

import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.GoldenParityTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tablecache.TableCacheException.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays the shared rejection corpus ({@code golden/reject/}, README there) through the Java
 * side: a {@code header}, {@code schema}, {@code stats}, {@code directory} or {@code legacy} case
 * must make the pure-Java parser ({@link FrameParser#parse} plus {@link ParsedFrame#validate()})
 * throw exactly the manifest's kind; a {@code payload} case must pass those metadata checks and
 * make the JNI decode ({@link TableCache#deserialize}, all columns) throw exactly that kind.
 * Schema bombs are replayed too: they are small inputs that must fail cheaply.
 */
class RejectCorpusTest extends NativeTestBase {

  /** One manifest line. */
  static final class Case {
    private final String file;
    private final Kind kind;
    private final String section;
    private final String what;

    Case(String file, Kind kind, String section, String what) {
      this.file = file;
      this.kind = kind;
      this.section = section;
      this.what = what;
    }

    String file() {
      return file;
    }

    Kind kind() {
      return kind;
    }

    String section() {
      return section;
    }

    String what() {
      return what;
    }
  }

  static Path rejectDir() {
    return GoldenParityTest.goldenDir().resolve("reject");
  }

  static List<Case> manifest() throws IOException {
    List<String> lines = Files.readAllLines(rejectDir().resolve("manifest.tsv"), StandardCharsets.UTF_8);
    assertEquals("file\tkind\tsection\twhat", lines.get(0), "manifest header");
    List<Case> out = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split("\t", -1);
      assertEquals(4, f.length, "manifest line: " + line);
      out.add(new Case(f[0], Kind.valueOf(f[1]), f[2], f[3]));
    }
    return out;
  }

  @TestFactory
  Stream<DynamicTest> everyCaseIsRejectedWithItsKind() throws IOException {
    List<Case> cases = manifest();
    assertFalse(cases.isEmpty(), "empty corpus");
    return cases.stream()
        .map(c -> DynamicTest.dynamicTest(c.file() + " [" + c.section() + " " + c.kind() + "]", () -> replay(c)));
  }

  private void replay(Case c) throws IOException {
    byte[] bytes = Files.readAllBytes(rejectDir().resolve(c.file()));
    switch (c.section()) {
      case "header":
      case "schema":
      case "stats":
      case "directory":
      case "legacy": {
        TableCacheException e =
            assertThrows(TableCacheException.class, () -> FrameParser.parse(bytes).validate(), c.what());
        assertEquals(c.kind(), e.kind(), c.what() + ": " + e.getMessage());
        break;
      }
      case "payload": {
        FrameParser.parse(bytes).validate(); // the metadata is valid
        TableCacheException e =
            assertThrows(
                TableCacheException.class,
                () -> {
                  try (VectorSchemaRoot r = TableCache.deserialize(bytes, null, allocator)) {
                    r.getRowCount();
                  }
                },
                c.what());
        assertEquals(c.kind(), e.kind(), c.what() + ": " + e.getMessage());
        break;
      }
      default:
        throw new AssertionError("unknown section " + c.section() + " in " + c.file());
    }
  }
}
