package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.read.FrameDecoder;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Decoded native memory is accounted to the task's execution memory in Spark's memory manager:
 * asked for before each decode (the batch's declared decoded size), given back when the batch is
 * released, for both the flat (by address) and the Arrow Java read.
 */
@Tag("spark")
class DecodedMemorySparkTest {

  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSupport.start("decoded-memory");
  }

  @AfterAll
  static void stop() {
    SparkTestSupport.stop(spark);
  }

  /**
   * V4 bodies are encoded, so their stored and decompressed lengths say little of what they
   * decode to: the directory states it, and the memory asked for is the same as for V3's plain
   * bodies of the same rows.
   */
  @Test
  void decodedBatchesHoldTaskExecutionMemoryUntilReleased() {
    List<Long> v3 = declaredPerRead("v3");
    List<Long> v4 = declaredPerRead("v4");
    assertEquals(v3, v4, "declared decoded bytes per read, V3 then V4");
  }

  /** Caches the table in {@code format}, decodes each batch and returns each read's declared size. */
  private static List<Long> declaredPerRead(String format) {
    spark.conf().set("spark.tablecache.format", format);
    Dataset<Row> df =
        spark
            .range(0, 2000, 1, 2)
            .selectExpr(
                "id", "concat('value-', CAST(id AS STRING)) AS s", "array(id, id) AS arr");
    df.cache().count();
    try {
      List<long[]> seen =
          SparkTestSupport.cacheScan(df)
              .relation()
              .cacheBuilder()
              .cachedColumnBuffers()
              .toJavaRDD()
              .mapPartitions(
                  batches -> {
                    List<long[]> out = new ArrayList<>();
                    TaskMemoryManager tmm = TaskContext.get().taskMemoryManager();
                    // As under a predicate on id: the string column is deferred.
                    FrameDecoder flat =
                        new FrameDecoder(
                            new int[] {0, 1},
                            new DataType[] {DataTypes.LongType, DataTypes.StringType},
                            new int[] {0});
                    FrameDecoder nested =
                        new FrameDecoder(
                            new int[] {2},
                            new DataType[] {
                              DataTypes.createArrayType(DataTypes.LongType, false)
                            });
                    while (batches.hasNext()) {
                      NativeCachedBatch b = (NativeCachedBatch) batches.next();
                      for (FrameDecoder d : new FrameDecoder[] {flat, nested}) {
                        int[] columns = d == flat ? new int[] {0, 1} : new int[] {2};
                        long before = tmm.getMemoryConsumptionForThisTask();
                        ColumnarBatch decoded = d.decode(b);
                        // The string column is deferred: its memory is asked for on first read.
                        long beforeStrings = tmm.getMemoryConsumptionForThisTask();
                        decoded.column(columns.length - 1).isNullAt(0);
                        long during = tmm.getMemoryConsumptionForThisTask();
                        d.release();
                        long after = tmm.getMemoryConsumptionForThisTask();
                        out.add(
                            new long[] {
                              before,
                              during,
                              after,
                              b.checkedFrame().decodedBytes(columns),
                              beforeStrings,
                              d == flat
                                  ? b.checkedFrame().decodedBytes(new int[] {0})
                                  : b.checkedFrame().decodedBytes(columns)
                            });
                      }
                    }
                    flat.close();
                    nested.close();
                    return out.iterator();
                  })
              .collect();
      assertTrue(seen.size() >= 4, "batches read: " + seen.size() / 2);
      List<Long> declared = new ArrayList<>();
      for (long[] s : seen) {
        assertTrue(s[3] > 0, format + ": declared decoded size " + s[3]);
        assertEquals(s[3], s[1] - s[0], format + ": held while decoded");
        assertEquals(s[0], s[2], format + ": given back when released");
        assertEquals(s[5], s[4] - s[0], format + ": held before the deferred column is read");
        declared.add(s[3]);
      }
      return declared;
    } finally {
      df.unpersist(true);
      spark.conf().unset("spark.tablecache.format");
    }
  }
}
