package dev.tablecache.spark.compat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Predicate$;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.util.TaskCompletionListener;
import scala.collection.JavaConverters;
import scala.collection.immutable.Seq;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * Spark and Scala calls that every line (3.5 / Scala 2.12 and 4.x / Scala 2.13) can share, in one
 * place: they compile against either line, and shapes that differ between releases are resolved
 * at run time. What cannot be shared is in the per-line {@code SparkLine} class and the per-line
 * {@code NativeCachedBatchSerializer} (docs/ARCHITECTURE.md).
 *
 * <p>The Arrow helpers are {@code private[sql]} in Scala but public in bytecode. Checked against
 * the bytecode of Spark 3.5.9, 4.0.1 and 4.3.0; only {@code ArrowUtils.toArrowSchema} changed
 * shape. Scala collections go through {@code scala.collection.JavaConverters}, the converter both
 * Scala lines have ({@code scala.jdk.javaapi} is 2.13 only).
 */
public final class SparkCompat {

  private SparkCompat() {}

  // ---- Arrow conversion (ArrowUtils / ArrowWriter are private[sql] Scala APIs) ----

  /**
   * Spark's own Spark→Arrow schema mapping; duplicate nested names are renamed, not rejected.
   * The method's shape differs by line, so it is resolved once by reflection:
   * {@code (schema, timeZoneId, errorOnDuplicatedFieldNames)} in 3.5, {@code (...,
   * largeVarTypes)} in 4.0 to 4.2, and {@code (..., losslessInternalTypes)} in 4.3 (false keeps
   * the classic mapping).
   */
  public static Schema toArrowSchema(StructType schema, String timeZoneId) {
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
    // After (schema, timeZoneId) come one boolean flag in 3.5, two in 4.0 to 4.2, three in 4.3+;
    // each is passed false.
    ReflectiveOperationException last = null;
    for (int flags = 1; flags <= 3; flags++) {
      Class<?>[] parameters = new Class<?>[2 + flags];
      parameters[0] = StructType.class;
      parameters[1] = String.class;
      Arrays.fill(parameters, 2, parameters.length, boolean.class);
      Object[] falses = new Object[flags];
      Arrays.fill(falses, false);
      try {
        MethodHandle h =
            MethodHandles.publicLookup()
                .findStatic(
                    ArrowUtils.class,
                    "toArrowSchema",
                    MethodType.methodType(Schema.class, parameters));
        return MethodHandles.insertArguments(h, 2, falses);
      } catch (NoSuchMethodException | IllegalAccessException e) {
        last = e;
      }
    }
    throw new ExceptionInInitializerError(
        "tablecache: no known ArrowUtils.toArrowSchema signature in this Spark: " + last);
  }

  /** Spark's parent allocator for Arrow memory; we always hang a per-task child off it. */
  public static BufferAllocator rootAllocator() {
    return ArrowUtils.rootAllocator();
  }

  /** Allocates the root's vectors and returns Spark's row→Arrow writer over them. */
  public static ArrowWriter createArrowWriter(VectorSchemaRoot root) {
    return ArrowWriter.create(root);
  }

  // ---- Catalyst ----

  public static BasePredicate createPredicate(Expression boundExpression) {
    return Predicate$.MODULE$.create(boundExpression);
  }

  // ---- Scala collections ----

  public static <T> List<T> toJava(scala.collection.Seq<T> seq) {
    return new ArrayList<>(JavaConverters.seqAsJavaList(seq));
  }

  /** An immutable Scala list: an immutable {@code Seq} on 2.13, and a {@code Seq} on 2.12. */
  public static <T> Seq<T> toScala(List<T> list) {
    return JavaConverters.asScalaBuffer(list).toList();
  }

  public static <T> ClassTag<T> classTag(Class<T> c) {
    return ClassTag$.MODULE$.apply(c);
  }

  // ---- Tasks ----

  /** Runs {@code action} when the current task completes; false when there is no task. */
  public static boolean onTaskCompletion(Runnable action) {
    TaskContext ctx = TaskContext.get();
    if (ctx == null) {
      return false;
    }
    ctx.addTaskCompletionListener((TaskCompletionListener) c -> action.run());
    return true;
  }

  public static String taskName() {
    TaskContext ctx = TaskContext.get();
    return ctx == null ? "driver" : "task-" + ctx.taskAttemptId();
  }
}
