package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.plan.PhysicalPlans;
import dev.tablecache.spark.plan.ScanMetricsNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.storage.RDDInfo;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.collection.JavaConverters;

/**
 * Each cache scan of a query carries its own SQL metrics ({@code TableCacheScanMetricsExec}),
 * read from the executed plan's nodes after the query ran, with exact values: the table {@code
 * t} is {@code range(0, 1200)} in 4 partitions with batches of 100 rows, 12 batches whose id
 * ranges are disjoint, so a filter {@code id < 250} keeps exactly 3 of them and each decoded
 * batch of the one long column is 800 bytes (no nulls: no validity buffer).
 */
@Tag("spark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScanMetricsSparkTest {

  private static final int BATCHES = 12;
  private static final int ROWS = 100;
  private static final long LONG_BATCH_BYTES = 8L * ROWS;

  private SparkSession spark;

  @BeforeAll
  void startSpark() {
    spark = SparkTestSupport.start("scan-metrics");
    Dataset<Row> t = spark.range(0, BATCHES * ROWS, 1, 4).toDF();
    t.createOrReplaceTempView("t");
    spark.catalog().cacheTable("t");
    spark.table("t").count();
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  @Test
  void filterCountsPrunedReadAndDecodedBatches() {
    Dataset<Row> df = spark.sql("SELECT id FROM t WHERE id < 250");
    assertEquals(250, df.collectAsList().size());
    ScanMetricsNode node = only(df);
    assertTrue(
        columnarBelow(SparkLineSupport.classic(df).queryExecution().executedPlan()),
        "the read rule's ColumnarToRowExec sits above the metrics node");
    assertScan(node, 3, 9, 3, 0, 3 * LONG_BATCH_BYTES);
  }

  @Test
  void rowPathCountsTheSame() {
    spark.conf().set(TableCacheConf.COLUMNAR_READ, "false");
    try {
      Dataset<Row> df = spark.sql("SELECT id FROM t WHERE id < 250");
      assertEquals(250, df.collectAsList().size());
      assertFalse(columnarBelow(SparkLineSupport.classic(df).queryExecution().executedPlan()));
      assertScan(only(df), 3, 9, 3, 0, 3 * LONG_BATCH_BYTES);
    } finally {
      spark.conf().unset(TableCacheConf.COLUMNAR_READ);
    }
  }

  @Test
  void aggregatesFromStatsCountAnsweredBatches() {
    Dataset<Row> df = spark.sql("SELECT count(*), min(id), max(id) FROM t");
    Row r = df.collectAsList().get(0);
    assertEquals(BATCHES * ROWS, r.getLong(0));
    assertEquals(BATCHES * ROWS - 1, r.getLong(2));
    ScanMetricsNode node = only(df);
    assertNotNull(
        SparkTestSupport.findPlan(
            node.child(), p -> p.nodeName().contains("tablecache partial aggregates")),
        "the scan of partial aggregates under the node: " + node);
    assertScan(node, BATCHES, 0, 0, BATCHES, 0);
  }

  @Test
  void rowCountOnlyReadsWithoutDecoding() {
    spark.conf().set(TableCacheConf.AGGREGATES_FROM_STATS, "false");
    try {
      Dataset<Row> df = spark.sql("SELECT count(*) FROM t WHERE id >= 1000");
      assertEquals(200L, df.collectAsList().get(0).getLong(0));
      // The stats pruned 10; the kept 2 are decoded for the filter's column.
      assertScan(only(df), 2, 10, 2, 0, 2 * LONG_BATCH_BYTES);
      Dataset<Row> all = spark.sql("SELECT count(*) FROM t");
      assertEquals((long) BATCHES * ROWS, all.collectAsList().get(0).getLong(0));
      // No column selected: every batch read from its row count, none decoded.
      assertScan(only(all), BATCHES, 0, 0, 0, 0);
    } finally {
      spark.conf().unset(TableCacheConf.AGGREGATES_FROM_STATS);
    }
  }

  /**
   * Two caches partitioned alike, joined without an exchange: both scans run in the same tasks
   * (a zipped sort-merge join), and each node counts only its own cache's batches.
   */
  @Test
  void twoScansInOneTaskCountApart() {
    Dataset<Row> a = spark.sql("SELECT id AS k, id * 2 AS a2 FROM range(0, 2000, 1, 4)");
    Dataset<Row> b = spark.sql("SELECT id AS k, id * 3 AS b3 FROM range(0, 2000, 1, 4)");
    a = a.repartition(4, a.col("k")).cache();
    b = b.filter("k < 1000").repartition(4, b.col("k")).cache();
    try {
      a.count();
      b.count();
      Dataset<Row> joined = a.join(b, "k").selectExpr("k", "a2", "b3");
      assertEquals(1000, joined.collectAsList().size());
      SparkPlan plan = SparkLineSupport.classic(joined).queryExecution().executedPlan();
      List<ScanMetricsNode> nodes = nodes(plan);
      assertEquals(2, nodes.size(), String.valueOf(plan));
      assertFalse(hasExchange(plan), "no exchange: both scans in one stage\n" + plan);
      for (ScanMetricsNode node : nodes) {
        InMemoryRelation relation = PhysicalPlans.ourScan(node.child()).relation();
        long[] batches = batchRows(relation);
        long bytes = 0;
        for (long rows : batches) {
          bytes += 2 * 8 * rows; // both long columns
        }
        assertScan(node, batches.length, 0, batches.length, 0, bytes);
      }
      assertTrue(
          value(nodes.get(0), ScanMetricsNode.BATCHES_READ)
              != value(nodes.get(1), ScanMetricsNode.BATCHES_READ),
          "the caches differ in batches, so the nodes must too");
    } finally {
      a.unpersist(true);
      b.unpersist(true);
    }
  }

  /**
   * What Spark reports of a cache of ours is its frames: the relation's size statistic is the
   * sum of its batches' frame bytes, and the block manager's memory size (the Storage tab's,
   * and REST's {@code memoryUsed}) is that plus, for blocks held as objects, the JVM's object
   * headers, and for serialized blocks the stream's framing (Java serialization: the class
   * descriptor once per stream, then each batch's row count and length before its frame).
   */
  @ParameterizedTest
  @ValueSource(strings = {"MEMORY_ONLY", "MEMORY_ONLY_SER"})
  void storageSizesAreFrameBytes(String level) {
    Dataset<Row> s = spark.sql("SELECT id, id % 7 AS m FROM range(0, 3000, 1, 3)");
    s = s.persist(StorageLevel.fromString(level));
    try {
      s.count();
      InMemoryRelation relation = SparkTestSupport.cachedRelation(spark, s);
      RDD<CachedBatch> buffers = relation.cacheBuilder().cachedColumnBuffers();
      List<Long> frames =
          buffers
              .toJavaRDD()
              .map(batch -> (long) ((NativeCachedBatch) batch).frame().length)
              .collect();
      long frameBytes = frames.stream().mapToLong(Long::longValue).sum();
      assertEquals(30, frames.size());
      assertEquals(
          frameBytes, relation.computeStats().sizeInBytes().longValue(), "relation size");
      RDDInfo info = null;
      for (RDDInfo i : SparkTestSupport.storageInfo(spark)) {
        if (i.id() == buffers.id()) {
          info = i;
        }
      }
      assertNotNull(info, "the cache's RDD in the storage info");
      assertEquals(3, info.numCachedPartitions());
      assertEquals(0, info.diskSize());
      long overhead = info.memSize() - frameBytes;
      // Per batch: its object and the byte[]'s header and padding (objects), or its row count,
      // length and block marks (serialized); per partition: the array that holds them, or the
      // stream's header and class descriptor.
      assertTrue(
          overhead >= 0 && overhead <= 64L * frames.size() + 256L * 3,
          level + ": memory " + info.memSize() + " for " + frameBytes + " frame bytes");
    } finally {
      s.unpersist(true);
    }
  }

  /**
   * A cache our serializer hands to Spark's default one (a schema beyond the readers' bounds:
   * nesting one level past 60) does none of our work, so its scan gets no metrics node.
   */
  @Test
  void aCacheOfTheDefaultSerializerHasNoNode() {
    String expr = "id";
    for (int i = 1; i < 61; i++) {
      expr = "named_struct('a', " + expr + ")";
    }
    Dataset<Row> deep = spark.range(0, 300, 1, 2).selectExpr("id", expr + " AS c").cache();
    try {
      deep.count();
      Dataset<Row> df = deep.filter("id < 10");
      assertEquals(10, df.collectAsList().size());
      SparkPlan plan = SparkLineSupport.classic(df).queryExecution().executedPlan();
      assertNotNull(SparkTestSupport.cacheScan(df), "reads the cache: " + plan);
      assertEquals(Collections.emptyList(), nodes(plan), "no metrics node in\n" + plan);
    } finally {
      deep.unpersist(true);
    }
  }

  // ---- helpers ----

  private static void assertScan(
      ScanMetricsNode node, long read, long pruned, long decoded, long fromStats, long bytes) {
    String all = describe(node);
    assertEquals(read, value(node, ScanMetricsNode.BATCHES_READ), "batches read: " + all);
    assertEquals(pruned, value(node, ScanMetricsNode.BATCHES_PRUNED), "pruned: " + all);
    assertEquals(decoded, value(node, ScanMetricsNode.BATCHES_DECODED), "decoded: " + all);
    assertEquals(fromStats, value(node, ScanMetricsNode.BATCHES_FROM_STATS), "from stats: " + all);
    assertEquals(bytes, value(node, ScanMetricsNode.BYTES_DECODED), "bytes decoded: " + all);
    long nanos = value(node, ScanMetricsNode.DECODE_TIME);
    assertTrue(decoded > 0 ? nanos > 0 : nanos == 0, "decode time: " + all);
  }

  /** A metric's value; a size or timing metric nothing added to reads 0 (Spark 3.5 keeps -1). */
  private static long value(ScanMetricsNode node, String key) {
    SQLMetric m = node.metrics().apply(key);
    return Math.max(0, m.value());
  }

  private static String describe(ScanMetricsNode node) {
    StringBuilder b = new StringBuilder();
    for (String key :
        new String[] {
          ScanMetricsNode.BATCHES_READ,
          ScanMetricsNode.BATCHES_PRUNED,
          ScanMetricsNode.BATCHES_DECODED,
          ScanMetricsNode.BATCHES_FROM_STATS,
          ScanMetricsNode.BYTES_DECODED,
          ScanMetricsNode.DECODE_TIME
        }) {
      b.append(key).append('=').append(value(node, key)).append(' ');
    }
    return b.toString();
  }

  /** The one metrics node of the query's executed plan. */
  private static ScanMetricsNode only(Dataset<Row> df) {
    SparkPlan plan = SparkLineSupport.classic(df).queryExecution().executedPlan();
    List<ScanMetricsNode> nodes = nodes(plan);
    assertEquals(1, nodes.size(), "metrics nodes in\n" + plan);
    return nodes.get(0);
  }

  /** Every metrics node of an executed plan (adaptive plans and query stages included). */
  static List<ScanMetricsNode> nodes(SparkPlan plan) {
    List<ScanMetricsNode> out = new ArrayList<>();
    collect(plan, out);
    return out;
  }

  private static void collect(SparkPlan plan, List<ScanMetricsNode> out) {
    if (plan instanceof ScanMetricsNode) {
      out.add((ScanMetricsNode) plan);
    }
    if (plan instanceof AdaptiveSparkPlanExec) {
      collect(((AdaptiveSparkPlanExec) plan).executedPlan(), out);
    } else if (plan instanceof QueryStageExec) {
      collect(((QueryStageExec) plan).plan(), out);
    }
    for (SparkPlan child : JavaConverters.seqAsJavaList(plan.children())) {
      collect(child, out);
    }
  }

  private static boolean hasExchange(SparkPlan plan) {
    return SparkTestSupport.findPlan(plan, p -> p instanceof Exchange) != null;
  }

  /** Whether a ColumnarToRowExec reads a metrics node (possibly through an InputAdapter). */
  private static boolean columnarBelow(SparkPlan plan) {
    return SparkTestSupport.findPlan(
            plan,
            p ->
                p instanceof ColumnarToRowExec
                    && SparkTestSupport.findPlan(p, c -> c instanceof ScanMetricsNode) != null)
        != null;
  }

  /** The row count of each cached batch of {@code relation}. */
  private static long[] batchRows(InMemoryRelation relation) {
    List<Integer> rows =
        relation.cacheBuilder().cachedColumnBuffers().toJavaRDD().map(CachedBatch::numRows).collect();
    return rows.stream().mapToLong(Integer::longValue).toArray();
  }
}
