/**
 * Columnar input from native engines whose vectors cannot be read through Spark's getters (Apache
 * Gluten's Velox batches, and any engine like it): {@link
 * dev.tablecache.spark.engine.foreign.ForeignBatchGuard} recognises the engine, keeps its
 * columnar-to-row transition in the plan so that rows reach the cache writer, and names the vector
 * in the error when a foreign batch gets through anyway.
 *
 * <p>May use: Spark's plan and vector classes, {@code spark.read.NativeColumnVector} (our own
 * vectors are never foreign), {@code spark.TableCacheConf}.
 */
package dev.tablecache.spark.engine.foreign;
