package dev.tablecache.format;

import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import dev.tablecache.GoldenParityTest;
import dev.tablecache.CacheFormat;
import dev.tablecache.TestScale;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.TableCacheException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Differential property test: for seeded mutations of every golden frame ({@link FrameMutations}:
 * bit flips, byte swaps, truncations, version/flags bytes, inflated length and count fields and
 * schema swaps, with re-forged and with stale checksums), the pure-Java parser ({@link
 * FrameParser#parse} + {@link ParsedFrame#validate()}) and the native reader agree.
 *
 * <p><b>Same section.</b> The pure parser reads the metadata: the header, the meta checksum, the
 * directory, the stats and the schema (for legacy: the IPC stream's framing, schema and row
 * count), never a payload. What the native reader reads depends on the format:
 *
 * <ul>
 *   <li>V3 and V4: {@code deserialize(bytes, new int[0])} (an empty projection) runs {@code
 *       Frame::parse} and decodes no column: exactly the pure parser's section (a V4 frame's
 *       metadata is V3's; neither side reads a body). There the two must agree exactly: both
 *       accept, or both reject with the same kind.
 *   <li>V2 and legacy: the native reader has no metadata-only path (an empty projection still
 *       decodes the whole-batch body or the IPC record batch). Its metadata checks run first, so
 *       when the pure parser rejects, the native reader rejects with the same kind; when the pure
 *       parser accepts, the native reader may still reject for payload damage, with any kind.
 *   <li>Every format, all columns ({@code deserialize(bytes, null)}): when the pure parser
 *       rejects, the full decode rejects with the same kind (metadata before payloads).
 * </ul>
 *
 * <p>Sizes: {@value #SMOKE_PER_FRAME} mutations per golden frame (a few thousand in all, a few
 * seconds), 5,000 per frame with TABLECACHE_TEST_SCALE=full. Seed {@code
 * -Dtablecache.differential.seed}. Reproducers of past disagreements are in {@code
 * golden/reject/} ({@link RejectCorpusTest}).
 */
class ParserDifferentialTest extends NativeTestBase {

  static final long SEED = Long.getLong("tablecache.differential.seed", 0xD1FFE2E17L);
  static final int SMOKE_PER_FRAME = 200;
  static final int BUDGET = TestScale.pick(SMOKE_PER_FRAME, 5_000);
  static final int MAX_REPORTED = 20;

  @TestFactory
  Stream<DynamicTest> pureAndNativeParsersAgreeOnMutatedGoldenFrames() throws IOException {
    List<Path> files = GoldenParityTest.goldenFiles();
    Map<String, byte[]> donors = new LinkedHashMap<>();
    for (Path bin : files) {
      byte[] b = Files.readAllBytes(bin);
      donors.put(
          bin.getFileName().toString(),
          CacheFormat.detect(b) == CacheFormat.LEGACY
              ? new LegacyLayout(b).schemaSection()
              : new FramedLayout(b).schemaSection());
    }
    return files.stream()
        .map(bin -> DynamicTest.dynamicTest(bin.getFileName().toString(), () -> compare(bin, donors)));
  }

  private void compare(Path bin, Map<String, byte[]> donors) throws IOException {
    String name = bin.getFileName().toString();
    byte[] frame = Files.readAllBytes(bin);
    CacheFormat format = CacheFormat.detect(frame);
    List<String> disagreements = new ArrayList<>();
    int[] count = {0};
    try (BufferAllocator a = allocator.newChildAllocator(name, 0, Long.MAX_VALUE)) {
      new FrameMutations(name, frame, donors, SEED ^ name.hashCode(), TestScale.full())
          .generate(
              BUDGET,
              m -> {
                count[0]++;
                String d = disagreement(format, m.bytes(), a);
                if (d != null) {
                  disagreements.add("[" + m.family().label + "] " + m.what() + ": " + d);
                }
              });
    }
    assertTrue(
        disagreements.isEmpty(),
        disagreements.size() + " of " + count[0] + " mutations of " + name + " (seed " + SEED
            + ") disagree, first ones:\n  "
            + String.join("\n  ", disagreements.subList(0, Math.min(MAX_REPORTED, disagreements.size()))));
  }

  /** Null when both parsers agree on {@code bytes} (class Javadoc), else what differs. */
  static String disagreement(CacheFormat format, byte[] bytes, BufferAllocator a) {
    Outcome pure = pure(bytes);
    if (pure.other != null) {
      return "pure parser threw " + pure.other; // never anything but TableCacheException
    }
    Outcome full = nativeDecode(bytes, null, a);
    if (full.other != null) {
      return "native decode threw " + full.other;
    }
    if (pure.kind != null && pure.kind != full.kind) {
      return "pure " + pure + ", native (all columns) " + full;
    }
    if (format == CacheFormat.V3 || format == CacheFormat.V4) {
      Outcome meta = nativeDecode(bytes, new int[0], a);
      if (meta.other != null) {
        return "native decode threw " + meta.other;
      }
      if (pure.kind != meta.kind) {
        return "pure " + pure + ", native (no columns) " + meta;
      }
    }
    return null;
  }

  /** A kind (null = accepted), or an exception that is not a {@link TableCacheException}. */
  static final class Outcome {
    private final Kind kind;
    private final String message;
    private final Throwable other;

    Outcome(Kind kind, String message, Throwable other) {
      this.kind = kind;
      this.message = message;
      this.other = other;
    }

    @Override
    public String toString() {
      return kind == null ? "accepts" : kind + " (" + message + ")";
    }
  }

  static Outcome pure(byte[] bytes) {
    try {
      FrameParser.parse(bytes).validate();
      return new Outcome(null, null, null);
    } catch (TableCacheException e) {
      return new Outcome(e.kind(), e.getMessage(), null);
    } catch (RuntimeException | Error e) {
      return new Outcome(null, null, e);
    }
  }

  static Outcome nativeDecode(byte[] bytes, int[] projection, BufferAllocator a) {
    try (VectorSchemaRoot r = TableCache.deserialize(bytes, projection, a)) {
      return new Outcome(null, null, null);
    } catch (TableCacheException e) {
      return new Outcome(e.kind(), e.getMessage(), null);
    } catch (RuntimeException | Error e) {
      return new Outcome(null, null, e);
    }
  }
}
