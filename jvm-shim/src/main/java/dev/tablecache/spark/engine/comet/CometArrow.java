package dev.tablecache.spark.engine.comet;

import static dev.tablecache.jni.Reflection.call;

import java.lang.reflect.Method;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Apache DataFusion Comet's Arrow, reached by reflection: tablecache neither bundles nor
 * compiles against Comet, whose Arrow Java is relocated to {@code org.apache.comet.shaded.arrow}
 * (its Arrow C Data classes keep their {@code org.apache.arrow.c} names). Through it a decoded
 * column crosses into a {@code CometVector} without a copy: Comet's allocator makes an {@code
 * ArrowArray} and an {@code ArrowSchema}, the native decoder fills them, and Comet's {@code
 * Data.importVector} takes them over.
 */
public final class CometArrow {

  private static volatile CometArrow instance;

  private final Object allocator;
  private final Method newArray;
  private final Method newSchema;
  private final Method arrayAddress;
  private final Method schemaAddress;
  private final Method releaseArray;
  private final Method releaseSchema;
  private final Method closeArray;
  private final Method closeSchema;
  private final Method importVector;
  private final Method cometVector;
  private final Method bufferSize;

  private CometArrow(ClassLoader loader) throws ReflectiveOperationException {
    Class<?> cometPackage = Class.forName("org.apache.comet.package$", true, loader);
    Object module = cometPackage.getField("MODULE$").get(null);
    allocator = cometPackage.getMethod("CometArrowAllocator").invoke(module);
    Class<?> bufferAllocator =
        Class.forName("org.apache.comet.shaded.arrow.memory.BufferAllocator", true, loader);
    Class<?> array = Class.forName("org.apache.arrow.c.ArrowArray", true, loader);
    Class<?> schema = Class.forName("org.apache.arrow.c.ArrowSchema", true, loader);
    newArray = array.getMethod("allocateNew", bufferAllocator);
    newSchema = schema.getMethod("allocateNew", bufferAllocator);
    arrayAddress = array.getMethod("memoryAddress");
    schemaAddress = schema.getMethod("memoryAddress");
    releaseArray = array.getMethod("release");
    releaseSchema = schema.getMethod("release");
    closeArray = array.getMethod("close");
    closeSchema = schema.getMethod("close");
    Class<?> provider = Class.forName("org.apache.arrow.c.CDataDictionaryProvider", true, loader);
    importVector =
        Class.forName("org.apache.arrow.c.Data", true, loader)
            .getMethod("importVector", bufferAllocator, array, schema, provider);
    Class<?> valueVector =
        Class.forName("org.apache.comet.shaded.arrow.vector.ValueVector", true, loader);
    Class<?> dictionaries =
        Class.forName(
            "org.apache.comet.shaded.arrow.vector.dictionary.DictionaryProvider", true, loader);
    cometVector =
        Class.forName("org.apache.comet.vector.CometVector", true, loader)
            .getMethod("getVector", valueVector, dictionaries);
    bufferSize = valueVector.getMethod("getBufferSize");
  }

  /**
   * Comet's Arrow in this JVM, or null when Comet (of a known API) is not visible from the
   * thread's context class loader (where Spark puts {@code --jars}) or ours. A miss is not
   * remembered: only tasks of a Comet plan ask, and a later thread may see Comet's jar.
   */
  public static CometArrow get() {
    CometArrow c = instance;
    if (c == null) {
      c = load(Thread.currentThread().getContextClassLoader());
      if (c == null) {
        c = load(CometArrow.class.getClassLoader());
      }
      instance = c;
    }
    return c;
  }

  /** Whether the Comet that {@code loader} sees has the Arrow API this class uses. */
  static boolean fits(ClassLoader loader) {
    return load(loader) != null;
  }

  private static CometArrow load(ClassLoader loader) {
    if (loader == null) {
      return null;
    }
    try {
      return new CometArrow(loader);
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return null; // no Comet here, or a Comet whose API differs
    }
  }

  /** A pair of C structs that the native decoder fills; close it once imported (or not). */
  final class CStructs implements AutoCloseable {
    private final Object array;
    private final Object schema;
    private boolean imported;
    /** The buffer bytes of the vector {@link #importColumn} made. */
    long importedBytes;
    final long arrayAddress;
    final long schemaAddress;

    private CStructs() {
      array = call(newArray, null, allocator);
      Object s;
      try {
        s = call(newSchema, null, allocator);
      } catch (RuntimeException e) {
        call(closeArray, array);
        throw e;
      }
      schema = s;
      arrayAddress = (long) call(CometArrow.this.arrayAddress, array);
      schemaAddress = (long) call(CometArrow.this.schemaAddress, schema);
    }

    /** Imports the filled structs as a CometVector; they are moved, so closing them is safe. */
    ColumnVector importColumn() {
      Object vector = call(importVector, null, allocator, array, schema, null);
      imported = true;
      importedBytes = ((Number) call(bufferSize, vector)).longValue();
      return (ColumnVector) call(cometVector, null, vector, null);
    }

    /** Releases what was exported but never imported, then frees the structs. */
    @Override
    public void close() {
      try {
        if (!imported) { // release is a no-op on structs the decoder never filled
          call(releaseArray, array);
          call(releaseSchema, schema);
        }
      } finally {
        call(closeArray, array);
        call(closeSchema, schema);
      }
    }
  }

  CStructs newStructs() {
    return new CStructs();
  }
}
