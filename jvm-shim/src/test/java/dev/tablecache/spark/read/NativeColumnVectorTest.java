package dev.tablecache.spark.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link NativeColumnVector}'s own null count (a popcount over the validity bitmap) and null
 * checks agree with Arrow Java for every row count around the 64-row word boundaries and for
 * nulls at the first, last and in-between rows.
 */
class NativeColumnVectorTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000})
  void nullCountsAndNullChecksMatchArrow(int rows) {
    try (BufferAllocator allocator = new RootAllocator();
        BigIntVector longs = new BigIntVector("l", allocator);
        BitVector bits = new BitVector("b", allocator);
        VarCharVector strings = new VarCharVector("s", allocator)) {
      for (int pattern = 0; pattern < 4; pattern++) {
        longs.reset();
        bits.reset();
        strings.reset();
        longs.allocateNew(rows);
        bits.allocateNew(rows);
        strings.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
          if (isNull(pattern, i, rows)) {
            longs.setNull(i);
            bits.setNull(i);
            strings.setNull(i);
          } else {
            longs.set(i, i * 3L);
            bits.set(i, i % 2);
            strings.setSafe(i, ("v" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
          }
        }
        longs.setValueCount(rows);
        bits.setValueCount(rows);
        strings.setValueCount(rows);
        check(NativeColumnVector.wrap(longs, DataTypes.LongType), longs.getNullCount(), rows, pattern);
        check(NativeColumnVector.wrap(bits, DataTypes.BooleanType), bits.getNullCount(), rows, pattern);
        check(NativeColumnVector.wrap(strings, DataTypes.StringType), strings.getNullCount(), rows, pattern);
      }
    }
  }

  /** Pattern 0: no nulls; 1: all null; 2: first and last row; 3: every third row. */
  private static boolean isNull(int pattern, int row, int rows) {
    switch (pattern) {
      case 0:
        return false;
      case 1:
        return true;
      case 2:
        return row == 0 || row == rows - 1;
      default:
        return row % 3 == 1;
    }
  }

  private static void check(NativeColumnVector v, int arrowNulls, int rows, int pattern) {
    String what = rows + " rows, pattern " + pattern;
    assertEquals(arrowNulls, v.numNulls(), what);
    assertEquals(arrowNulls > 0, v.hasNull(), what);
    int seen = 0;
    for (int i = 0; i < rows; i++) {
      assertEquals(isNull(pattern, i, rows), v.isNullAt(i), what + ", row " + i);
      seen += v.isNullAt(i) ? 1 : 0;
    }
    assertEquals(arrowNulls, seen, what);
  }
}
