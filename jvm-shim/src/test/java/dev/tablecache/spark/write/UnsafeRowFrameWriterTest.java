package dev.tablecache.spark.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.EncodedSchema;
import dev.tablecache.Java8;
import dev.tablecache.TableCache;
import dev.tablecache.spark.NativeCachedBatch;
import dev.tablecache.spark.TableCacheConf;
import dev.tablecache.spark.compat.SparkCompat;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * {@link UnsafeRowFrameWriter} on its own: rows that are not UnsafeRows (projected first), rows
 * large enough to grow both off-heap buffers, and which schemas it declines.
 */
class UnsafeRowFrameWriterTest {

  private static final StructType SCHEMA =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("s", DataTypes.StringType)
          .add("wide", new DecimalType(38, 3));

  private static WriteSettings settings(String... kv) {
    SQLConf conf = new SQLConf();
    conf.setConfString(TableCacheConf.BATCH_ROWS, "100000");
    for (int i = 0; i < kv.length; i += 2) {
      conf.setConfString(kv[i], kv[i + 1]);
    }
    return TableCacheConf.writeSettings(conf);
  }

  private static EncodedSchema arrow(StructType schema) {
    return EncodedSchema.of(SparkCompat.toArrowSchema(schema, "UTC"));
  }

  private static InternalRow row(long id) {
    // Every 1000th string is 300 KB, so the row buffer outgrows its first megabyte.
    String s = id % 7 == 0 ? null : id % 1000 == 1 ? Java8.repeat("x", 300_000) : "s" + id;
    Decimal wide = Decimal.apply(new BigDecimal(id + "123456789012345678901234.5"), 38, 3);
    return new GenericInternalRow(
        new Object[] {id, s == null ? null : UTF8String.fromString(s), id % 5 == 0 ? null : wide});
  }

  @Test
  void writesGenericAndUnsafeRowsAlike() {
    UnsafeRowFrameWriter writer = UnsafeRowFrameWriter.forSchemaOrNull(arrow(SCHEMA), SCHEMA, settings());
    assertNotNull(writer, "flat schema declined");
    UnsafeProjection toUnsafe =
        UnsafeProjection.create(new DataType[] {DataTypes.LongType, DataTypes.StringType, new DecimalType(38, 3)});
    int n = 5000; // grows the row starts past their first 1024 entries
    NativeCachedBatch batch;
    try {
      for (long id = 0; id < n; id++) {
        // Alternate generic rows (projected by the writer) and UnsafeRows (copied as they are).
        writer.write(id % 2 == 0 ? row(id) : toUnsafe.apply(row(id)));
      }
      assertFalse(writer.full(), "5000 rows under 100000 rows and 32 MiB");
      batch = writer.flush();
    } finally {
      writer.close();
    }
    assertEquals(n, batch.numRows());
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = TableCache.deserialize(batch.frame(), null, allocator)) {
      BigIntVector ids = (BigIntVector) root.getVector(0);
      VarCharVector strings = (VarCharVector) root.getVector(1);
      DecimalVector decimals = (DecimalVector) root.getVector(2);
      for (int i = 0; i < n; i++) {
        InternalRow want = row(i);
        assertEquals(i, ids.get(i));
        if (want.isNullAt(1)) {
          assertTrue(strings.isNull(i), "row " + i);
        } else {
          assertEquals(
              want.getUTF8String(1).toString(),
              new String(strings.get(i), StandardCharsets.UTF_8),
              "row " + i);
        }
        if (want.isNullAt(2)) {
          assertTrue(decimals.isNull(i), "row " + i);
        } else {
          assertEquals(want.getDecimal(2, 38, 3).toJavaBigDecimal(), decimals.getObject(i));
        }
      }
    }
  }

  @Test
  void flushesAtTheByteTarget() {
    UnsafeRowFrameWriter writer =
        UnsafeRowFrameWriter.forSchemaOrNull(
            arrow(SCHEMA), SCHEMA, settings(TableCacheConf.BATCH_BYTES, "4k"));
    try {
      int rows = 0;
      do {
        writer.write(row(rows + 2)); // short strings: about 70 bytes a row
        rows++;
      } while (!writer.full());
      assertTrue(rows > 10 && rows < 100, rows + " rows for 4 KiB");
      assertEquals(rows, writer.flush().numRows());
    } finally {
      writer.close();
    }
  }

  @Test
  void declinesNestedTypesAndTheSwitch() {
    StructType nested = new StructType().add("a", new ArrayType(DataTypes.IntegerType, true));
    assertNull(UnsafeRowFrameWriter.forSchemaOrNull(arrow(nested), nested, settings()));
    assertNull(
        UnsafeRowFrameWriter.forSchemaOrNull(
            arrow(SCHEMA), SCHEMA, settings(TableCacheConf.UNSAFE_ROW_INPUT, "false")));
  }
}
