package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryRelation$;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.storage.RDDInfo;
import scala.collection.JavaConverters;

/** Starting and stopping real local Spark sessions, and comparing query results exactly. */
public final class SparkTestSupport {

  static {
    TestLogging.quiet();
  }

  private SparkTestSupport() {}

  /**
   * A fresh local[2] session using NativeCachedBatchSerializer (or what {@code conf} sets
   * instead). TableCacheExtensions loads itself from the classpath (META-INF/services), as it does
   * for users who set only the serializer.
   */
  public static SparkSession start(String appName, Map<String, String> conf) {
    resetSerializer();
    SparkSession.Builder b =
        SparkSession.builder()
            .master("local[2]")
            .appName(appName)
            .config("spark.sql.cache.serializer", NativeCachedBatchSerializer.class.getName())
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "4")
            .config("spark.sql.session.timeZone", "America/Los_Angeles")
            // Keep every query deterministic and fast on 2 cores.
            .config("spark.sql.adaptive.enabled", "true")
            .config("spark.sql.autoBroadcastJoinThreshold", "-1")
            .config("spark.sql.inMemoryColumnarStorage.batchSize", "100")
            .config("spark.sql.datetime.java8API.enabled", "true");
    for (Map.Entry<String, String> e : conf.entrySet()) {
      b.config(e.getKey(), e.getValue());
    }
    return b.getOrCreate();
  }

  public static SparkSession start(String appName) {
    return start(appName, Collections.emptyMap());
  }

  /**
   * {@code getRDDStorageInfo()} once Spark's listener bus has delivered every event posted so far.
   * The cached partitions and sizes it reports come from the status store, which the bus fills
   * asynchronously, so read right after a job it can miss that job's last blocks (seen on Java 8:
   * 4 of 5 partitions). The wait is generous because it only bounds a hang, never a result.
   */
  public static RDDInfo[] storageInfo(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(TimeUnit.MINUTES.toMillis(5));
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
    return spark.sparkContext().getRDDStorageInfo();
  }

  public static void stop(SparkSession spark) {
    if (spark != null) {
      spark.catalog().clearCache();
      spark.stop();
    }
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    resetSerializer();
  }

  /** Spark instantiates the cache serializer once per JVM: forget it between suites. */
  static void resetSerializer() {
    // private[columnar] in Scala, public in bytecode.
    InMemoryRelation$.MODULE$.clearSerializer();
  }

  public static Map<String, String> conf(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  // ---- the cache scan and its columnar output ----

  /** The in-memory relation that caches {@code df} (which must be cached). */
  public static InMemoryRelation cachedRelation(SparkSession spark, Dataset<Row> df) {
    return (InMemoryRelation)
        spark
            .sharedState()
            .cacheManager()
            .lookupCachedData(SparkLineSupport.classic(df))
            .get()
            .cachedRepresentation();
  }

  /** The query's in-memory table scan, or null when it reads no cache. */
  public static InMemoryTableScanExec cacheScan(Dataset<Row> df) {
    return findScan(SparkLineSupport.classic(df).queryExecution().executedPlan());
  }

  private static InMemoryTableScanExec findScan(SparkPlan plan) {
    return (InMemoryTableScanExec) findPlan(plan, p -> p instanceof InMemoryTableScanExec);
  }

  /**
   * The first node of an executed plan (adaptive plans and query stages included, depth first)
   * that {@code match} accepts, or null.
   */
  static SparkPlan findPlan(SparkPlan plan, java.util.function.Predicate<SparkPlan> match) {
    if (match.test(plan)) {
      return plan;
    }
    if (plan instanceof AdaptiveSparkPlanExec) {
      return findPlan(((AdaptiveSparkPlanExec) plan).executedPlan(), match);
    }
    if (plan instanceof QueryStageExec) {
      return findPlan(((QueryStageExec) plan).plan(), match);
    }
    for (SparkPlan child : JavaConverters.seqAsJavaList(plan.children())) {
      SparkPlan found = findPlan(child, match);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /**
   * The rows of a plain projection of a cached table read through the serializer's columnar
   * output ({@code executeColumnar}: ArrowColumnVectors), turned into rows by Spark's own
   * ColumnarToRowExec. Vanilla Spark 4.0 reads caches row-wise unless a parent operator is
   * columnar, so this drives the columnar path the way a columnar engine would.
   */
  static List<String> rowsViaColumnarOutput(
      SparkSession spark, String projectionSql, boolean wholeStageCodegen) {
    Dataset<Row> df = spark.sql(projectionSql);
    InMemoryTableScanExec scan = cacheScan(df);
    if (scan == null || !scan.supportsColumnar()) {
      fail("no columnar cache scan in " + SparkLineSupport.classic(df).queryExecution().executedPlan());
    }
    SparkPlan toRows = new ColumnarToRowExec(scan);
    if (wholeStageCodegen) {
      // generated code casts each column to the vectorTypes the serializer declared
      toRows = new WholeStageCodegenExec(new ColumnarToRowExec(new InputAdapter(scan)), 1);
    }
    RDD<InternalRow> rows = toRows.execute();
    return rows(SparkLineSupport.fromInternalRows(spark, rows, scan.schema()));
  }

  // ---- exact result comparison ----

  /** The query's rows rendered exactly (NaN, -0.0, bytes, nested values), sorted. */
  public static List<String> rows(SparkSession spark, String sql) {
    return rows(spark.sql(sql));
  }

  public static List<String> rows(Dataset<Row> df) {
    List<Row> collected = df.collectAsList();
    List<String> out = new ArrayList<>(collected.size());
    for (Row r : collected) {
      out.add(render(r));
    }
    Collections.sort(out);
    return out;
  }

  /** Runs tagged queries (see {@link TestTables.Query}); rendered rows by query number. */
  public static Map<Integer, List<String>> tagged(SparkSession spark, String sql) {
    Map<Integer, List<String>> out = new java.util.TreeMap<>();
    for (Row r : spark.sql(sql).collectAsList()) {
      out.computeIfAbsent(r.getInt(0), k -> new ArrayList<>()).add(String.valueOf(r.get(1)));
    }
    for (List<String> l : out.values()) {
      Collections.sort(l);
    }
    return out;
  }

  /** Every query of {@code queries} has the same rows in {@code actual} as in {@code expected}. */
  public static void assertSameTagged(
      List<TestTables.Query> queries,
      Map<Integer, List<String>> expected,
      Map<Integer, List<String>> actual,
      String what) {
    StringBuilder failures = new StringBuilder();
    for (TestTables.Query q : queries) {
      List<String> e = expected.getOrDefault(q.number, Collections.emptyList());
      List<String> a = actual.getOrDefault(q.number, Collections.emptyList());
      if (!e.equals(a)) {
        List<String> missing = new ArrayList<>(e);
        missing.removeAll(a);
        List<String> extra = new ArrayList<>(a);
        extra.removeAll(e);
        failures
            .append("\n  ")
            .append(q)
            .append(": expected ")
            .append(e.size())
            .append(" rows, got ")
            .append(a.size())
            .append("; missing ")
            .append(head(missing))
            .append("; unexpected ")
            .append(head(extra));
      }
    }
    if (failures.length() > 0) {
      fail(what + ":" + failures + "\n  metrics: " + TableCacheMetrics.summary());
    }
  }

  private static List<String> head(List<String> l) {
    List<String> out = new ArrayList<>();
    for (String s : l.subList(0, Math.min(3, l.size()))) {
      out.add(s.length() > 200 ? s.substring(0, 200) + "…" : s);
    }
    return out;
  }

  public static void assertSameRows(List<String> expected, List<String> actual, String what) {
    if (!expected.equals(actual)) {
      StringBuilder sb = new StringBuilder();
      sb.append(what)
          .append(": expected ")
          .append(expected.size())
          .append(" rows, got ")
          .append(actual.size());
      List<String> missing = new ArrayList<>(expected);
      missing.removeAll(actual);
      List<String> extra = new ArrayList<>(actual);
      extra.removeAll(expected);
      sb.append("\n  missing (first 5): ").append(missing.subList(0, Math.min(5, missing.size())));
      sb.append("\n  unexpected (first 5): ").append(extra.subList(0, Math.min(5, extra.size())));
      sb.append("\n  metrics: ").append(TableCacheMetrics.summary());
      fail(sb.toString());
    }
    assertEquals(expected.size(), actual.size());
  }

  static String render(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Row) {
      Row r = (Row) v;
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < r.length(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(render(r.get(i)));
      }
      return sb.append(']').toString();
    }
    if (v instanceof byte[]) {
      StringBuilder sb = new StringBuilder("0x");
      for (byte b : (byte[]) v) {
        sb.append(String.format("%02x", b & 0xFF));
      }
      return sb.toString();
    }
    if (v instanceof Double) {
      return "d:" + Double.toString((Double) v) + "/" + Long.toHexString(Double.doubleToRawLongBits((Double) v));
    }
    if (v instanceof Float) {
      return "f:" + Float.toString((Float) v) + "/" + Integer.toHexString(Float.floatToRawIntBits((Float) v));
    }
    if (v instanceof BigDecimal) {
      return "dec:" + ((BigDecimal) v).toString();
    }
    if (v instanceof scala.collection.Map) {
      List<String> entries = new ArrayList<>();
      for (Map.Entry<?, ?> e :
          JavaConverters.mapAsJavaMap((scala.collection.Map<?, ?>) v).entrySet()) {
        entries.add(render(e.getKey()) + "->" + render(e.getValue()));
      }
      Collections.sort(entries);
      return "map" + entries;
    }
    if (v instanceof scala.collection.Seq) {
      List<String> items = new ArrayList<>();
      for (Object o : JavaConverters.seqAsJavaList((scala.collection.Seq<?>) v)) {
        items.add(render(o));
      }
      return "seq" + items;
    }
    return v.getClass().getSimpleName() + ":" + v;
  }
}
