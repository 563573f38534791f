package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.format.DirectoryEntry;
import dev.tablecache.format.FrameParser;
import dev.tablecache.format.ParsedFrame;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.SparkEnv;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockResult;
import org.apache.spark.storage.RDDBlockId;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import scala.Option;
import scala.collection.Iterator;

/**
 * Block healing on a real local Spark (driver and executor in this JVM, 4 attempts per task): a
 * damaged block is dropped and recomputed and the query returns the right rows; a writer that
 * keeps producing damaged frames fails the job with the "not dropping it again" error.
 */
@Tag("spark")
class BlockHealingSparkTest {

  private static final String SQL =
      "SELECT id, concat('value-', CAST(id AS STRING)) AS s, CAST(id AS DOUBLE) / 4 AS x"
          + " FROM range(0, 2000, 1, 2)";
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSupport.start("healing", SparkTestSupport.conf("spark.master", "local[2,4]"));
  }

  @AfterAll
  static void stop() {
    SparkTestSupport.stop(spark);
  }

  @Test
  void cachedRddIdFindsThePersistedRddThroughOneToOneMaps() {
    Dataset<Row> df = spark.sql(SQL);
    df.persist(StorageLevel.MEMORY_ONLY());
    try {
      df.count();
      RDD<CachedBatch> cached =
          SparkTestSupport.cacheScan(df).relation().cacheBuilder().cachedColumnBuffers();
      assertEquals(cached.id(), SerializerCore.cachedRddId(cached));
      RDD<CachedBatch> mapped = cached.filter(new KeepAll());
      assertEquals(cached.id(), SerializerCore.cachedRddId(mapped));
      assertEquals(-1, SerializerCore.cachedRddId(spark.range(3).rdd()));
    } finally {
      df.unpersist(true);
    }
  }

  @Test
  void damagedMemoryBlockIsDroppedAndRecomputed() {
    Dataset<Row> df = spark.sql(SQL);
    List<String> want = SparkTestSupport.rows(df);
    df.persist(StorageLevel.MEMORY_ONLY());
    try {
      df.count();
      RDD<CachedBatch> cached =
          SparkTestSupport.cacheScan(spark.sql(SQL)).relation().cacheBuilder().cachedColumnBuffers();
      RDDBlockId block = new RDDBlockId(cached.id(), 0);
      flipFirstFrameLastByte(block);
      long dropped = TableCacheMetrics.BLOCKS_DROPPED.sum();

      assertEquals(want, SparkTestSupport.rows(spark.sql("SELECT * FROM (" + SQL + ")")));
      assertEquals(want, SparkTestSupport.rows(df));

      assertEquals(1, TableCacheMetrics.BLOCKS_DROPPED.sum() - dropped);
      assertTrue(
          SparkEnv.get().blockManager().getStatus(block).isDefined(),
          "the dropped block is cached again");
      assertEquals(want, SparkTestSupport.rows(df));
      assertEquals(1, TableCacheMetrics.BLOCKS_DROPPED.sum() - dropped, "rebuilt block is read");
    } finally {
      df.unpersist(true);
    }
  }

  /**
   * Damage in the payload of a string column, which a filtered read decodes only when a row of
   * its batch passes (after the batch itself was handed to Spark): the block heals all the same.
   */
  @Test
  void damagedDeferredStringColumnIsDroppedAndRecomputed() {
    String filtered = "SELECT id, s FROM (" + SQL + ") WHERE id % 100 = 7";
    Dataset<Row> df = spark.sql(SQL);
    List<String> want = SparkTestSupport.rows(spark.sql(filtered));
    df.persist(StorageLevel.MEMORY_ONLY());
    try {
      df.count();
      RDD<CachedBatch> cached =
          SparkTestSupport.cacheScan(spark.sql(SQL)).relation().cacheBuilder().cachedColumnBuffers();
      flipFirstFramePayloadByte(new RDDBlockId(cached.id(), 0), 1);
      long dropped = TableCacheMetrics.BLOCKS_DROPPED.sum();
      long deferred = TableCacheMetrics.DEFERRED_COLUMNS_DECODED.sum();

      assertEquals(want, SparkTestSupport.rows(spark.sql(filtered)));

      assertEquals(1, TableCacheMetrics.BLOCKS_DROPPED.sum() - dropped);
      assertTrue(
          TableCacheMetrics.DEFERRED_COLUMNS_DECODED.sum() > deferred,
          "s was decoded on its first read: " + TableCacheMetrics.summary());
    } finally {
      df.unpersist(true);
    }
  }

  @Test
  void brokenWriterFailsWithinTheTaskFailureLimit() {
    spark.conf().set(TableCacheConf.TEST_CORRUPT_FRAMES, "true");
    Dataset<Row> df = spark.sql(SQL).repartition(1);
    try {
      df.persist(StorageLevel.MEMORY_AND_DISK());
      df.count(); // no column decoded: the damage is not seen yet
      long again = TableCacheMetrics.BLOCKS_DAMAGED_AGAIN.sum();
      Exception e = assertThrows(Exception.class, () -> df.selectExpr("max(s)").collect());
      String message = String.valueOf(e.getMessage());
      assertTrue(message.contains("not dropping it again"), message);
      assertTrue(message.contains("failed 4 times"), message);
      assertTrue(TableCacheMetrics.BLOCKS_DAMAGED_AGAIN.sum() - again >= 3);
    } finally {
      spark.conf().unset(TableCacheConf.TEST_CORRUPT_FRAMES);
      df.unpersist(true);
    }
  }

  /** Flips the last byte of the first frame of an in-memory (deserialized) block. */
  private static void flipFirstFrameLastByte(RDDBlockId block) {
    damageFirstFrame(block, frame -> frame[frame.length - 1] ^= 0x5A);
  }

  /** Flips a byte in the middle of column {@code column}'s payload in a block's first frame. */
  private static void flipFirstFramePayloadByte(RDDBlockId block, int column) {
    damageFirstFrame(
        block,
        frame -> {
          ParsedFrame parsed = FrameParser.parse(frame);
          DirectoryEntry entry = parsed.directory().get(column);
          assertTrue(entry.storedLen() > 0, "column " + column + " has a payload: " + entry);
          frame[(int) (parsed.payloadStart() + entry.offset() + entry.storedLen() / 2)] ^= 0x5A;
        });
  }

  /** Applies {@code damage} to the first frame of an in-memory (deserialized) block, in place. */
  private static void damageFirstFrame(RDDBlockId block, Consumer<byte[]> damage) {
    BlockManager bm = SparkEnv.get().blockManager();
    Option<BlockResult> result = bm.getLocalValues(block);
    assertTrue(result.isDefined(), block + " is cached");
    try {
      Iterator<Object> values = result.get().data();
      damage.accept(((NativeCachedBatch) values.next()).frame());
    } finally {
      bm.releaseLock(block, Option.empty());
    }
  }

  /** A one-to-one map over the cached RDD, as the stats filter adds. */
  private static final class KeepAll extends scala.runtime.AbstractFunction1<CachedBatch, Object>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Object apply(CachedBatch b) {
      return Boolean.TRUE;
    }
  }
}
