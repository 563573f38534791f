package dev.tablecache.spark.engine.foreign;

import dev.tablecache.spark.compat.SparkCompat;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.codehaus.janino.SimpleCompiler;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * A test engine, installed through {@code spark.sql.extensions}, that does what Apache Gluten does
 * above its batches: a columnar rule replaces Spark's {@code ColumnarToRowExec} over a {@link
 * ForeignEngineSource} scan with the engine's own transition ({@link #TO_ROWS_EXEC}), which reads the
 * batches the engine's way ({@link ForeignColumnVector#unwrap}) rather than through the getters.
 */
public final class ForeignEngineExtensions
    extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  public ForeignEngineExtensions() {}

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectColumnar(
        new AbstractFunction1<SparkSession, ColumnarRule>() {
          @Override
          public ColumnarRule apply(SparkSession session) {
            return new EngineRule();
          }
        });
    return BoxedUnit.UNIT;
  }

  static final class EngineRule extends ColumnarRule {
    @Override
    public Rule<SparkPlan> postColumnarTransitions() {
      return new Rule<SparkPlan>() {
        @Override
        public SparkPlan apply(SparkPlan plan) {
          return replace(plan);
        }
      };
    }
  }

  static SparkPlan replace(SparkPlan plan) {
    if (plan.getClass() == ColumnarToRowExec.class
        && ((ColumnarToRowExec) plan).child() instanceof BatchScanExec
        && ((BatchScanExec) ((ColumnarToRowExec) plan).child()).scan()
            instanceof ForeignEngineSource.ForeignTable) {
      BatchScanExec scan = (BatchScanExec) ((ColumnarToRowExec) plan).child();
      boolean gluten = ((ForeignEngineSource.ForeignTable) scan.scan()).glutenTransition;
      return toRowsExec(gluten ? GLUTEN_TO_ROWS_EXEC : TO_ROWS_EXEC, scan);
    }
    List<SparkPlan> children = new ArrayList<>();
    boolean changed = false;
    for (SparkPlan c : scala.collection.JavaConverters.seqAsJavaList(plan.children())) {
      SparkPlan r = replace(c);
      changed |= r != c;
      children.add(r);
    }
    return changed ? plan.withNewChildren(SparkCompat.toScala(children)) : plan;
  }

  /**
   * The engine's columnar-to-row transition: a subclass of Spark's {@code ColumnarToRowExec} (a
   * ColumnarToRowTransition, as Gluten's are) in package {@value #ENGINE_PACKAGE}, which reads
   * its child's batches the engine's way ({@link #toRows}) and takes no part in whole-stage code.
   * Compiled at run time with janino (Spark's own compiler): javac refuses Java subclasses of
   * Spark's Scala plan nodes (their erased bridge methods clash with TreeNode's generic ones).
   */
  static final String ENGINE_PACKAGE = "dev.tablecache.spark.foreignengine";

  static final String GLUTEN_PACKAGE = "org.apache.gluten.execution";

  /** The test engine's transition class. */
  static final Class<?> TO_ROWS_EXEC = compileToRowsExec(ENGINE_PACKAGE);

  /**
   * The same transition in Gluten's package, where {@link ForeignBatchGuard} knows it: loaded by
   * its own class loader only, so Gluten's names stay off the test class path.
   */
  static final Class<?> GLUTEN_TO_ROWS_EXEC = compileToRowsExec(GLUTEN_PACKAGE);

  private static Class<?> compileToRowsExec(String pkg) {
    String source =
        "package "
            + pkg
            + ";\n"
            + "public class ToRowsExec extends org.apache.spark.sql.execution.ColumnarToRowExec {\n"
            + "  public ToRowsExec(org.apache.spark.sql.execution.SparkPlan child) { super(child);"
            + " }\n"
            + "  private org.apache.spark.sql.execution.SparkPlan input() {\n"
            + "    return (org.apache.spark.sql.execution.SparkPlan) children().head();\n"
            + "  }\n"
            + "  public org.apache.spark.rdd.RDD doExecute() {\n"
            + "    return"
            + " dev.tablecache.spark.engine.foreign.ForeignEngineExtensions.toRows(input());\n"
            + "  }\n"
            + "  public boolean supportCodegen() { return false; }\n"
            + "  public org.apache.spark.sql.execution.ColumnarToRowExec withNewChildInternal(\n"
            + "      org.apache.spark.sql.execution.SparkPlan c) { return new ToRowsExec(c); }\n"
            + "  public boolean canEqual(Object o) { return o instanceof ToRowsExec; }\n"
            + "  public boolean equals(Object o) { return o instanceof ToRowsExec &&"
            + " super.equals(o); }\n"
            + "  public int hashCode() { return super.hashCode(); }\n"
            + "}\n";
    return compile(source, pkg + ".ToRowsExec");
  }

  /** Compiles one class with janino, in a class loader of its own under the test classes'. */
  static Class<?> compile(String source, String className) {
    try {
      SimpleCompiler compiler = new SimpleCompiler();
      compiler.setParentClassLoader(ForeignEngineExtensions.class.getClassLoader());
      compiler.cook(source);
      return compiler.getClassLoader().loadClass(className);
    } catch (Exception e) {
      throw new IllegalStateException("cannot compile the test engine's " + className, e);
    }
  }

  static boolean isToRowsExec(SparkPlan plan) {
    return TO_ROWS_EXEC.isInstance(plan) || GLUTEN_TO_ROWS_EXEC.isInstance(plan);
  }

  static SparkPlan toRowsExec(SparkPlan child) {
    return toRowsExec(TO_ROWS_EXEC, child);
  }

  static SparkPlan toRowsExec(Class<?> transition, SparkPlan child) {
    try {
      return (SparkPlan) transition.getConstructor(SparkPlan.class).newInstance(child);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The transition's work: the engine reads its own batches (not through the getters). */
  public static RDD<InternalRow> toRows(SparkPlan child) {
    StructType schema = child.schema();
    return child
        .executeColumnar()
        .toJavaRDD()
        .mapPartitions((Iterator<ColumnarBatch> batches) -> toRows(batches, schema))
        .rdd();
  }

  private static Iterator<InternalRow> toRows(Iterator<ColumnarBatch> batches, StructType schema) {
    UnsafeProjection projection = UnsafeProjection.create(schema);
    List<InternalRow> out = new ArrayList<>();
    while (batches.hasNext()) {
      Iterator<InternalRow> rows = ForeignColumnVector.unwrap(batches.next()).rowIterator();
      while (rows.hasNext()) {
        out.add(projection.apply(rows.next()).copy());
      }
    }
    return out.iterator();
  }
}
