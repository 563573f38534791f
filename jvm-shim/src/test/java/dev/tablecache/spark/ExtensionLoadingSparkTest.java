package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.compat.SparkCompat;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import org.apache.spark.sql.execution.ColumnarRule;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The columnar read rule needs no setting beyond the serializer: the jar registers {@link
 * TableCacheExtensions} for Java's ServiceLoader, and naming it in {@code spark.sql.extensions}
 * too must not install the rule twice.
 */
@Tag("spark")
class ExtensionLoadingSparkTest {

  @Test
  void jarRegistersTheExtensionForServiceLoader() {
    boolean found = false;
    for (SparkSessionExtensionsProvider p : ServiceLoader.load(SparkSessionExtensionsProvider.class)) {
      found |= p instanceof TableCacheExtensions;
    }
    assertTrue(found, "META-INF/services does not name TableCacheExtensions");
  }

  @ParameterizedTest
  @ValueSource(strings = {"service-loader", "service-loader+spark.sql.extensions"})
  void installsTheRuleExactlyOnce(String loading) {
    Map<String, String> conf = SparkTestSupport.conf("spark.tablecache.columnarRead", "true");
    if (loading.contains("spark.sql.extensions")) {
      conf.put("spark.sql.extensions", TableCacheExtensions.class.getName());
    }
    SparkSession spark = SparkTestSupport.start("extension-loading", conf);
    try {
      Dataset<Row> table = spark.range(0, 500, 1, 2).selectExpr("id", "id % 7 AS k");
      table.cache();
      assertEquals(500L, table.count());
      Dataset<Row> df = table.groupBy("k").sum("id");
      List<ColumnarRule> rules =
          SparkCompat.toJava(
              SparkLineSupport.classic(df).sparkSession().sessionState().columnarRules());
      long ours = rules.stream().filter(r -> r instanceof TableCacheExtensions.CacheReadColumnarRule).count();
      assertEquals(1L, ours, loading + ": columnar rules " + rules);
      assertTrue(
          SparkTestSupport.cacheScan(df).supportsColumnar(), "scan is not column-capable");
      assertEquals(7, df.collectAsList().size());
      table.unpersist(true);
    } finally {
      SparkTestSupport.stop(spark);
    }
  }
}
