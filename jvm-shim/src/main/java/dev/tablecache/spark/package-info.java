/**
 * Spark's table cache ({@code df.cache()}, {@code persist(level)}, {@code CACHE TABLE}) through
 * tablecache's native frames: {@link dev.tablecache.spark.NativeCachedBatchSerializer}.
 *
 * <h2>Use</h2>
 *
 * <pre>
 * spark-submit --jars tablecache-&lt;version&gt;.jar \
 *   --conf spark.sql.cache.serializer=dev.tablecache.spark.NativeCachedBatchSerializer ...
 * </pre>
 *
 * {@code spark.sql.cache.serializer} is a static conf: set it before the session starts. With
 * {@code spark.kryo.registrationRequired=true} also set {@code
 * spark.kryo.registrator=dev.tablecache.spark.TableCacheKryoRegistrator} (or add {@code
 * dev.tablecache.spark.NativeCachedBatch} to {@code spark.kryo.classesToRegister}).
 *
 * <h2>Configuration (runtime SQL confs, read when a cache is built)</h2>
 *
 * <table>
 *   <caption>spark.tablecache.* keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>spark.tablecache.format</td><td>v4</td><td>v4 | v3 | v2 | legacy: preferred frame
 *       format; an older library falls back V4 → V3 → V2 → legacy (V2 needs stats). V4 stores
 *       each buffer in its own lightweight encoding; v3 is the format before it.</td></tr>
 *   <tr><td>spark.tablecache.stats</td><td>true</td><td>write min/max/null-count stats
 *       (needed for batch pruning).</td></tr>
 *   <tr><td>spark.tablecache.codec</td><td>adaptive</td><td>adaptive | lz4 | zstd | none | auto:
 *       adaptive takes lz4, or zstd where it stores at most 4/5 of lz4's bytes, and stores raw
 *       where neither saves 1/8; auto is lz4, stored raw when it saves less than 1/8.</td></tr>
 *   <tr><td>spark.tablecache.encoding</td><td>auto</td><td>auto | byte_stream_split | plain:
 *       how the encoding of each V3/V2 payload is chosen before the codec. auto: the writer
 *       chooses (today byte stream split, which stores fixed-width values one stream per byte
 *       position so that lz4/zstd compress them better, wherever it changes a buffer); a name
 *       pins that encoding, for tests and benchmarks (legacy is always plain). In V4 it applies
 *       to each buffer: auto chooses among the lightweight encodings.</td></tr>
 *   <tr><td>spark.tablecache.batchRows</td><td>spark.sql.inMemoryColumnarStorage.batchSize
 *       (10000)</td><td>rows per cached batch.</td></tr>
 *   <tr><td>spark.tablecache.batchBytes</td><td>32m</td><td>coalescing target: a batch is
 *       closed when its Arrow buffers reach this size (at most 1g).</td></tr>
 *   <tr><td>spark.tablecache.zeroCopyMinRows</td><td>batchRows / 2</td><td>Arrow input batches
 *       ({@code ArrowColumnVector}s of the cache's types) with at least this many rows are cached
 *       as they are, without a copy; smaller ones are copied and coalesced.</td></tr>
 *   <tr><td>spark.tablecache.stringBoundLimit</td><td>256</td><td>bytes kept of a string
 *       min/max bound.</td></tr>
 *   <tr><td>spark.tablecache.onUnavailable</td><td>fallback</td><td>fallback | fail: when the
 *       native library cannot be used on the driver, cache with Spark's default serializer (one
 *       warning with the cause) or fail the query.</td></tr>
 *   <tr><td>spark.tablecache.unsafeRowInput</td><td>true</td><td>cache rows by handing their
 *       UnsafeRow bytes to the native writer (flat column types); false: Spark's
 *       ArrowWriter.</td></tr>
 *   <tr><td>spark.tablecache.columnarInput</td><td>true</td><td>build caches from columnar input
 *       where Spark offers it (not while Apache Gluten is enabled); false: always from rows. Read
 *       when a cache is defined.</td></tr>
 *   <tr><td>spark.tablecache.comet.zeroCopyRead</td><td>true</td><td>under Comet: decode our
 *       caches straight into Comet's Arrow; false: Comet's own conversion. Read when a query is
 *       planned.</td></tr>
 *   <tr><td>spark.tablecache.columnarRead</td><td>true</td><td>read our caches through columnar
 *       whole-stage code ({@code TableCacheExtensions}); false: Spark's row path. Read when a
 *       query is planned.</td></tr>
 *   <tr><td>spark.tablecache.aggregatesFromStats</td><td>true</td><td>answer the partial half of
 *       a global count/min/max over a cache from each batch's stats; false: Spark's partial
 *       aggregate. Read when a query is planned.</td></tr>
 * </table>
 *
 * <h2>Metrics (optional)</h2>
 *
 * {@code spark.plugins=dev.tablecache.spark.TableCachePlugin} publishes each executor's counters
 * ({@link dev.tablecache.spark.metrics.TableCacheMetrics}, named by {@link
 * dev.tablecache.spark.metrics.ExecutorMetricSet}) in Spark's metrics system; README, "Metrics",
 * lists them.
 *
 * <h2>What this package holds</h2>
 *
 * Only the entry points Spark and users name, and what they cannot be split from: {@code
 * NativeCachedBatchSerializer} (compiled once per Spark line) with the line-independent bodies of
 * its SPI methods ({@link dev.tablecache.spark.SerializerCore}) and the per-partition functions
 * they ship to executors ({@link dev.tablecache.spark.PartitionFunctions}); the cached batch
 * ({@link dev.tablecache.spark.NativeCachedBatch}, with its checked stored form {@link
 * dev.tablecache.spark.StoredForm}); {@link dev.tablecache.spark.TableCacheExtensions}, {@link
 * dev.tablecache.spark.TableCachePlugin}, {@link dev.tablecache.spark.TableCacheKryoRegistrator},
 * and the settings ({@link dev.tablecache.spark.TableCacheConf}). The work is in packages by role,
 * each with its own {@code package-info} saying what it owns and what it may use:
 *
 * <ul>
 *   <li>{@link dev.tablecache.spark.write}: rows and columnar batches to frames.
 *   <li>{@link dev.tablecache.spark.read}: frames to column vectors and rows.
 *   <li>{@link dev.tablecache.spark.stats}: pruning, stats rows, partial aggregates from stats.
 *   <li>{@link dev.tablecache.spark.plan}: the extension's planner rules.
 *   <li>{@link dev.tablecache.spark.engine.comet}, {@link dev.tablecache.spark.engine.foreign}:
 *       Comet's zero-copy read; columnar input from engines whose vectors cannot be read.
 *   <li>{@link dev.tablecache.spark.heal}: damaged blocks dropped and recomputed.
 *   <li>{@link dev.tablecache.spark.memory}: task allocators and decoded memory as execution
 *       memory.
 *   <li>{@link dev.tablecache.spark.metrics}: the counters.
 *   <li>{@link dev.tablecache.spark.fallback}: ours or Spark's default serializer, per cache.
 *   <li>{@link dev.tablecache.spark.compat}: everything that differs between Spark lines.
 * </ul>
 *
 * <p>Java has no visibility between "package-private" and "public", so a class or member one of
 * these packages uses from another is public; everything used only inside its package stays
 * package-private. None of it is API: only the entry points above are.
 *
 * <h2>Design</h2>
 *
 * <ul>
 *   <li>Writing: rows go to the native writer as their {@code UnsafeRow} bytes (flat types), else
 *       to Arrow with Spark's {@code ArrowWriter} (vectors reused per task, from a
 *       per-task child of Spark's Arrow allocator, freed at task end); columnar input is handed
 *       over without a copy when it already is Arrow of the right shape, else copied once and
 *       coalesced ({@link dev.tablecache.spark.write.ColumnarToFrames}).
 *   <li>A cached batch is {@link dev.tablecache.spark.NativeCachedBatch}: row count and frame bytes
 *       on heap; stats are parsed from the frame lazily, in pure Java.
 *   <li>Pruning: {@link dev.tablecache.spark.stats.StatsPredicates} (NaN-correct, missing bound =
 *       unbounded, no bound pruning for collated strings and intervals).
 *   <li>Reading: only the selected columns are decoded; a task holds at most one decoded batch
 *       ({@link dev.tablecache.spark.read.FrameDecoder}). Columnar output is {@link
 *       dev.tablecache.spark.read.NativeColumnVector}s for flat types, ArrowColumnVectors for
 *       nested ones; row output copies each row into an UnsafeRow.
 *   <li>Everything Spark-version-specific is in {@link dev.tablecache.spark.compat} ({@link
 *       dev.tablecache.spark.compat.SparkCompat}, {@code SparkLine}), but for the per-line
 *       overrides of {@code NativeCachedBatchSerializer} and {@code
 *       plan.TableCacheScanMetricsExec}.
 * </ul>
 */
package dev.tablecache.spark;
