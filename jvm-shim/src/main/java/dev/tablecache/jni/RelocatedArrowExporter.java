package dev.tablecache.jni;

import dev.tablecache.format.SchemaCodec;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Describes to the native writer, by address, vectors of a relocated copy of Arrow Java: the
 * copy an engine bundles under its own package names, such as Apache DataFusion Comet's {@code
 * org.apache.comet.shaded.arrow}. Their classes are not ours, so they are read by reflection,
 * through the public methods every Arrow Java {@code FieldVector} has; the walk is the one {@code
 * VectorUnloader} does (a node per vector, its field buffers, then its children, depth first).
 *
 * <p>Nothing is copied: the native call borrows the engine's buffers, so the caller must keep the
 * vectors alive and unmodified until it returns. Vectors whose Arrow type differs from the
 * cached column's (dictionaries, view or large types, another decimal precision) are refused
 * ({@link #exportOrNull} returns null) and the caller copies them instead.
 */
public final class RelocatedArrowExporter {

  private RelocatedArrowExporter() {}

  /** Methods by class: the vectors of one batch share a handful of classes. */
  private static final ClassValue<Methods> METHODS =
      new ClassValue<Methods>() {
        @Override
        protected Methods computeValue(Class<?> type) {
          return new Methods(type);
        }
      };

  /**
   * The relocated Arrow vector behind an engine's Spark column vector ({@code getValueVector()}),
   * or null when the column has none or it is not a relocated Arrow field vector. Vectors of our
   * own Arrow Java are not relocated (the caller exports them with {@link BatchExporter}).
   */
  public static Object relocatedVector(Object sparkColumn) {
    Method getter = METHODS.get(sparkColumn.getClass()).valueVector;
    if (getter == null) {
      return null;
    }
    Object vector = invoke(getter, sparkColumn);
    if (vector == null
        || vector instanceof org.apache.arrow.vector.ValueVector
        || !METHODS.get(vector.getClass()).isFieldVector()) {
      return null;
    }
    return vector;
  }

  /**
   * Unloads {@code vectors} (relocated field vectors, one per field of {@code expected}, each of
   * {@code rowCount} values), or returns null when any vector's shape differs from its field's.
   */
  public static BatchExporter.Exported exportOrNull(
      Schema expected, List<Object> vectors, int rowCount) {
    List<Field> fields = expected.getFields();
    if (fields.size() != vectors.size()) {
      return null;
    }
    for (int i = 0; i < fields.size(); i++) {
      Object v = vectors.get(i);
      if (valueCount(v) != rowCount || !sameShape(fields.get(i), v)) {
        return null;
      }
    }
    List<Long> nodes = new ArrayList<>();
    List<Long> buffers = new ArrayList<>();
    for (Object v : vectors) {
      unload(v, nodes, buffers);
    }
    return BatchExporter.borrowed(
        SchemaCodec.encode(expected), rowCount, toArray(nodes), toArray(buffers));
  }

  private static void unload(Object vector, List<Long> nodes, List<Long> buffers) {
    Methods m = METHODS.get(vector.getClass());
    nodes.add((long) valueCount(vector));
    nodes.add((long) (int) invoke(m.nullCount, vector));
    for (Object buf : (List<?>) invoke(m.fieldBuffers, vector)) {
      Methods b = METHODS.get(buf.getClass());
      long size = (long) invoke(b.readableBytes, buf);
      long reader = (long) invoke(b.readerIndex, buf);
      buffers.add(size == 0 ? 0 : (long) invoke(b.memoryAddress, buf) + reader);
      buffers.add(size);
    }
    for (Object child : (List<?>) invoke(m.children, vector)) {
      unload(child, nodes, buffers);
    }
  }

  /** The same rule as the cache's own input check: type equal, zoned-ness and unit for times. */
  private static boolean sameShape(Field expected, Object vector) {
    Methods m = METHODS.get(vector.getClass());
    Object field = invoke(m.field, vector);
    Methods f = METHODS.get(field.getClass());
    if (invoke(f.dictionary, field) != null
        || !sameType(expected.getType(), invoke(f.type, field))) {
      return false;
    }
    List<?> children = (List<?>) invoke(m.children, vector);
    List<Field> want = expected.getChildren();
    if (children.size() != want.size()) {
      return false;
    }
    for (int i = 0; i < want.size(); i++) {
      if (!sameShape(want.get(i), children.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Compares our ArrowType with a relocated one through its text, which Arrow Java derives from
   * every parameter of the type ("Int(64, true)", "Decimal(10, 2, 128)"); timestamps compare by
   * unit and zoned-ness only (Spark timestamps are UTC instants whatever the zone's name).
   */
  private static boolean sameType(ArrowType expected, Object actual) {
    if (expected instanceof ArrowType.Timestamp) {
      Methods t = METHODS.get(actual.getClass());
      if (t.unit == null || t.timezone == null) {
        return false;
      }
      ArrowType.Timestamp e = (ArrowType.Timestamp) expected;
      return e.getUnit().name().equals(String.valueOf(invoke(t.unit, actual)))
          && (e.getTimezone() == null) == (invoke(t.timezone, actual) == null);
    }
    return expected.toString().equals(actual.toString())
        && expected.getClass().getSimpleName().equals(actual.getClass().getSimpleName());
  }

  private static int valueCount(Object vector) {
    return (int) invoke(METHODS.get(vector.getClass()).valueCount, vector);
  }

  private static long[] toArray(List<Long> values) {
    long[] out = new long[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  private static Object invoke(Method method, Object target) {
    Objects.requireNonNull(method, "not a relocated Arrow object");
    return Reflection.call(method, target);
  }

  /** The public no-argument methods this class reads, each null where the class lacks it. */
  private static final class Methods {
    final Method valueVector;
    final Method field;
    final Method valueCount;
    final Method nullCount;
    final Method fieldBuffers;
    final Method children;
    final Method dictionary;
    final Method type;
    final Method unit;
    final Method timezone;
    final Method readableBytes;
    final Method readerIndex;
    final Method memoryAddress;

    Methods(Class<?> c) {
      valueVector = method(c, "getValueVector");
      field = method(c, "getField");
      valueCount = method(c, "getValueCount");
      nullCount = method(c, "getNullCount");
      fieldBuffers = method(c, "getFieldBuffers");
      children = method(c, "getChildrenFromFields");
      dictionary = method(c, "getDictionary");
      type = method(c, "getType");
      unit = method(c, "getUnit");
      timezone = method(c, "getTimezone");
      readableBytes = method(c, "readableBytes");
      readerIndex = method(c, "readerIndex");
      memoryAddress = method(c, "memoryAddress");
    }

    boolean isFieldVector() {
      return field != null
          && valueCount != null
          && nullCount != null
          && fieldBuffers != null
          && children != null;
    }

    private static Method method(Class<?> c, String name) {
      try {
        Method m = c.getMethod(name);
        m.setAccessible(true); // public methods of package-private classes
        return m;
      } catch (NoSuchMethodException | RuntimeException e) {
        return null;
      }
    }
  }
}
