package dev.tablecache.spark;

import static dev.tablecache.spark.SparkTestSupport.assertSameRows;
import static dev.tablecache.spark.SparkTestSupport.assertSameTagged;
import static dev.tablecache.spark.SparkTestSupport.conf;
import static dev.tablecache.spark.SparkTestSupport.rows;
import static dev.tablecache.spark.SparkTestSupport.tagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Differential suite: every query's result on the cached table equals its result on the same
 * table uncached (computed first, before anything is cached), under several writer/reader
 * configurations and storage levels. Queries run in UNION ALL chunks (one scan with its own
 * pruning predicates per query, one Spark job per chunk), which keeps the suite fast on two
 * cores; the default configuration reports one test per query, the others one per chunk. Runtime SQL
 * confs change between configurations; the session stays. Kryo-serialized levels need another
 * session: {@link StorageLevelSparkTest}.
 */
@Tag("spark")
@Tag("jvm-independent") // a query matrix: JUnit runs it on each line's Java 17 only
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public class DifferentialSparkTest {

  public static final int CHUNK = 15;

  private SparkSession spark;
  private Dataset<Row> table;
  private final Map<Integer, List<String>> expected = new TreeMap<>();
  private final Map<String, List<String>> expectedColumnar = new LinkedHashMap<>();

  /** A writer/reader configuration: runtime confs and storage level. */
  private static final class Config {
    final String name;
    final Map<String, String> conf;
    final StorageLevel level;

    Config(String name, String... kv) {
      this(name, StorageLevel.MEMORY_ONLY(), kv);
    }

    Config(String name, StorageLevel level, String... kv) {
      this.name = name;
      this.level = level;
      this.conf = conf(kv);
    }
  }

  /** The default settings: V4, lz4 where it still saves after the encodings. */
  private static final Config DEFAULT = new Config("v4-lz4");

  private static final List<Config> CHUNKED =
      Arrays.asList(
          new Config(
              "v2-none-tinybatches",
              "spark.tablecache.format", "v2",
              "spark.tablecache.codec", "none",
              "spark.tablecache.batchRows", "7"),
          new Config(
              "v3-lz4-rowread",
              "spark.tablecache.format", "v3",
              "spark.tablecache.columnarRead", "false"),
          // V3 (the default before V4), and V4 with the lightweight encodings alone.
          new Config("v3-lz4", "spark.tablecache.format", "v3"),
          new Config("v4-adaptive", "spark.tablecache.codec", "adaptive"),
          new Config(
              "v4-none-nostats-rowread",
              "spark.tablecache.format", "v4",
              "spark.tablecache.codec", "none",
              "spark.tablecache.stats", "false",
              "spark.tablecache.columnarRead", "false"),
          new Config(
              "legacy-auto", "spark.tablecache.format", "legacy", "spark.tablecache.codec", "auto"),
          new Config(
              "v3-zstd-plain-nostats",
              "spark.tablecache.format", "v3",
              "spark.tablecache.stats", "false",
              "spark.tablecache.codec", "zstd",
              "spark.tablecache.encoding", "plain"),
          new Config(
              "v3-shortbounds-interpreted",
              "spark.tablecache.format", "v3",
              "spark.tablecache.stringBoundLimit", "3",
              "spark.sql.codegen.wholeStage", "false",
              "spark.sql.codegen.factoryMode", "NO_CODEGEN"),
          new Config(
              "v3-4kb-batches",
              "spark.tablecache.format", "v3",
              "spark.tablecache.batchBytes", "4k",
              "spark.tablecache.batchRows", "100000"),
          new Config(
              "aqe-off-onebatch",
              "spark.sql.adaptive.enabled", "false",
              "spark.tablecache.batchRows", "100000"),
          new Config("MEMORY_AND_DISK", StorageLevel.MEMORY_AND_DISK()),
          new Config("MEMORY_ONLY_SER", StorageLevel.MEMORY_ONLY_SER()),
          new Config("DISK_ONLY", StorageLevel.DISK_ONLY()),
          new Config("MEMORY_ONLY_2", StorageLevel.MEMORY_ONLY_2()),
          // The row path without generated code: the row view + interpreted projection.
          new Config(
              "v3-rowread-nocodegen",
              "spark.tablecache.format", "v3",
              "spark.tablecache.columnarRead", "false",
              "spark.sql.codegen.factoryMode", "NO_CODEGEN"));

  private static Config chunked(String name) {
    return CHUNKED.stream().filter(c -> c.name.equals(name)).findFirst().get();
  }

  /** Plain projections read through the columnar output (ArrowColumnVector) path. */
  private static final List<String> COLUMNAR_PROJECTIONS = columnarProjections();

  private static List<String> columnarProjections() {
    List<String> out =
        new ArrayList<>(
            Arrays.asList(
                "SELECT * FROM t",
                "SELECT id FROM t",
                "SELECT s, dec1, dec2, d, f FROM t",
                "SELECT arr, m, st FROM t",
                "SELECT dti, ymi, nul, allnull, allnull_s, bin, b FROM t",
                "SELECT dt, ts, tsn, by, sh, i, l FROM t",
                "SELECT l, id FROM t"));
    out.addAll(SparkLineSupport.COLUMNAR_PROJECTIONS); // types only this Spark line has
    return out;
  }

  @BeforeAll
  void startSpark() {
    spark = SparkTestSupport.start("differential");
    table = TestTables.allTypes(spark);
    table.createOrReplaceTempView("t");
    // Expected results: uncached Spark, computed before any cache exists.
    for (List<TestTables.Query> chunk : TestTables.chunks(TestTables.queries(), CHUNK)) {
      expected.putAll(tagged(spark, TestTables.union(chunk)));
    }
    for (String q : COLUMNAR_PROJECTIONS) {
      expectedColumnar.put(q, rows(spark, q));
    }
    TestTables.Query nan = TestTables.queries().get(6);
    assertTrue(nan.sql.contains("d = double('NaN')"));
    assertEquals(10, expected.get(nan.number).size(), "uncached NaN rows");
  }

  @AfterAll
  void stopSpark() {
    SparkTestSupport.stop(spark);
  }

  @TestFactory
  Stream<DynamicNode> cachedEqualsUncached() {
    List<DynamicNode> containers = new ArrayList<>();
    // The default configuration: one dynamic test per query (each chunk runs as one job, once).
    List<DynamicNode> single = new ArrayList<>();
    single.add(DynamicTest.dynamicTest("cache", () -> cache(DEFAULT)));
    Map<Integer, List<String>> actual = new TreeMap<>();
    for (List<TestTables.Query> chunk : TestTables.chunks(TestTables.queries(), CHUNK)) {
      for (TestTables.Query q : chunk) {
        single.add(
            DynamicTest.dynamicTest(
                q.toString(),
                () -> {
                  if (q == chunk.get(0)) {
                    actual.putAll(tagged(spark, TestTables.union(chunk)));
                  }
                  assertSameTagged(Collections.singletonList(q), expected, actual, DEFAULT.name);
                }));
      }
    }
    single.add(DynamicTest.dynamicTest("uncache", () -> uncache(DEFAULT)));
    containers.add(DynamicContainer.dynamicContainer(DEFAULT.name, single));
    // Every other configuration and storage level: the same queries in chunks.
    for (Config c : CHUNKED) {
      List<DynamicNode> tests = new ArrayList<>();
      tests.add(DynamicTest.dynamicTest("cache", () -> cache(c)));
      for (List<TestTables.Query> chunk : TestTables.chunks(TestTables.queries(), CHUNK)) {
        String name = TestTables.label(chunk);
        tests.add(
            DynamicTest.dynamicTest(
                name,
                () ->
                    assertSameTagged(
                        chunk, expected, tagged(spark, TestTables.union(chunk)), c.name)));
      }
      tests.add(DynamicTest.dynamicTest("uncache", () -> uncache(c)));
      containers.add(DynamicContainer.dynamicContainer(c.name, tests));
    }
    // Columnar output, as a columnar engine would read the cache.
    for (Config c :
        Arrays.asList(
            DEFAULT, chunked("v2-none-tinybatches"), chunked("legacy-auto"), chunked("v3-lz4"))) {
      List<DynamicNode> tests = new ArrayList<>();
      tests.add(DynamicTest.dynamicTest("cache", () -> cache(c)));
      for (String q : COLUMNAR_PROJECTIONS) {
        for (boolean codegen : c == DEFAULT ? new boolean[] {false, true} : new boolean[] {true}) {
          tests.add(
              DynamicTest.dynamicTest(
                  q + (codegen ? " [codegen]" : ""),
                  () ->
                      assertSameRows(
                          expectedColumnar.get(q),
                          SparkTestSupport.rowsViaColumnarOutput(spark, q, codegen),
                          "columnar " + c.name + ": " + q)));
        }
      }
      tests.add(DynamicTest.dynamicTest("uncache", () -> uncache(c)));
      containers.add(DynamicContainer.dynamicContainer("columnar-output-" + c.name, tests));
    }
    return containers.stream();
  }

  private long generatedReaders;
  private long projectedReaders;

  private void cache(Config c) {
    generatedReaders = TableCacheMetrics.ROW_READERS_GENERATED.sum();
    projectedReaders = TableCacheMetrics.ROW_READERS_PROJECTED.sum();
    spark.catalog().clearCache();
    for (Map.Entry<String, String> e : c.conf.entrySet()) {
      spark.conf().set(e.getKey(), e.getValue());
    }
    long written = framesWritten();
    long v4 = TableCacheMetrics.FRAMES_WRITTEN_V4.sum();
    table.persist(c.level);
    assertEquals(1240L, table.count());
    StorageLevelSparkTest.assertStored(spark, c.level);
    long frames = framesWritten() - written;
    assertTrue(frames > 0, "no frames written: " + TableCacheMetrics.summary());
    // V4 is written by default and when asked for, and only then.
    boolean asksV4 = "v4".equals(c.conf.getOrDefault("spark.tablecache.format", "v4"));
    assertEquals(
        asksV4 ? frames : 0,
        TableCacheMetrics.FRAMES_WRITTEN_V4.sum() - v4,
        c.name + ": V4 frames of " + frames + ": " + TableCacheMetrics.summary());
    assertTrue(
        spark.sharedState().cacheManager().lookupCachedData(SparkLineSupport.classic(table)).isDefined());
  }

  private void uncache(Config c) {
    assertRowReaders(c);
    table.unpersist(true);
    for (String k : c.conf.keySet()) {
      spark.conf().unset(k);
    }
    assertEquals(0L, TableCacheMetrics.LIVE_DECODED_BATCHES.sum(), "decoded batches not released");
    assertEquals(0L, TableCacheMetrics.ALLOCATOR_LEAKS.sum(), "Arrow allocator leaks");
  }

  /**
   * Row output went through the reader the configuration asks for: generated readers unless
   * code generation is off, and never a silent fall back to the projection path.
   */
  private void assertRowReaders(Config c) {
    long generated = TableCacheMetrics.ROW_READERS_GENERATED.sum() - generatedReaders;
    long projected = TableCacheMetrics.ROW_READERS_PROJECTED.sum() - projectedReaders;
    String what = c.name + ": " + TableCacheMetrics.summary();
    if ("NO_CODEGEN".equals(c.conf.get("spark.sql.codegen.factoryMode"))) {
      assertEquals(0, generated, what);
    } else {
      assertEquals(0, projected, what);
    }
    if ("false".equals(c.conf.get("spark.tablecache.columnarRead"))) {
      assertTrue(generated + projected > 0, "no row output read: " + what);
      assertTrue(
          "NO_CODEGEN".equals(c.conf.get("spark.sql.codegen.factoryMode"))
              ? projected > 0
              : generated > 0,
          what);
    }
  }

  public static long framesWritten() {
    return TableCacheMetrics.FRAMES_WRITTEN_V4.sum()
        + TableCacheMetrics.FRAMES_WRITTEN_V3.sum()
        + TableCacheMetrics.FRAMES_WRITTEN_V2.sum()
        + TableCacheMetrics.FRAMES_WRITTEN_LEGACY.sum();
  }
}
