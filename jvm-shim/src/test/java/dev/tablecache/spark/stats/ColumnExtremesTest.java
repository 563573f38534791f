package dev.tablecache.spark.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** The string min and max the partial aggregates answer with, on Spark's own column vector. */
class ColumnExtremesTest {

  private static final DataType STRING = DataTypes.StringType;

  private static OnHeapColumnVector strings(String... values) {
    OnHeapColumnVector v = new OnHeapColumnVector(values.length, DataTypes.StringType);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.putNull(i);
      } else {
        v.putByteArray(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    return v;
  }

  @Test
  void stringsOrderAsUnsignedBytesAndSkipNulls() {
    // 'é' (C3 A9) and the emoji (F0 ...) are above every ASCII byte; '' is below everything.
    try (OnHeapColumnVector v = strings("b", null, "a\u00e9", "", "\uD83D\uDE00", "zz", null)) {
      assertEquals(UTF8String.fromString("\uD83D\uDE00"), ColumnExtremes.of(v, 7, STRING, true));
      assertEquals(UTF8String.fromString(""), ColumnExtremes.of(v, 7, STRING, false));
      // Only the first rows count.
      assertEquals(UTF8String.fromString("b"), ColumnExtremes.of(v, 2, STRING, true));
    }
    try (OnHeapColumnVector v = strings(null, null)) {
      assertNull(ColumnExtremes.of(v, 2, STRING, true));
    }
  }

  /**
   * Spark 4's {@code UTF8String.compareTo} refuses to run when Spark is testing (it wants {@code
   * binaryCompare}), and asks the environment on every call, which made it most of a string
   * max's cost. Test harnesses set {@code spark.testing}; the answer must not depend on it.
   */
  @Test
  void answersWhenSparkIsTesting() {
    String before = System.getProperty("spark.testing");
    System.setProperty("spark.testing", "true");
    try (OnHeapColumnVector v = strings("kiwi", "apple", "pear")) {
      assertEquals(UTF8String.fromString("pear"), ColumnExtremes.of(v, 3, STRING, true));
      assertEquals(UTF8String.fromString("apple"), ColumnExtremes.of(v, 3, STRING, false));
    } finally {
      if (before == null) {
        System.clearProperty("spark.testing");
      } else {
        System.setProperty("spark.testing", before);
      }
    }
  }
}
