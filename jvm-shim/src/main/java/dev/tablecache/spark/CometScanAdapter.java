package dev.tablecache.spark;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.codehaus.janino.SimpleCompiler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Comet's conversion of our cache scan ({@code CometSparkToColumnarExec}) hand Comet our
 * decoded buffers instead of copying them value by value.
 *
 * <p>Comet's native operators take their inputs only from Comet's own operator classes, and
 * {@code CometSparkToColumnarExec} is the one that feeds them a cache scan. The adapter is a
 * subclass of it whose batches are {@code CometVector}s imported from our native decoder through
 * the Arrow C Data Interface ({@link CometBatchDecoder}); Comet exports such batches to its
 * native plan without another copy ({@code CometArrowStream.wrapColumnarBatchRDD}, the path it
 * takes for any Arrow-backed input). tablecache does not compile against Comet, and javac cannot
 * subclass Scala plan classes (Spark's F-bounded {@code TreeNode} bridges), so the subclass is
 * compiled once per JVM at run time with janino, the compiler Spark's own code generation uses.
 * Public only for that generated class, which calls {@link #cometBatches}.
 */
public final class CometScanAdapter {

  private static final String COMET_CONVERSION =
      "org.apache.spark.sql.comet.CometSparkToColumnarExec";
  private static final String NAME = "dev.tablecache.spark.generated.TableCacheCometConversion";

  private static final String SOURCE =
      "package dev.tablecache.spark.generated;\n"
          + "public final class TableCacheCometConversion\n"
          + "    extends org.apache.spark.sql.comet.CometSparkToColumnarExec {\n"
          + "  public TableCacheCometConversion(org.apache.spark.sql.execution.SparkPlan child) {\n"
          + "    super(child);\n"
          + "  }\n"
          + "  public org.apache.spark.rdd.RDD doExecuteColumnar() {\n"
          + "    return dev.tablecache.spark.CometScanAdapter.cometBatches(child());\n"
          + "  }\n"
          + "  public org.apache.spark.rdd.RDD doExecuteAsArrowStream() {\n"
          + "    org.apache.spark.sql.comet.execution.arrow.CometArrowStream$ streams =\n"
          + "        org.apache.spark.sql.comet.execution.arrow.CometArrowStream$.MODULE$;\n"
          + "    return streams.wrapColumnarBatchRDD(doExecuteColumnar(), child().schema(),\n"
          + "        streams.NATIVE_TIMEZONE(), nodeName());\n"
          + "  }\n"
          // Spark replaces a child only when the new one is not equal to it, and Comet's case class
          // would call this node equal to the conversion it replaces.
          + "  public boolean canEqual(Object other) {\n"
          + "    return other instanceof TableCacheCometConversion;\n"
          + "  }\n"
          + "  public boolean equals(Object other) {\n"
          + "    return other instanceof TableCacheCometConversion && super.equals(other);\n"
          + "  }\n"
          + "  public int hashCode() {\n"
          + "    return 31 * super.hashCode() + 1;\n"
          + "  }\n"
          + "  public String nodeName() {\n"
          + "    return \"TableCacheCometScan\";\n"
          + "  }\n"
          + "  public org.apache.spark.sql.comet.CometSparkToColumnarExec withNewChildInternal(\n"
          + "      org.apache.spark.sql.execution.SparkPlan newChild) {\n"
          + "    return new TableCacheCometConversion(newChild);\n"
          + "  }\n"
          + "}\n";

  private static final Logger LOG = LoggerFactory.getLogger(CometScanAdapter.class);

  private static volatile Constructor<?> constructor;
  private static volatile boolean failed;

  private CometScanAdapter() {}

  /**
   * The adapter over {@code conversion}'s child when {@code conversion} is Comet's conversion of
   * one of our cache scans, else null (also when the adapter cannot be compiled: Comet's own
   * conversion then stays, which is correct, only slower).
   */
  static SparkPlan replace(SparkPlan conversion) {
    if (!COMET_CONVERSION.equals(conversion.getClass().getName())
        || conversion.children().size() != 1
        || ourScan(conversion.children().head()) == null) {
      return null;
    }
    Constructor<?> c = adapterConstructor(conversion.getClass().getClassLoader());
    if (c == null) {
      return null;
    }
    try {
      return (SparkPlan) c.newInstance(conversion.children().head());
    } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot create tablecache's Comet scan", e);
    }
  }

  /** Whether a plan is already our adapter (the rule leaves it alone). */
  static boolean isAdapter(SparkPlan plan) {
    return NAME.equals(plan.getClass().getName());
  }

  /**
   * The adapter's batches: the scan's cached batches (pruned by our stats filter as the scan
   * would) decoded into Comet's vectors. Called by the generated class.
   */
  public static RDD<ColumnarBatch> cometBatches(SparkPlan child) {
    InMemoryTableScanExec scan = ourScan(child);
    if (scan == null) {
      throw new IllegalStateException("not a tablecache cache scan: " + child.nodeName());
    }
    InMemoryRelation relation = scan.relation();
    RDD<CachedBatch> batches = relation.cacheBuilder().cachedColumnBuffers();
    if (!scan.predicates().isEmpty() && SQLConf.get().inMemoryPartitionPruning()) {
      batches =
          batches.mapPartitionsWithIndex(
              SerializerCore.buildFilter(scan.predicates(), relation.output()),
              true,
              SparkCompat.classTag(CachedBatch.class));
    }
    return SerializerCore.readColumnar(batches, relation.output(), scan.attributes(), true);
  }

  /** The column-capable scan of one of our caches that {@code plan} is (or stages), else null. */
  private static InMemoryTableScanExec ourScan(SparkPlan plan) {
    InMemoryTableScanExec scan = PhysicalPlans.ourScan(plan);
    return scan != null && scan.supportsColumnar() ? scan : null;
  }

  private static Constructor<?> adapterConstructor(ClassLoader cometLoader) {
    Constructor<?> c = constructor;
    if (c != null || failed) {
      return c;
    }
    synchronized (CometScanAdapter.class) {
      if (constructor == null && !failed) {
        try {
          SimpleCompiler compiler = new SimpleCompiler();
          compiler.setParentClassLoader(cometLoader);
          compiler.cook(SOURCE);
          constructor =
              compiler.getClassLoader().loadClass(NAME).getConstructor(SparkPlan.class);
        } catch (Exception | LinkageError e) {
          failed = true;
          LOG.warn(
              "tablecache: Comet reads of our caches keep Comet's copying conversion: {}",
              e.toString());
        }
      }
      return constructor;
    }
  }
}
