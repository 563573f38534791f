package dev.tablecache.spark;

import dev.tablecache.spark.metrics.ExecutorMetricSet;
import java.util.Map;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Optional Spark plugin ({@code spark.plugins=dev.tablecache.spark.TableCachePlugin}) that
 * publishes each executor's tablecache counters ({@link ExecutorMetricSet}) in Spark's metrics
 * system, where the configured sinks (JMX, CSV, Prometheus, ...) report them. It has no driver
 * part and changes nothing else: without it the counters are still kept, just not published.
 */
public final class TableCachePlugin implements SparkPlugin {

  @Override
  public DriverPlugin driverPlugin() {
    return null;
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new MetricsExecutorPlugin();
  }

  /** Registers the metric set in the executor's plugin registry when the executor starts. */
  static final class MetricsExecutorPlugin implements ExecutorPlugin {
    @Override
    public void init(PluginContext ctx, Map<String, String> extraConf) {
      ctx.metricRegistry().registerAll(new ExecutorMetricSet());
    }
  }
}
