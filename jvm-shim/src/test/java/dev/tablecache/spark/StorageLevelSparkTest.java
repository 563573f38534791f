package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.RDDInfo;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * Serialized storage levels with Kryo under {@code spark.kryo.registrationRequired=true}: the
 * cached batches round-trip through {@link NativeCachedBatch}'s Kryo encoding (frame bytes only).
 * Java serialization and the other levels run in {@link DifferentialSparkTest}.
 */
@Tag("spark")
class StorageLevelSparkTest {

  private static final Map<String, StorageLevel> LEVELS = new LinkedHashMap<>();

  static {
    LEVELS.put("MEMORY_ONLY", StorageLevel.MEMORY_ONLY());
    LEVELS.put("MEMORY_AND_DISK", StorageLevel.MEMORY_AND_DISK());
    LEVELS.put("MEMORY_ONLY_SER", StorageLevel.MEMORY_ONLY_SER());
    LEVELS.put("DISK_ONLY", StorageLevel.DISK_ONLY());
    LEVELS.put("MEMORY_ONLY_2", StorageLevel.MEMORY_ONLY_2());
  }

  @TestFactory
  Stream<DynamicNode> kryoRegistrationRequired() {
    return suite(
        "kryo",
        SparkTestSupport.conf(
            "spark.serializer", "org.apache.spark.serializer.KryoSerializer",
            "spark.kryo.registrationRequired", "true",
            "spark.kryo.registrator", TableCacheKryoRegistrator.class.getName()),
        Arrays.asList("MEMORY_ONLY_SER", "DISK_ONLY"));
  }

  private Stream<DynamicNode> suite(String name, Map<String, String> conf, Iterable<String> levels) {
    SparkSession[] spark = new SparkSession[1];
    Dataset<Row>[] table = newTableHolder();
    Map<Integer, List<String>> expected = new java.util.TreeMap<>();
    List<List<TestTables.Query>> chunks =
        TestTables.chunks(TestTables.queries(), DifferentialSparkTest.CHUNK);
    List<DynamicNode> nodes = new ArrayList<>();
    nodes.add(
        DynamicTest.dynamicTest(
            "start " + name,
            () -> {
              spark[0] = SparkTestSupport.start("storage-" + name, conf);
              table[0] = TestTables.allTypes(spark[0]);
              table[0].createOrReplaceTempView("t");
              for (List<TestTables.Query> chunk : chunks) {
                expected.putAll(SparkTestSupport.tagged(spark[0], TestTables.union(chunk)));
              }
            }));
    for (String level : levels) {
      List<DynamicNode> tests = new ArrayList<>();
      tests.add(
          DynamicTest.dynamicTest(
              "persist",
              () -> {
                table[0].persist(LEVELS.get(level));
                assertEquals(1240L, table[0].count());
                assertStored(spark[0], LEVELS.get(level));
              }));
      for (List<TestTables.Query> chunk : chunks) {
        tests.add(
            DynamicTest.dynamicTest(
                TestTables.label(chunk),
                () ->
                    SparkTestSupport.assertSameTagged(
                        chunk,
                        expected,
                        SparkTestSupport.tagged(spark[0], TestTables.union(chunk)),
                        name + "/" + level)));
      }
      tests.add(
          DynamicTest.dynamicTest(
              "unpersist",
              () -> {
                table[0].unpersist(true);
                assertTrue(spark[0].sparkContext().getPersistentRDDs().isEmpty());
              }));
      tests.add(DynamicTest.dynamicTest("memory released", () ->
          assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum())));
      nodes.add(DynamicContainer.dynamicContainer(level, tests));
    }
    nodes.add(DynamicTest.dynamicTest("stop " + name, () -> SparkTestSupport.stop(spark[0])));
    return Stream.of(DynamicContainer.dynamicContainer(name, nodes));
  }

  /** The cache's RDD is stored at the requested level, in memory and/or on disk as it says. */
  static void assertStored(SparkSession spark, StorageLevel level) {
    RDDInfo[] infos = SparkTestSupport.storageInfo(spark);
    assertEquals(1, infos.length, "one cached RDD");
    RDDInfo info = infos[0];
    if (!level.useDisk()) {
      assertTrue(info.memSize() > 0 && info.diskSize() == 0, "memory only: " + info);
    } else if (!level.useMemory()) {
      assertTrue(info.memSize() == 0 && info.diskSize() > 0, "disk only: " + info);
    } else {
      assertTrue(info.memSize() + info.diskSize() > 0, "memory and disk: " + info);
    }
    assertEquals(info.numPartitions(), info.numCachedPartitions(), "all partitions cached");
  }

  @SuppressWarnings("unchecked")
  private static Dataset<Row>[] newTableHolder() {
    return (Dataset<Row>[]) new Dataset[1];
  }
}
