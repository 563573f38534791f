package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link TableCachePlugin} in local mode, read through Spark's JmxSink from this JVM's MBean
 * server: on every Spark line the counters appear under the plugin's source and move exactly as
 * the work done. (tests/e2e_metrics.py checks the same on local-cluster, over JMX remoting.) The
 * table is range(0, 1200) in 4 partitions with batches of 100 rows: 12 batches with disjoint id
 * ranges, of which a filter {@code id < 200} keeps exactly 2.
 */
@Tag("spark")
class TableCachePluginSparkTest {

  private static final String PLUGIN = ".plugin." + TableCachePlugin.class.getName() + ".";
  private static final int BATCHES = 12;

  @Test
  void countersReachTheJmxSinkAndMatchTheWork() throws Exception {
    String namespace = "tablecache-plugin-test";
    SparkSession spark = SparkTestSupport.start("plugin-metrics", sinkConf(namespace, true));
    try {
      Map<String, Long> before = read(namespace);
      assertEquals(31, before.size(), "published metrics: " + before.keySet());

      Dataset<Row> table = spark.range(0, 100 * BATCHES, 1, 4).toDF().cache();
      assertEquals(100L * BATCHES, table.count());
      Map<String, Long> cached = read(namespace);
      assertEquals(BATCHES, moved(before, cached, "framesWritten.v4"), "V4 is the default");
      assertEquals(0, moved(before, cached, "framesWritten.v3"));
      assertEquals(BATCHES, moved(before, cached, "framesWritten.unsafeRows"));
      // One long column: an UnsafeRow is an 8-byte null bitset plus the value.
      assertEquals(16L * 100 * BATCHES, moved(before, cached, "write.unsafeRowInputBytes"));
      assertTrue(moved(before, cached, "write.storedBytes") > 0, cached.toString());
      assertTrue(moved(before, cached, "write.encodeNanos") > 0, cached.toString());

      assertEquals(200L, table.filter("id < 200").count());
      Map<String, Long> filtered = read(namespace);
      assertEquals(2, moved(cached, filtered, "read.batchesKept"));
      assertEquals(BATCHES - 2, moved(cached, filtered, "read.batchesPruned"));
      assertEquals(2, moved(cached, filtered, "read.batchesDecoded"));
      assertTrue(moved(cached, filtered, "read.decodeNanos") > 0, filtered.toString());
      assertEquals(0L, filtered.get("read.liveDecodedBatches"));
      assertEquals(0L, filtered.get("native.liveHandles"));
      table.unpersist(true);
    } finally {
      SparkTestSupport.stop(spark);
    }
  }

  @Test
  void withoutThePluginNothingIsPublished() throws Exception {
    String namespace = "tablecache-no-plugin-test";
    SparkSession spark = SparkTestSupport.start("no-plugin", sinkConf(namespace, false));
    try {
      assertEquals(3L, spark.range(3).toDF().cache().count());
      assertFalse(names(namespace).isEmpty(), "the JMX sink publishes Spark's own metrics");
      assertTrue(read(namespace).isEmpty());
    } finally {
      SparkTestSupport.stop(spark);
    }
  }

  private static Map<String, String> sinkConf(String namespace, boolean plugin) {
    Map<String, String> conf = new HashMap<>();
    if (plugin) {
      conf.put("spark.plugins", TableCachePlugin.class.getName());
    }
    conf.put("spark.metrics.conf.*.sink.jmx.class", "org.apache.spark.metrics.sink.JmxSink");
    conf.put("spark.metrics.namespace", namespace);
    return conf;
  }

  private static long moved(Map<String, Long> from, Map<String, Long> to, String name) {
    assertTrue(to.containsKey(name), name + " not published: " + to.keySet());
    return to.get(name) - from.get(name);
  }

  private static Map<String, ObjectName> names(String namespace) throws Exception {
    Map<String, ObjectName> names = new TreeMap<>();
    for (ObjectName n : server().queryNames(new ObjectName("metrics:*"), null)) {
      String name = n.getKeyProperty("name");
      if (name != null && name.startsWith(namespace + ".")) {
        names.put(name, n);
      }
    }
    return names;
  }

  /** The plugin's metrics by short name, as the JmxSink exposes them. */
  private static Map<String, Long> read(String namespace) throws Exception {
    Map<String, Long> values = new TreeMap<>();
    for (Map.Entry<String, ObjectName> e : names(namespace).entrySet()) {
      int at = e.getKey().indexOf(PLUGIN);
      if (at < 0) {
        continue;
      }
      ObjectName n = e.getValue();
      // Dropwizard's JmxReporter: counters expose Count, gauges Value.
      String attribute = "counters".equals(n.getKeyProperty("type")) ? "Count" : "Value";
      Object v = server().getAttribute(n, attribute);
      values.put(e.getKey().substring(at + PLUGIN.length()), ((Number) v).longValue());
    }
    return values;
  }

  private static MBeanServer server() {
    return ManagementFactory.getPlatformMBeanServer();
  }
}
