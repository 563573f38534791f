/**
 * Apache DataFusion Comet reading our caches without a copy: {@link
 * dev.tablecache.spark.engine.comet.CometCacheScanRule} replaces Comet's copying conversion over
 * our scans with an adapter compiled against the Comet on the classpath ({@link
 * dev.tablecache.spark.engine.comet.CometScanAdapter}), which feeds Comet's native operators our
 * decoded batches exported through the Arrow C Data interface into Comet's shaded Arrow ({@link
 * dev.tablecache.spark.engine.comet.CometBatchDecoder}, {@link
 * dev.tablecache.spark.engine.comet.CometArrow}). A Comet whose API differs keeps its own copying
 * conversion, with one INFO line. {@link dev.tablecache.spark.engine.comet.CometReadDefaults} turns on
 * Comet's conversion of cache scans for sessions that read our caches (an explicit setting wins).
 *
 * <p>May use: Comet only by reflection and generated code (it is not a compile dependency), {@code
 * dev.tablecache.jni} (Arrow C export), {@code spark.compat}, {@code spark.read}, {@code
 * spark.memory}, {@code spark.metrics}, {@code spark.plan}, and the entry points in {@code
 * dev.tablecache.spark}.
 */
package dev.tablecache.spark.engine.comet;
