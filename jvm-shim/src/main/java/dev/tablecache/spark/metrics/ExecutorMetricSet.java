package dev.tablecache.spark.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The names under which {@code TableCachePlugin} publishes this executor's tablecache metrics
 * (README, "Metrics", lists them). Spark prefixes each with {@code
 * <namespace>.<executorId>.plugin.dev.tablecache.spark.TableCachePlugin.}.
 */
public final class ExecutorMetricSet implements MetricSet {

  @Override
  public Map<String, Metric> getMetrics() {
    Map<String, Metric> m = new LinkedHashMap<>();
    m.put("framesWritten.v4", TableCacheMetrics.FRAMES_WRITTEN_V4);
    m.put("framesWritten.v3", TableCacheMetrics.FRAMES_WRITTEN_V3);
    m.put("framesWritten.v2", TableCacheMetrics.FRAMES_WRITTEN_V2);
    m.put("framesWritten.legacy", TableCacheMetrics.FRAMES_WRITTEN_LEGACY);
    m.put("framesWritten.zeroCopy", TableCacheMetrics.ZERO_COPY_FRAMES);
    m.put("framesWritten.unsafeRows", TableCacheMetrics.UNSAFE_ROW_FRAMES);
    m.put("write.copiedInputBatches", TableCacheMetrics.COPIED_INPUT_BATCHES);
    m.put("write.arrowInputBytes", TableCacheMetrics.ARROW_INPUT_BYTES);
    m.put("write.unsafeRowInputBytes", TableCacheMetrics.UNSAFE_ROW_INPUT_BYTES);
    m.put("write.storedBytes", TableCacheMetrics.STORED_BYTES);
    m.put("write.encodeNanos", TableCacheMetrics.ENCODE_NANOS);
    m.put("read.batchesKept", TableCacheMetrics.BATCHES_KEPT);
    m.put("read.batchesPruned", TableCacheMetrics.BATCHES_PRUNED);
    m.put("read.batchesDecoded", TableCacheMetrics.BATCHES_DECODED);
    m.put("read.batchesRowsOnly", TableCacheMetrics.BATCHES_ROWS_ONLY);
    m.put("read.dictionaryColumns", TableCacheMetrics.DICTIONARY_COLUMNS);
    m.put("read.deferredColumnsDecoded", TableCacheMetrics.DEFERRED_COLUMNS_DECODED);
    m.put("read.deferredColumnsSkipped", TableCacheMetrics.DEFERRED_COLUMNS_SKIPPED);
    m.put("read.batchesFromStats", TableCacheMetrics.BATCHES_FROM_STATS);
    m.put("read.decodeNanos", TableCacheMetrics.DECODE_NANOS);
    m.put("read.liveDecodedBatches", TableCacheMetrics.LIVE_DECODED_BATCHES);
    m.put("read.rowReadersGenerated", TableCacheMetrics.ROW_READERS_GENERATED);
    m.put("read.rowReadersProjected", TableCacheMetrics.ROW_READERS_PROJECTED);
    m.put("batchesClosed", TableCacheMetrics.BATCHES_CLOSED);
    m.put("allocatorLeaks", TableCacheMetrics.ALLOCATOR_LEAKS);
    m.put("blocksDropped", TableCacheMetrics.BLOCKS_DROPPED);
    m.put("blocksDamagedAgain", TableCacheMetrics.BLOCKS_DAMAGED_AGAIN);
    m.put("native.liveHandles", nativeGauge(NativeMemory.LIVE_HANDLES));
    m.put("native.liveBytes", nativeGauge(NativeMemory.LIVE_BYTES));
    m.put("native.allocatedBytes", nativeGauge(NativeMemory.ALLOCATED_BYTES));
    m.put("native.residentBytes", nativeGauge(NativeMemory.RESIDENT_BYTES));
    return Collections.unmodifiableMap(m);
  }

  private static Gauge<Long> nativeGauge(int field) {
    return () -> NativeMemory.read(field);
  }
}
