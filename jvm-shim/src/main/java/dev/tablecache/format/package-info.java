/**
 * The pure-Java reader of cached-batch frames (FORMAT.md): {@link
 * dev.tablecache.format.FrameParser} and what it returns ({@link
 * dev.tablecache.format.ParsedFrame}; {@link dev.tablecache.format.CheckedFrame}, what a read
 * keeps of its one parse of a batch; {@link dev.tablecache.format.DirectoryEntry}, {@link
 * dev.tablecache.format.ColumnStats}, {@link dev.tablecache.format.BoundKind}), the legacy IPC
 * stream walker, the JVM's table of column layouts ({@link dev.tablecache.format.ArrowLayout},
 * the mirror of the native one) and the byte-level helpers (schema messages, their bounds and
 * flatbuffer verification, UTF-8, CRC32C, little-endian reads). It reads frames without the
 * native library, e.g. for Spark's pruning stats; it reads headers, stats and directory entries,
 * never a column body, so a new encoding needs no change here. It may use the value
 * types of {@code dev.tablecache} (the exception and the format, codec and encoding enums) and
 * its {@code ErrorText}, but must not depend on the {@code TableCache} facade, on {@link
 * dev.tablecache.jni} or on Spark.
 */
package dev.tablecache.format;
