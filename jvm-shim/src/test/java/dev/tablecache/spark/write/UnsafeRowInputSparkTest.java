package dev.tablecache.spark.write;

import static dev.tablecache.spark.SparkTestSupport.assertSameTagged;
import static dev.tablecache.spark.SparkTestSupport.tagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.DifferentialSparkTest;
import dev.tablecache.spark.SparkTestSupport;
import dev.tablecache.spark.TestTables;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Row input through {@link UnsafeRowFrameWriter}: the native side transposes UnsafeRow bytes.
 * The differential table's flat columns (every type the native side reads as UnsafeRow) are
 * cached under several formats, batch sizes and levels; every differential query that needs
 * only those columns must equal uncached Spark, and the frames must come from the UnsafeRow
 * path (or, with the switch off, from Spark's ArrowWriter).
 */
@Tag("spark")
@Tag("jvm-independent") // a query matrix: JUnit runs it on each line's Java 17 only
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnsafeRowInputSparkTest {

  private SparkSession spark;
  private Dataset<Row> flat;
  private final List<TestTables.Query> queries = new ArrayList<>();
  private final Map<Integer, List<String>> expected = new TreeMap<>();

  @BeforeAll
  void start() {
    spark = SparkTestSupport.start("unsafe-row-input");
    Dataset<Row> all = TestTables.allTypes(spark);
    List<String> flatColumns = new ArrayList<>();
    for (StructField f : all.schema().fields()) {
      if (isFlat(f.dataType())) {
        flatColumns.add(f.name());
      }
    }
    flat = all.selectExpr(flatColumns.toArray(new String[0]));
    flat.createOrReplaceTempView("t");
    for (TestTables.Query q : TestTables.queries()) {
      try {
        spark.sql(q.sql).queryExecution().analyzed();
        queries.add(q);
      } catch (Exception needsANestedColumn) { // AnalysisException
        // the query reads a column the flat table does not have
      }
    }
    assertTrue(queries.size() > 60, "only " + queries.size() + " queries apply to flat columns");
    for (List<TestTables.Query> chunk : TestTables.chunks(queries, DifferentialSparkTest.CHUNK)) {
      expected.putAll(tagged(spark, TestTables.union(chunk)));
    }
  }

  @AfterAll
  void stop() {
    SparkTestSupport.stop(spark);
  }

  private static boolean isFlat(DataType t) {
    return !(t instanceof ArrayType
        || t instanceof MapType
        || t instanceof StructType
        || t instanceof CalendarIntervalType
        || t.typeName().equals("variant"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "v3",
        "v2-none-7rows",
        "legacy-zstd",
        "v3-nostats-plain-4kb-batches-ser",
        "arrow-writer"
      })
  void cachedFlatColumnsEqualUncached(String config) {
    Map<String, String> conf = confOf(config);
    StorageLevel level =
        config.endsWith("-ser") ? StorageLevel.MEMORY_ONLY_SER() : StorageLevel.MEMORY_ONLY();
    conf.forEach((k, v) -> spark.conf().set(k, v));
    try {
      long viaRows = TableCacheMetrics.UNSAFE_ROW_FRAMES.sum();
      long written = DifferentialSparkTest.framesWritten();
      flat.persist(level);
      assertEquals(1240L, flat.count());
      long frames = DifferentialSparkTest.framesWritten() - written;
      long unsafe = TableCacheMetrics.UNSAFE_ROW_FRAMES.sum() - viaRows;
      assertTrue(frames > 0, "no frames written: " + TableCacheMetrics.summary());
      assertEquals(
          config.equals("arrow-writer") ? 0L : frames,
          unsafe,
          "frames from UnsafeRow bytes: " + TableCacheMetrics.summary());
      for (List<TestTables.Query> chunk : TestTables.chunks(queries, DifferentialSparkTest.CHUNK)) {
        assertSameTagged(chunk, expected, tagged(spark, TestTables.union(chunk)), config);
      }
    } finally {
      flat.unpersist(true);
      conf.keySet().forEach(k -> spark.conf().unset(k));
    }
    assertEquals(0L, TableCacheMetrics.ALLOCATOR_LEAKS.sum(), "Arrow allocator leaks");
  }

  private static Map<String, String> confOf(String config) {
    switch (config) {
      case "v3":
        return SparkTestSupport.conf();
      case "v2-none-7rows":
        return SparkTestSupport.conf(
            "spark.tablecache.format", "v2",
            "spark.tablecache.codec", "none",
            "spark.tablecache.batchRows", "7");
      case "legacy-zstd":
        return SparkTestSupport.conf(
            "spark.tablecache.format", "legacy", "spark.tablecache.codec", "zstd");
      case "v3-nostats-plain-4kb-batches-ser":
        return SparkTestSupport.conf(
            "spark.tablecache.stats", "false",
            "spark.tablecache.encoding", "plain",
            "spark.tablecache.batchBytes", "4k",
            "spark.tablecache.batchRows", "100000");
      case "arrow-writer":
        return SparkTestSupport.conf("spark.tablecache.unsafeRowInput", "false");
      default:
        throw new IllegalArgumentException(config);
    }
  }
}
