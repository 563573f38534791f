package dev.tablecache;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.TableCacheException.Kind;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Projected decode: only the requested columns, in the requested order, for every format. */
class ProjectionTest extends NativeTestBase {

  private byte[] frame(VectorSchemaRoot in, CacheFormat f) {
    byte[] frame = TableCache.serialize(in, WriteOptions.builder().preferredFormat(f).build());
    assertEquals(f, CacheFormat.detect(frame));
    return frame;
  }

  @ParameterizedTest
  @EnumSource(CacheFormat.class)
  void returnsRequestedColumnsInOrder(CacheFormat f) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator)) {
      byte[] frame = frame(in, f);
      int n = in.getFieldVectors().size();
      int[][] projections = {
        {0}, {n - 1}, {n - 1, 0}, {3, 1, 2}, {7, 7}, {21, 19, 22, 20}, reversed(n)
      };
      for (int[] p : projections) {
        long before = liveHandles();
        try (VectorSchemaRoot out = TableCache.deserialize(frame, p, allocator)) {
          assertEquals(in.getRowCount(), out.getRowCount());
          List<String> want = new ArrayList<>();
          List<Field> wantFields = new ArrayList<>();
          for (int i : p) {
            want.add(in.getVector(i).getName());
            wantFields.add(in.getSchema().getFields().get(i));
          }
          assertEquals(want, Batches.names(out));
          assertEquals(wantFields, out.getSchema().getFields());
          for (int k = 0; k < p.length; k++) {
            assertTrue(VectorEqualsVisitor.vectorEquals(in.getVector(p[k]), out.getVector(k)), "column " + p[k]);
            assertEquals(Canonical.column(in.getVector(p[k])), Canonical.column(out.getVector(k)));
          }
          if (f == CacheFormat.V3 || f == CacheFormat.V4) {
            // V3 and V4 decode only what was asked: at most one live handle per projected column.
            assertTrue(liveHandles() - before <= p.length);
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CacheFormat.class)
  void emptyProjectionGivesRowCountOnly(CacheFormat f) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator)) {
      byte[] frame = frame(in, f);
      long before = liveHandles();
      try (VectorSchemaRoot out = TableCache.deserialize(frame, new int[0], allocator)) {
        assertEquals(Batches.ROWS, out.getRowCount());
        assertTrue(out.getFieldVectors().isEmpty());
        assertEquals(before, liveHandles());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CacheFormat.class)
  void outOfRangeColumns(CacheFormat f) {
    try (VectorSchemaRoot in = Batches.allTypes(allocator)) {
      byte[] frame = frame(in, f);
      int n = in.getFieldVectors().size();
      assertKind(Kind.COLUMN_OUT_OF_RANGE, () -> TableCache.deserialize(frame, new int[] {n}, allocator));
      assertKind(Kind.COLUMN_OUT_OF_RANGE, () -> TableCache.deserialize(frame, new int[] {0, Integer.MAX_VALUE}, allocator));
      // A negative index is a caller error, not a missing column (the native side's choice).
      TableCacheException e = assertThrows(TableCacheException.class, () -> TableCache.deserialize(frame, new int[] {-1}, allocator));
      assertTrue(e.kind() == Kind.INVALID_ARGUMENT || e.kind() == Kind.COLUMN_OUT_OF_RANGE, e.getMessage());
    }
  }

  private static int[] reversed(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = n - 1 - i;
    }
    return out;
  }
}
