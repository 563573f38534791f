package dev.tablecache;

import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.format.CheckedFrame;
import dev.tablecache.format.FrameParser;
import dev.tablecache.jni.BatchExporter;
import dev.tablecache.jni.BatchImporter;
import dev.tablecache.jni.Capability;
import dev.tablecache.jni.NativeCodec;
import dev.tablecache.jni.NativeColumn;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The entry point: writes Arrow batches as cached-batch frames and decodes them back, through the
 * native library. Formats mix freely, so any frame this or an older release wrote decodes here.
 *
 * <p>When the library is unusable every method here throws {@link TableCacheException} of kind
 * {@link Kind#NATIVE_UNAVAILABLE} naming the cause, never {@link UnsatisfiedLinkError}.
 */
public final class TableCache {

  private TableCache() {}

  /** Whether the native library is loaded, verified and able to write some format. */
  public static boolean isAvailable() {
    return Capability.current() != Capability.UNAVAILABLE;
  }

  /**
   * The format {@link #serialize} writes with these options on this JVM: the preferred format if
   * the capability allows it, else the next older one (V4 → V3 → V2 → legacy). V2 always carries
   * stats, so with stats off it is skipped. V4 is written only when preferred: the default
   * preference is V3.
   *
   * @throws TableCacheException NATIVE_UNAVAILABLE when nothing can be written
   */
  public static CacheFormat formatFor(WriteOptions options) {
    WriteOptions o = options == null ? WriteOptions.defaults() : options;
    Capability.requireAvailable();
    Capability cap = Capability.current();
    CacheFormat[] order = CacheFormat.values(); // V4, V3, V2, LEGACY: newest first
    for (int i = o.preferredFormat().ordinal(); i < order.length; i++) {
      CacheFormat f = order[i];
      if (f == CacheFormat.V2 && !o.stats()) {
        continue;
      }
      if (cap.canWrite(f)) {
        return f;
      }
    }
    // Unreachable while every available capability writes legacy; kept as a clear error.
    throw new TableCacheException(
        Kind.NATIVE_UNAVAILABLE, "capability " + cap + " cannot write any format for " + o);
  }

  /**
   * Writes {@code batch} as one cached batch in the format {@link #formatFor} picks. The batch's
   * buffers are only read during the call.
   *
   * @throws TableCacheException NATIVE_UNAVAILABLE without a usable library, UNSUPPORTED_TYPE for
   *     a type the format does not carry, INVALID_ARGUMENT for a malformed batch
   */
  public static byte[] serialize(VectorSchemaRoot batch, WriteOptions options) {
    try (BatchExporter.Exported e = BatchExporter.export(batch)) {
      return serialize(e, options);
    }
  }

  /**
   * Serializes a batch already described by address ({@link BatchExporter}, or {@code
   * RelocatedArrowExporter} for an engine's relocated Arrow vectors), whose buffers stay alive
   * until this returns.
   *
   * @throws TableCacheException as {@link #serialize(VectorSchemaRoot, WriteOptions)}
   */
  public static byte[] serialize(BatchExporter.Exported batch, WriteOptions options) {
    WriteOptions o = options == null ? WriteOptions.defaults() : options;
    CacheFormat format = formatFor(o);
    return NativeCodec.serialize(
        batch.schema,
        batch.rowCount,
        batch.nodes,
        batch.buffers,
        nativeFormat(format),
        o.stats(),
        o.codec().id(),
        o.encodingPolicy().code(),
        o.stringBoundLimit());
  }

  /**
   * The format number of the native write request (NativeCodec.serialize): the frame's version
   * byte, except legacy, which the request numbers 1 (its frames have no version byte).
   */
  private static int nativeFormat(CacheFormat format) {
    return format == CacheFormat.LEGACY ? 1 : format.versionByte();
  }

  /**
   * Whether {@link #serializeUnsafeRows} can write batches of this schema: the native side keeps
   * the list of column types whose {@code UnsafeRow} form it reads (flat types: booleans,
   * integers, floats, dates, timestamps, decimals, strings, binary).
   *
   * @throws TableCacheException NATIVE_UNAVAILABLE without a usable library
   */
  public static boolean canSerializeUnsafeRows(EncodedSchema schema) {
    Capability.requireAvailable();
    return NativeCodec.unsafeRowsSupported(schema.message());
  }

  /**
   * Writes one cached batch from Spark {@code UnsafeRow}s that the caller copied back to back
   * into off-heap memory (docs/ARCHITECTURE.md, "Row input"): row {@code i} is the bytes {@code
   * [starts[i], starts[i + 1])} after {@code rowsAddress}, {@code starts} being {@code rowCount +
   * 1} longs at {@code startsAddress}. The native side transposes them into columns, so no
   * per-value Java writer runs. Both regions are only read during the call.
   *
   * @param schema the batch's Arrow schema, encoded once per writer
   * @throws TableCacheException NATIVE_UNAVAILABLE without a usable library, UNSUPPORTED_TYPE for
   *     a type without an UnsafeRow reader, INVALID_ARGUMENT for rows that do not fit the schema
   */
  public static byte[] serializeUnsafeRows(
      EncodedSchema schema,
      long rowsAddress,
      long rowsLength,
      long startsAddress,
      int rowCount,
      WriteOptions options) {
    WriteOptions o = options == null ? WriteOptions.defaults() : options;
    CacheFormat format = formatFor(o);
    return NativeCodec.serializeUnsafeRows(
        schema.message(),
        rowsAddress,
        rowsLength,
        startsAddress,
        rowCount,
        nativeFormat(format),
        o.stats(),
        o.codec().id(),
        o.encodingPolicy().code(),
        o.stringBoundLimit());
  }

  /**
   * Decodes a cached batch of any format. The returned root's vectors point at native memory,
   * which is freed when the caller closes the root (or its vectors).
   *
   * @param projection the columns to decode, in the order wanted; null = all, empty = none (a
   *     root with no fields and the batch's row count)
   * @throws TableCacheException with the native reader's kind for a bad frame,
   *     COLUMN_OUT_OF_RANGE for a projection past the last column
   */
  public static VectorSchemaRoot deserialize(
      byte[] frame, int[] projection, BufferAllocator allocator) {
    checkRootArguments(frame, allocator);
    return decode(
        frame,
        null,
        projection,
        false,
        (descriptor, schema, columns) ->
            BatchImporter.importBatch(descriptor, schema, columns, allocator));
  }

  /**
   * {@link #deserialize(byte[], int[], BufferAllocator)} of a frame the caller has parsed ({@link
   * FrameParser#check}): its schema comes from that parse instead of from the frame again. The
   * native decoder still checks the whole frame.
   *
   * @throws TableCacheException as {@link #deserialize(byte[], int[], BufferAllocator)}
   */
  public static VectorSchemaRoot deserializeChecked(
      CheckedFrame frame, int[] projection, BufferAllocator allocator) {
    checkRootArguments(frame, allocator);
    return decode(
        frame.frame(),
        frame,
        projection,
        false,
        (descriptor, schema, columns) ->
            BatchImporter.importBatch(descriptor, schema, columns, allocator));
  }

  private static void checkRootArguments(Object frame, BufferAllocator allocator) {
    if (frame == null || allocator == null) {
      throw new TableCacheException(
          Kind.INVALID_ARGUMENT, (frame == null ? "frame" : "allocator") + " is null");
    }
  }

  /**
   * Decodes flat columns of a cached batch of any format and leaves them in native memory,
   * without Arrow Java vectors: for readers that take values by address. A string or binary
   * column that the frame stores as a string dictionary comes back as one ({@link
   * NativeColumn#dictionary}): keys over entries, never materialised. The caller releases every
   * returned column exactly once.
   *
   * @param projection the columns to decode, in the order wanted (at least one)
   * @throws TableCacheException with the native reader's kind for a bad frame,
   *     COLUMN_OUT_OF_RANGE for a projection past the last column, UNSUPPORTED_TYPE for a nested
   *     column
   */
  public static NativeColumn[] deserializeColumns(byte[] frame, int[] projection) {
    checkColumnsArguments(frame, projection);
    return decode(frame, null, projection, true, BatchImporter::importColumns);
  }

  /**
   * {@link #deserializeColumns(byte[], int[])} of a frame the caller has parsed ({@link
   * FrameParser#check}): its schema comes from that parse instead of from the frame again. The
   * native decoder still checks the whole frame.
   *
   * @throws TableCacheException as {@link #deserializeColumns(byte[], int[])}
   */
  public static NativeColumn[] deserializeColumnsChecked(CheckedFrame frame, int[] projection) {
    return deserializeColumnsChecked(frame, projection, true);
  }

  /**
   * {@link #deserializeColumnsChecked(CheckedFrame, int[])}, with string dictionaries kept as
   * dictionaries only when {@code dictionaryStrings} (else every column in its type's Arrow
   * layout).
   *
   * @throws TableCacheException as {@link #deserializeColumns(byte[], int[])}
   */
  public static NativeColumn[] deserializeColumnsChecked(
      CheckedFrame frame, int[] projection, boolean dictionaryStrings) {
    checkColumnsArguments(frame, projection);
    return decode(
        frame.frame(), frame, projection, dictionaryStrings, BatchImporter::importColumns);
  }

  private static void checkColumnsArguments(Object frame, int[] projection) {
    if (frame == null || projection == null || projection.length == 0) {
      throw new TableCacheException(
          Kind.INVALID_ARGUMENT, frame == null ? "frame is null" : "no columns to decode");
    }
  }

  /** How a native decode descriptor becomes what the caller reads. */
  private interface Importer<T> {
    T importFrom(long[] descriptor, Schema frameSchema, int[] projection);
  }

  /**
   * The native decode of {@code projection} (null = all columns), imported by {@code to} under
   * the schema of {@code checked}, the caller's parse of the frame, or without one, the schema
   * found in the frame. With {@code dictionaryStrings}, string dictionaries come back as
   * dictionaries ({@link NativeColumn#dictionary}).
   */
  private static <T> T decode(
      byte[] frame,
      CheckedFrame checked,
      int[] projection,
      boolean dictionaryStrings,
      Importer<T> to) {
    Capability.requireAvailable();
    int[] columns = projection == null ? null : projection.clone(); // immune to caller changes
    long[] descriptor = NativeCodec.deserializeProjected(frame, columns, dictionaryStrings);
    Schema schema;
    try {
      // The native call validated the frame; this only finds its schema: the caller's parse
      // has it, else the frame's bytes find it (usually in the cache of decoded schemas).
      schema = checked != null ? checked.schema() : FrameParser.schemaOf(frame);
    } catch (RuntimeException | Error e) {
      BatchImporter.releaseAll(descriptor, e);
      throw e;
    }
    return to.importFrom(descriptor, schema, columns);
  }
}
