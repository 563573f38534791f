package dev.tablecache.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.GoldenParityTest;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeCodec#decodeToArrowC}, the hand-off Comet reads our caches through, imported here
 * with Arrow Java's own C Data library: on every golden frame it gives the same vectors as the
 * descriptor path ({@code TableCache.deserialize}), for all columns and for a projection, and a
 * damaged frame is the same exception with the caller's structs holding nothing.
 */
class ArrowCExportTest {

  /**
   * Arrow Java 12 (the Spark 3.5 line), whose C Data importer predates NullVector lengths; told
   * apart from 18 (Spark 4) by the view vectors that Arrow Java 16 added.
   */
  private static final boolean OLD_IMPORTER =
      !present("org.apache.arrow.vector.ViewVarCharVector");

  private static boolean present(String className) {
    try {
      Class.forName(className);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** Decodes {@code columns} of {@code frame} through the C Data Interface. */
  private static List<FieldVector> viaArrowC(
      byte[] frame, int[] columns, int n, BufferAllocator allocator) {
    List<ArrowArray> arrays = new ArrayList<>();
    List<ArrowSchema> schemas = new ArrayList<>();
    try {
      long[] a = new long[n];
      long[] s = new long[n];
      for (int i = 0; i < n; i++) {
        arrays.add(ArrowArray.allocateNew(allocator));
        schemas.add(ArrowSchema.allocateNew(allocator));
        a[i] = arrays.get(i).memoryAddress();
        s[i] = schemas.get(i).memoryAddress();
      }
      NativeCodec.decodeToArrowC(frame, columns, a, s);
      List<FieldVector> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(Data.importVector(allocator, arrays.get(i), schemas.get(i), null));
      }
      return out;
    } finally {
      arrays.forEach(ArrowArray::close);
      schemas.forEach(ArrowSchema::close);
    }
  }

  @Test
  void everyGoldenFrameImportsToTheVectorsOfTheDescriptorPath() throws Exception {
    NativeLibrary.ensureLoaded();
    int compared = 0;
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Path bin : GoldenParityTest.goldenFiles()) {
        byte[] frame = Files.readAllBytes(bin);
        VectorSchemaRoot expected;
        try {
          expected = TableCache.deserialize(frame, null, allocator);
        } catch (TableCacheException e) {
          continue; // dictionary columns: not handed to Arrow Java on either path
        }
        try {
          int n = expected.getFieldVectors().size();
          int[] all = new int[n];
          for (int i = 0; i < n; i++) {
            all[i] = i;
          }
          int[] reversed = new int[n];
          for (int i = 0; i < n; i++) {
            reversed[i] = n - 1 - i;
          }
          for (int[] projection : new int[][] {all, reversed}) {
            List<FieldVector> got = viaArrowC(frame, projection, n, allocator);
            try {
              for (int i = 0; i < n; i++) {
                FieldVector want = expected.getVector(projection[i]);
                if (want instanceof NullVector && OLD_IMPORTER) {
                  // Arrow Java 12's importer (Spark 3.5) drops a Null array's length; the type
                  // must still match. Comet's Arrow Java is 18, where the whole check runs.
                  assertTrue(got.get(i) instanceof NullVector, bin.getFileName() + " Null column");
                  continue;
                }
                assertTrue(
                    VectorEqualsVisitor.vectorEquals(want, got.get(i)),
                    bin.getFileName() + " column " + projection[i] + ": " + want.getField()
                        + " x" + want.getValueCount() + " vs " + got.get(i).getField() + " x"
                        + got.get(i).getValueCount());
              }
            } finally {
              got.forEach(FieldVector::close);
            }
          }
          compared++;
        } finally {
          expected.close();
        }
      }
      assertEquals(0, allocator.getAllocatedMemory(), "every imported buffer released");
    }
    assertTrue(compared >= 10, "compared only " + compared + " golden frames");
  }

  @Test
  void aDamagedFrameIsTheSameErrorAndLeavesTheStructsEmpty() throws Exception {
    NativeLibrary.ensureLoaded();
    Path bin = GoldenParityTest.goldenFiles().get(0);
    byte[] frame = Files.readAllBytes(bin);
    byte[] truncated = java.util.Arrays.copyOf(frame, frame.length / 2);
    TableCacheException want;
    try (BufferAllocator allocator = new RootAllocator()) {
      want =
          assertThrows(
              TableCacheException.class, () -> TableCache.deserialize(truncated, null, allocator));
      try (ArrowArray array = ArrowArray.allocateNew(allocator);
          ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
        TableCacheException got =
            assertThrows(
                TableCacheException.class,
                () ->
                    NativeCodec.decodeToArrowC(
                        truncated,
                        new int[] {0},
                        new long[] {array.memoryAddress()},
                        new long[] {schema.memoryAddress()}));
        assertEquals(want.kind(), got.kind(), got.getMessage());
        // Cleared before the decode (Arrow Java 12 does not zero new structs): nothing to release.
        assertEquals(0L, array.snapshot().release, "the array struct holds nothing");
        assertEquals(0L, schema.snapshot().release, "the schema struct holds nothing");
      }
      TableCacheException nullStruct =
          assertThrows(
              TableCacheException.class,
              () -> NativeCodec.decodeToArrowC(frame, new int[] {0}, new long[] {0}, new long[] {0}));
      assertEquals(TableCacheException.Kind.INVALID_ARGUMENT, nullStruct.kind());
    }
  }
}
