package dev.tablecache.spark.fallback;

import dev.tablecache.spark.compat.SparkCompat;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;

/** Which Spark schemas this serializer handles, and which Arrow inputs it may keep as they are. */
public final class ArrowShapes {

  private ArrowShapes() {}

  /** The Arrow schema of a cache (Spark's own mapping), or null when a type has no mapping. */
  public static Schema arrowSchemaOrNull(StructType schema, String timeZoneId) {
    try {
      return SparkCompat.toArrowSchema(schema, timeZoneId == null ? "UTC" : timeZoneId);
    } catch (RuntimeException e) {
      return null;
    }
  }

  public static boolean canCache(StructType schema) {
    return arrowSchemaOrNull(schema, "UTC") != null;
  }

  /**
   * Whether cached data of this schema can be handed out as {@code ArrowColumnVector}s: every
   * type Spark maps to Arrow (strings, decimals, intervals and nested types included), except
   * user-defined types, which stay on the row path.
   */
  public static boolean canOutputColumnar(StructType schema) {
    if (!canCache(schema)) {
      return false;
    }
    for (StructField f : schema.fields()) {
      if (containsUdt(f.dataType())) {
        return false;
      }
    }
    return true;
  }

  private static boolean containsUdt(DataType t) {
    if (t instanceof UserDefinedType) {
      return true;
    }
    if (t instanceof ArrayType) {
      return containsUdt(((ArrayType) t).elementType());
    }
    if (t instanceof MapType) {
      return containsUdt(((MapType) t).keyType()) || containsUdt(((MapType) t).valueType());
    }
    if (t instanceof StructType) {
      for (StructField f : ((StructType) t).fields()) {
        if (containsUdt(f.dataType())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether an input vector's field has exactly the shape Spark's mapping gives the cached
   * column, so frames written from it decode to vectors Spark reads back as the same type.
   * Names and nullability may differ; a time zone may differ for zoned timestamps (Spark
   * timestamps are UTC instants); dictionaries never match.
   */
  public static boolean sameShape(Field expected, Field actual) {
    if (actual.getDictionary() != null || !sameType(expected.getType(), actual.getType())) {
      return false;
    }
    List<Field> e = expected.getChildren();
    List<Field> a = actual.getChildren();
    if (e.size() != a.size()) {
      return false;
    }
    for (int i = 0; i < e.size(); i++) {
      if (!sameShape(e.get(i), a.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameType(ArrowType expected, ArrowType actual) {
    if (expected instanceof ArrowType.Timestamp && actual instanceof ArrowType.Timestamp) {
      ArrowType.Timestamp e = (ArrowType.Timestamp) expected;
      ArrowType.Timestamp a = (ArrowType.Timestamp) actual;
      return e.getUnit() == a.getUnit() && (e.getTimezone() == null) == (a.getTimezone() == null);
    }
    return expected.equals(actual);
  }
}
