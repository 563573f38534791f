package dev.tablecache.spark.read;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;

/**
 * Nested columns whose strings a frame keeps as binary because some are not UTF-8 (FORMAT.md,
 * "Strings that are not UTF-8"), served under the table's string types. Spark's {@code
 * ArrowColumnVector} reads strings only from Arrow {@code Utf8} vectors, which Arrow Java never
 * checks as UTF-8, and {@code Binary} has the same layout: the column is loaded again, over the
 * same buffers, as a vector whose fields say {@code Utf8} where the Spark type has a string.
 * (Top-level string columns need none of this: {@link NativeColumnVector} reads either.)
 */
public final class RawStringVectors {

  private RawStringVectors() {}

  /** Whether {@code arrow} has a binary type where {@code spark} has a string, at any depth. */
  static boolean hasBinaryStrings(Field arrow, DataType spark) {
    return asStrings(arrow, spark) != arrow;
  }

  /**
   * Whether a column of Spark type {@code actual} serves binary where {@code wanted} has a
   * string, at any depth (a vector built from such a column's Arrow type).
   */
  public static boolean binaryWhereString(DataType actual, DataType wanted) {
    if (wanted instanceof StringType) {
      return actual instanceof BinaryType;
    }
    if (wanted instanceof ArrayType && actual instanceof ArrayType) {
      return binaryWhereString(
          ((ArrayType) actual).elementType(), ((ArrayType) wanted).elementType());
    }
    if (wanted instanceof MapType && actual instanceof MapType) {
      MapType a = (MapType) actual;
      MapType w = (MapType) wanted;
      return binaryWhereString(a.keyType(), w.keyType())
          || binaryWhereString(a.valueType(), w.valueType());
    }
    if (wanted instanceof StructType && actual instanceof StructType) {
      StructType a = (StructType) actual;
      StructType w = (StructType) wanted;
      for (int i = 0; i < Math.min(a.fields().length, w.fields().length); i++) {
        if (binaryWhereString(a.fields()[i].dataType(), w.fields()[i].dataType())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * A new root holding {@code v} loaded as {@link #asStrings} types, sharing its buffers; the
   * caller closes it (and {@code v}'s own root, which still owns the native memory).
   */
  static VectorSchemaRoot retyped(FieldVector v, DataType spark, BufferAllocator allocator) {
    Field field = asStrings(v.getField(), spark);
    VectorSchemaRoot source = new VectorSchemaRoot(Collections.singletonList(v));
    VectorSchemaRoot target = VectorSchemaRoot.create(new Schema(Collections.singletonList(field)), allocator);
    try (ArrowRecordBatch buffers = new VectorUnloader(source).getRecordBatch()) {
      new VectorLoader(target).load(buffers);
      return target;
    } catch (RuntimeException e) {
      target.close();
      throw e;
    }
  }

  /** {@code arrow} with binary types as strings where {@code spark} has strings; else itself. */
  static Field asStrings(Field arrow, DataType spark) {
    ArrowType t = arrow.getType();
    if (spark instanceof StringType) {
      if (t instanceof ArrowType.Binary) {
        return retype(arrow, ArrowType.Utf8.INSTANCE, arrow.getChildren());
      }
      if (t instanceof ArrowType.LargeBinary) {
        return retype(arrow, ArrowType.LargeUtf8.INSTANCE, arrow.getChildren());
      }
      return arrow;
    }
    List<DataType> childTypes = childTypes(spark);
    List<Field> children = arrow.getChildren();
    if (childTypes.size() != children.size()) {
      return arrow; // not the shape of a nested Spark type: leave it to the reader to refuse
    }
    List<Field> out = new ArrayList<>(children.size());
    boolean changed = false;
    for (int i = 0; i < children.size(); i++) {
      Field c = asStrings(children.get(i), childTypes.get(i));
      changed |= c != children.get(i);
      out.add(c);
    }
    return changed ? retype(arrow, t, out) : arrow;
  }

  /** The Spark types of an Arrow field's children for this Spark type (Spark's Arrow mapping). */
  private static List<DataType> childTypes(DataType spark) {
    if (spark instanceof ArrayType) {
      return Collections.singletonList(((ArrayType) spark).elementType());
    }
    if (spark instanceof MapType) {
      MapType m = (MapType) spark;
      // A map's one child is its entries struct of key and value.
      return Collections.singletonList(
          new StructType()
              .add("key", m.keyType(), false)
              .add("value", m.valueType(), m.valueContainsNull()));
    }
    if (spark instanceof StructType) {
      List<DataType> out = new ArrayList<>();
      for (org.apache.spark.sql.types.StructField f : ((StructType) spark).fields()) {
        out.add(f.dataType());
      }
      return out;
    }
    return Collections.emptyList();
  }

  private static Field retype(Field f, ArrowType type, List<Field> children) {
    FieldType ft = f.getFieldType();
    FieldType retyped = new FieldType(ft.isNullable(), type, ft.getDictionary(), ft.getMetadata());
    return new Field(f.getName(), retyped, children);
  }
}
