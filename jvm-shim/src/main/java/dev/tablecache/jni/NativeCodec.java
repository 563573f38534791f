package dev.tablecache.jni;

/**
 * The JNI surface of libtablecache, exactly as docs/ARCHITECTURE.md defines it. Nothing here
 * loads the library: use {@link NativeLibrary} (or the {@code TableCache} facade)
 * first, otherwise these calls throw {@link UnsatisfiedLinkError}.
 *
 * <p>Every method reports failures as {@code dev.tablecache.TableCacheException}.
 */
public final class NativeCodec {

  private NativeCodec() {}

  /**
   * One cached batch from Arrow buffers described by address ({@code BatchExporter}): the write
   * request is {@code format} (4 = V4, 3 = V3, 2 = V2, which always has stats, 1 = legacy, which
   * has neither stats nor encodings), {@code stats}, {@code codec} (its {@code id()}), {@code
   * encodingPolicy} (its {@code code()}: -1 auto, else the id of the pinned encoding) and {@code
   * stringBoundLimit}. The buffers are only read during the call.
   */
  public static native byte[] serialize(
      byte[] schema,
      int rowCount,
      long[] nodes,
      long[] buffers,
      int format,
      boolean stats,
      int codec,
      int encodingPolicy,
      int stringBoundLimit);

  /**
   * One frame from Spark {@code UnsafeRow}s copied back to back into off-heap memory: row {@code
   * i} is the bytes {@code [starts[i], starts[i + 1])} after {@code rowsAddress}, where {@code
   * starts} is {@code rowCount + 1} longs at {@code startsAddress}. Both regions are only read
   * during the call. The write request is that of {@link #serialize}.
   */
  public static native byte[] serializeUnsafeRows(
      byte[] schema,
      long rowsAddress,
      long rowsLength,
      long startsAddress,
      int rowCount,
      int format,
      boolean stats,
      int codec,
      int encodingPolicy,
      int stringBoundLimit);

  /** Whether {@link #serializeUnsafeRows} reads every field of this (encoded Arrow) schema. */
  public static native boolean unsafeRowsSupported(byte[] schema);

  /**
   * Decodes any format. {@code columns == null} means all columns, an empty array only the row
   * count. Returns the descriptor of native-owned buffers described in docs/ARCHITECTURE.md.
   * With {@code dictionaryStrings}, a string or binary column that a V4 frame stores as a string
   * dictionary is described as its keys and entries (kind 1) rather than one value per row.
   */
  public static native long[] deserializeProjected(
      byte[] frame, int[] columns, boolean dictionaryStrings);

  /**
   * Decodes the projected columns into Arrow C Data Interface structs the caller allocated, one
   * {@code ArrowArray} and one {@code ArrowSchema} per projected column (by address, holding
   * nothing to release), and returns the row count. The structs are cleared (released state)
   * before the decode, so after an error they hold nothing. The caller then imports (moves)
   * each pair; until then it owns them and must release them.
   */
  public static native int decodeToArrowC(
      byte[] frame, int[] columns, long[] arrays, long[] schemas);

  /** Frees one decoded column; call exactly once per handle. */
  public static native void release(long handle);

  /** Highest format this library writes: 4 = V4, 3 = V3, 2 = V2, 1 = legacy. */
  public static native int capabilities();

  /** The library's version (its Cargo package version). */
  public static native String version();

  /**
   * The library's build id ({@code native/jni/build.rs}): {@code <target triple>-<profile>-<hash
   * of its sources, lock file, target, profile, features and compiler>}. The jar carries the id
   * of the library it was built with, and {@link NativeLibrary} refuses any other.
   */
  public static native String buildId();

  /**
   * {@code {live column handles, bytes held by them, allocator allocated bytes, allocator resident
   * bytes}} for leak and soak tests; the allocator figures come from jemalloc and are -1 when the
   * library was built without it.
   */
  public static native long[] allocationStats();

  /**
   * Panics inside the library, so tests can check that a panic reaches Java as an INTERNAL
   * {@code TableCacheException} naming its source file and line. Has no other effect.
   */
  public static native void panicForTest();
}
