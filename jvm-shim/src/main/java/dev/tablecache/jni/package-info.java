/**
 * Everything that touches libtablecache: {@link dev.tablecache.jni.NativeCodec}, the JNI surface
 * (its class and method names are bound by the Rust exports {@code
 * Java_dev_tablecache_jni_NativeCodec_*}: do not rename them), the loader {@link
 * dev.tablecache.jni.NativeLibrary}, the per-JVM {@link dev.tablecache.jni.Capability} probe, and
 * the batch hand-off both ways ({@link dev.tablecache.jni.BatchExporter} describes Arrow buffers
 * by address, {@link dev.tablecache.jni.BatchImporter} wraps native-owned buffers, which {@code
 * NativeColumnOwner} frees). It may use the value types of {@code dev.tablecache}, its {@code
 * ErrorText}, and the schema codec of {@link dev.tablecache.format}, but must not depend on the
 * {@code TableCache} facade or on Spark.
 */
package dev.tablecache.jni;
