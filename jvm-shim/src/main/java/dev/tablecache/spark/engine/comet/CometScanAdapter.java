package dev.tablecache.spark.engine.comet;

import dev.tablecache.spark.SerializerCore;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.plan.PhysicalPlans;
import dev.tablecache.spark.plan.ScanMetricsNode;
import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
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
 * compiled at run time with janino, the compiler Spark's own code generation uses, once per JVM
 * and class loader. Compiling against the Comet that is really there is also the version check:
 * a Comet whose internals differ fails the compile, and its own conversion stays (one INFO line).
 *
 * <p>A generated class exists only in the JVM and class loader that compiled it, but plans
 * travel: an operator whose task closure captures its child plan (Comet's top-N, for one) ships
 * the adapter to every executor. So the adapter is serialized as {@link SerializedForm} (its
 * child plan), which a task's deserialization turns back into the adapter compiled in that JVM,
 * the way Spark ships generated code as source rather than as classes.
 *
 * <p>Public only for the generated class, which calls {@link #cometBatches} and {@link
 * #serializedForm}.
 */
public final class CometScanAdapter {

  private static final String COMET_CONVERSION =
      "org.apache.spark.sql.comet.CometSparkToColumnarExec";
  private static final String NAME =
      "dev.tablecache.spark.engine.comet.generated.TableCacheCometConversion";

  private static final String SOURCE =
      "package dev.tablecache.spark.engine.comet.generated;\n"
          + "public final class TableCacheCometConversion\n"
          + "    extends org.apache.spark.sql.comet.CometSparkToColumnarExec {\n"
          + "  public TableCacheCometConversion(org.apache.spark.sql.execution.SparkPlan child) {\n"
          + "    super(child);\n"
          + "  }\n"
          // child() has a TreeNode bridge beside it; which one janino resolves depends on how the
          // superclass was compiled.
          + "  private org.apache.spark.sql.execution.SparkPlan plan() {\n"
          + "    return (org.apache.spark.sql.execution.SparkPlan) child();\n"
          + "  }\n"
          + "  public org.apache.spark.rdd.RDD doExecuteColumnar() {\n"
          + "    return dev.tablecache.spark.engine.comet.CometScanAdapter.cometBatches(plan());\n"
          + "  }\n"
          + "  public org.apache.spark.rdd.RDD doExecuteAsArrowStream() {\n"
          + "    org.apache.spark.sql.comet.execution.arrow.CometArrowStream$ streams =\n"
          + "        org.apache.spark.sql.comet.execution.arrow.CometArrowStream$.MODULE$;\n"
          + "    return streams.wrapColumnarBatchRDD(doExecuteColumnar(), plan().schema(),\n"
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
          // Java serialization: this class cannot be resolved by name in another JVM or loader.
          + "  protected Object writeReplace() throws java.io.ObjectStreamException {\n"
          + "    return"
          + " dev.tablecache.spark.engine.comet.CometScanAdapter.serializedForm(plan());\n"
          + "  }\n"
          + "}\n";

  private static final Logger LOG = LoggerFactory.getLogger(CometScanAdapter.class);

  /**
   * The compiled adapter per class loader it was compiled under, or the reason it could not be:
   * weak keys, and the classes held weakly too (a generated class references its loader).
   */
  private static final Map<ClassLoader, Object> COMPILED = new WeakHashMap<>();

  private CometScanAdapter() {}

  /**
   * The adapter over {@code conversion}'s child when {@code conversion} is Comet's conversion of
   * one of our cache scans, else null (also when this Comet's API is not the one the adapter is
   * written for: Comet's own conversion then stays, which is correct, only slower).
   */
  static SparkPlan replace(SparkPlan conversion) {
    if (!COMET_CONVERSION.equals(conversion.getClass().getName())
        || conversion.children().size() != 1
        || ourScan(conversion.children().head()) == null) {
      return null;
    }
    return create(
        conversion.children().head(),
        conversion.getClass().getClassLoader(),
        Thread.currentThread().getContextClassLoader(),
        CometScanAdapter.class.getClassLoader());
  }

  /** Whether a plan is already our adapter (the rule leaves it alone). */
  static boolean isAdapter(SparkPlan plan) {
    return NAME.equals(plan.getClass().getName());
  }

  /** What the generated class is serialized as. Called by the generated class. */
  public static Object serializedForm(SparkPlan child) {
    return new SerializedForm(child);
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
    RDD<ColumnarBatch> decoded =
        SerializerCore.readColumnar(batches, relation.output(), scan.attributes(), true);
    // Under the scan's metrics node (ScanMetricsRule): its tasks count into that node.
    return child instanceof ScanMetricsNode ? ((ScanMetricsNode) child).metered(decoded) : decoded;
  }

  /** The column-capable scan of one of our caches that {@code plan} is (or stages), else null. */
  private static InMemoryTableScanExec ourScan(SparkPlan plan) {
    InMemoryTableScanExec scan = PhysicalPlans.ourScan(plan);
    return scan != null && scan.supportsColumnar() ? scan : null;
  }

  /**
   * The adapter over {@code child}, compiled under the first of {@code loaders} that sees both
   * Comet's conversion and this class; null when none does or this Comet's API does not fit.
   */
  private static SparkPlan create(SparkPlan child, ClassLoader... loaders) {
    Constructor<?> c = adapterConstructor(loaders);
    if (c == null) {
      return null;
    }
    try {
      return (SparkPlan) c.newInstance(child);
    } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot create tablecache's Comet scan", e);
    }
  }

  private static Constructor<?> adapterConstructor(ClassLoader... loaders) {
    ClassLoader parent = null;
    for (ClassLoader l : loaders) {
      if (l != null && seesCometAndUs(l)) {
        parent = l;
        break;
      }
    }
    synchronized (COMPILED) {
      ClassLoader key = parent != null ? parent : CometScanAdapter.class.getClassLoader();
      Object known = COMPILED.get(key);
      if (known instanceof WeakReference) {
        Class<?> compiled = (Class<?>) ((WeakReference<?>) known).get();
        if (compiled != null) {
          return constructorOf(compiled);
        }
      } else if (known != null) {
        return null; // the reason was logged when it was found
      }
      String reason;
      if (parent == null) {
        reason = "no class loader here sees both Comet's " + COMET_CONVERSION + " and tablecache";
      } else {
        Class<?> compiled = null;
        try {
          SimpleCompiler compiler = new SimpleCompiler();
          compiler.setParentClassLoader(parent);
          compiler.cook(SOURCE);
          compiled = compiler.getClassLoader().loadClass(NAME);
          reason = null;
        } catch (Exception | LinkageError e) {
          reason = "this Comet's conversion API differs from Comet 1.2's (" + e + ")";
        }
        if (reason == null && !CometArrow.fits(parent)) {
          reason = "this Comet's Arrow API (allocator, C Data import, CometVector) differs from"
              + " Comet 1.2's";
        }
        if (reason == null) {
          COMPILED.put(key, new WeakReference<>(compiled));
          return constructorOf(compiled);
        }
      }
      COMPILED.put(key, reason);
      LOG.info(
          "tablecache: Comet reads of our caches keep Comet's copying conversion: {}", reason);
      return null;
    }
  }

  private static Constructor<?> constructorOf(Class<?> compiled) {
    try {
      return compiled.getConstructor(SparkPlan.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("tablecache's generated Comet scan has no constructor", e);
    }
  }

  private static boolean seesCometAndUs(ClassLoader loader) {
    try {
      Class.forName(COMET_CONVERSION, false, loader);
      return Class.forName(CometScanAdapter.class.getName(), false, loader)
          == CometScanAdapter.class;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The adapter as Java serialization writes it: its child plan. Read back (a task deserializing
   * its closure), it becomes the adapter compiled in the reading JVM, under the task's class
   * loader, where Spark puts the application's jars.
   */
  static final class SerializedForm implements Serializable {
    private static final long serialVersionUID = 1L;

    private final SparkPlan child;

    SerializedForm(SparkPlan child) {
      this.child = child;
    }

    private Object readResolve() throws ObjectStreamException {
      SparkPlan adapter =
          create(
              child,
              Thread.currentThread().getContextClassLoader(),
              CometScanAdapter.class.getClassLoader());
      if (adapter == null) {
        // Only when this JVM's Comet differs from the planning JVM's: the reason is logged.
        throw new InvalidObjectException(
            "tablecache: cannot rebuild the Comet scan of a cache in this JVM, whose Comet"
                + " differs from the one the query was planned with");
      }
      return adapter;
    }
  }
}
