package dev.tablecache.spark;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Predicate$;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.util.TaskCompletionListener;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Every call whose shape depends on the Spark (and Scala) line, in one place. This build targets
 * Spark 4.0.x / Scala 2.13; a Spark 3.5 / Scala 2.12 build replaces only this class (and the
 * {@code Seq} types in the SPI signatures, which differ between Scala lines).
 *
 * <p>The Arrow helpers are {@code private[sql]} in Scala but public in bytecode. Checked against
 * the bytecode of Spark 4.0.1 and 4.3.0; only {@code ArrowUtils.toArrowSchema} changed shape.
 */
final class SparkCompat {

  private SparkCompat() {}

  // ---- Arrow conversion (ArrowUtils / ArrowWriter are private[sql] Scala APIs) ----

  /**
   * Spark's own Spark→Arrow schema mapping; duplicate nested names are renamed, not rejected.
   * The method's shape differs by line, so it is resolved once by reflection:
   * {@code (schema, timeZoneId, errorOnDuplicatedFieldNames, largeVarTypes)} up to 4.2, and
   * {@code (..., losslessInternalTypes)} in 4.3 (false keeps the classic mapping).
   */
  static Schema toArrowSchema(StructType schema, String timeZoneId) {
    try {
      return (Schema) TO_ARROW_SCHEMA.invokeExact(schema, timeZoneId);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private static final MethodHandle TO_ARROW_SCHEMA = resolveToArrowSchema();

  private static MethodHandle resolveToArrowSchema() {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    Class<?> c = ArrowUtils.class;
    try {
      MethodHandle h =
          lookup.findStatic(
              c,
              "toArrowSchema",
              MethodType.methodType(
                  Schema.class, StructType.class, String.class, boolean.class, boolean.class));
      return MethodHandles.insertArguments(h, 2, false, false);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      // Spark 4.3+
    }
    try {
      MethodHandle h =
          lookup.findStatic(
              c,
              "toArrowSchema",
              MethodType.methodType(
                  Schema.class,
                  StructType.class,
                  String.class,
                  boolean.class,
                  boolean.class,
                  boolean.class));
      return MethodHandles.insertArguments(h, 2, false, false, false);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new ExceptionInInitializerError(
          "tablecache: no known ArrowUtils.toArrowSchema signature in this Spark: " + e);
    }
  }

  /** Spark's parent allocator for Arrow memory; we always hang a per-task child off it. */
  static BufferAllocator rootAllocator() {
    return ArrowUtils.rootAllocator();
  }

  /** Allocates the root's vectors and returns Spark's row→Arrow writer over them. */
  static ArrowWriter createArrowWriter(VectorSchemaRoot root) {
    return ArrowWriter.create(root);
  }

  /** The writer's pending Arrow bytes: {@code sizeInBytes()} is an int up to 4.2, a long in 4.3. */
  static long arrowWriterBytes(ArrowWriter writer) {
    try {
      return (long) ARROW_WRITER_SIZE.invokeExact(writer);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private static final MethodHandle ARROW_WRITER_SIZE = resolveArrowWriterSize();

  private static MethodHandle resolveArrowWriterSize() {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    MethodType asLong = MethodType.methodType(long.class, ArrowWriter.class);
    for (Class<?> ret : new Class<?>[] {int.class, long.class}) {
      try {
        return lookup
            .findVirtual(ArrowWriter.class, "sizeInBytes", MethodType.methodType(ret))
            .asType(asLong);
      } catch (NoSuchMethodException | IllegalAccessException e) {
        // try the next shape
      }
    }
    throw new ExceptionInInitializerError(
        "tablecache: no known ArrowWriter.sizeInBytes signature in this Spark");
  }

  // ---- Types ----

  /**
   * Whether string bounds (compared as unsigned bytes) order this string type's values the way
   * Spark's predicates do. False for non-binary collations (UTF8_LCASE, ICU, trim collations),
   * where byte-wise bounds would prune wrongly.
   */
  static boolean hasBinaryStringOrdering(DataType t) {
    return t instanceof StringType && ((StringType) t).supportsBinaryOrdering();
  }

  // ---- Catalyst ----

  static BasePredicate createPredicate(Expression boundExpression) {
    return Predicate$.MODULE$.create(boundExpression);
  }

  // ---- Scala collections ----

  static <T> List<T> toJava(scala.collection.Seq<T> seq) {
    return new ArrayList<>(CollectionConverters.asJava(seq));
  }

  static <T> Seq<T> toScala(List<T> list) {
    return CollectionConverters.asScala(list).toList();
  }

  static <T> ClassTag<T> classTag(Class<T> c) {
    return ClassTag$.MODULE$.apply(c);
  }

  // ---- Tasks ----

  /** Runs {@code action} when the current task completes; false when there is no task. */
  static boolean onTaskCompletion(Runnable action) {
    TaskContext ctx = TaskContext.get();
    if (ctx == null) {
      return false;
    }
    ctx.addTaskCompletionListener((TaskCompletionListener) c -> action.run());
    return true;
  }

  static String taskName() {
    TaskContext ctx = TaskContext.get();
    return ctx == null ? "driver" : "task-" + ctx.taskAttemptId();
  }
}
