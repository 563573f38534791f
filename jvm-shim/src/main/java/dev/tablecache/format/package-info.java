/**
 * The pure-Java reader of cached-batch frames (FORMAT.md): {@link
 * dev.tablecache.format.FrameParser} and what it returns ({@link
 * dev.tablecache.format.ParsedFrame}, {@link dev.tablecache.format.DirectoryEntry}, {@link
 * dev.tablecache.format.ColumnStats}, {@link dev.tablecache.format.BoundKind}), the legacy IPC
 * stream walker and the byte-level helpers (schema messages, their bounds and flatbuffer
 * verification, UTF-8, CRC32C, little-endian reads). It reads frames without the native
 * library, e.g. for Spark's pruning stats. It may use the value
 * types of {@code dev.tablecache} (the exception and the format, codec and encoding enums) but
 * must not depend on the {@code TableCache} facade, on {@link dev.tablecache.jni} or on Spark.
 */
package dev.tablecache.format;
