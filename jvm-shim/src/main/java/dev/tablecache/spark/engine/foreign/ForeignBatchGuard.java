package dev.tablecache.spark.engine.foreign;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.spark.TableCacheConf;
import dev.tablecache.spark.read.NativeColumnVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.execution.ColumnarToRowTransition;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps columnar input that cannot be read through Spark's {@link ColumnVector} getters out of the
 * cache writer. Such batches come from native engines: Apache Gluten's (Velox) batches are mostly
 * "light" batches of an {@code IndicatorVector} plus {@code PlaceholderVector}s, whose getters
 * throw; the values live in the engine's native memory. Because {@code supportsColumnarInput} is
 * true, Spark strips the columnar-to-row transition above a cached plan, so without this guard
 * those batches would reach {@code convertColumnarBatchToCachedBatch}. Three layers:
 *
 * <ol>
 *   <li>Driver, every Spark line ({@link #takesColumnarInput}, from {@code supportsColumnarInput}):
 *       when {@code spark.plugins} ({@code spark.plugins.defaultList}) or {@code
 *       spark.sql.extensions} names a class of a known engine (the table {@link #ENGINES}), or
 *       {@code spark.tablecache.columnarInput=false}, the serializer takes no columnar input:
 *       Spark keeps the engine's own columnar-to-row transition and the cache is built from rows.
 *   <li>Driver, Spark 4.1+ ({@link #keepsEngineTransition}, from {@code
 *       convertToColumnarPlanIfPossible}, which sees the plan): a plan whose top is a known
 *       engine's columnar-to-row transition is cached as it is (rows), even when the conf named
 *       no engine.
 *   <li>Executor, per copied batch ({@link #checkReadable}): a vector of a class that is not one
 *       of Spark's or ours is probed (its declared type, and a getter at the first and last row);
 *       one that fails, or any later failure of such a vector while the batch is copied, fails
 *       the task with an {@link TableCacheException.Kind#UNREADABLE_INPUT} error naming the
 *       vector class and the setting that avoids it. Never silently wrong rows: there is no
 *       engine-neutral way to read such a batch, and at this point the rows are out of reach.
 * </ol>
 *
 * <p>Readable foreign vectors (for example an engine's Arrow-backed "heavy" vectors) pass the
 * probe and are copied as any non-Arrow batch is. Spark's and tablecache's own vectors are never
 * probed. Only the driver decides whether to take columnar input.
 */
public final class ForeignBatchGuard {

  private static final Logger LOG = LoggerFactory.getLogger(ForeignBatchGuard.class);
  private static final AtomicBoolean LOGGED_ENGINE = new AtomicBoolean();

  /** An engine whose columnar batches cannot be read through {@link ColumnVector} getters. */
  static final class Engine {
    final String name;
    /** Class-name prefixes of its plugin, session extensions and plan nodes. */
    final List<String> packages;
    /** Class-name prefixes of its vectors that do not expose values through the getters. */
    final List<String> unreadableVectorPackages;
    /** What else a user of this engine sets, for messages. */
    final String advice;

    Engine(String name, List<String> packages, List<String> unreadableVectorPackages, String advice) {
      this.name = name;
      this.packages = packages;
      this.unreadableVectorPackages = unreadableVectorPackages;
      this.advice = advice;
    }

    boolean owns(String className) {
      return startsWithAny(className, packages);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * The engines known to produce unreadable batches. Gluten's plugin is {@code
   * org.apache.gluten.GlutenPlugin} ({@code io.glutenproject.GlutenPlugin} before the Apache
   * rename); it adds its session extensions ({@code org.apache.gluten.extension.} / {@code
   * io.glutenproject.GlutenSessionExtensions}) to {@code spark.sql.extensions}; its columnar-to-row
   * transitions extend {@code org.apache.gluten.execution.ColumnarToRowExecBase}; its light-batch
   * vectors live in {@code org.apache.gluten.columnarbatch} ({@code io.glutenproject.columnarbatch}).
   */
  static final List<Engine> ENGINES =
      Collections.singletonList(
          new Engine(
              "Apache Gluten",
              Arrays.asList("org.apache.gluten.", "io.glutenproject."),
              Arrays.asList("org.apache.gluten.columnarbatch.", "io.glutenproject.columnarbatch."),
              "spark.gluten.sql.columnar.tableCache=false keeps this serializer installed"));

  /** Conf keys that name the classes an engine is enabled with. */
  static final List<String> ENGINE_KEYS =
      Arrays.asList("spark.plugins", "spark.plugins.defaultList", "spark.sql.extensions");

  private ForeignBatchGuard() {}

  // ---- driver: columnar input or rows ----

  /**
   * Whether caches of this session may take columnar input: not with {@code
   * spark.tablecache.columnarInput=false}, nor while a known engine is enabled.
   */
  public static boolean takesColumnarInput(SQLConf conf) {
    if (!TableCacheConf.columnarInput(conf)) {
      return false;
    }
    Engine engine = activeEngine(conf);
    if (engine == null) {
      return true;
    }
    if (LOGGED_ENGINE.compareAndSet(false, true)) {
      LOG.info(
          "tablecache: {} is enabled in this application; caches are built from the rows of its"
              + " columnar-to-row transitions, since its batches cannot be read through Spark's"
              + " ColumnVector",
          engine.name);
    }
    return false;
  }

  /** The known engine the session's conf (or, failing that, the SparkConf) enables, or null. */
  static Engine activeEngine(SQLConf conf) {
    List<String> values = new ArrayList<>();
    for (String key : ENGINE_KEYS) {
      values.add(conf.getConfString(key, ""));
    }
    SparkEnv env = SparkEnv.get();
    if (env != null) {
      for (String key : ENGINE_KEYS) {
        values.add(env.conf().get(key, ""));
      }
    }
    return engineNamedIn(values, ENGINES);
  }

  /** The first engine one of whose classes a comma-separated class list names, or null. */
  static Engine engineNamedIn(List<String> classLists, List<Engine> engines) {
    for (String list : classLists) {
      if (list == null) {
        continue;
      }
      for (String c : list.split(",")) {
        String name = c.trim();
        for (Engine e : engines) {
          if (!name.isEmpty() && e.owns(name)) {
            return e;
          }
        }
      }
    }
    return null;
  }

  /**
   * Spark 4.1+: whether the plan to cache ends in a known engine's columnar-to-row transition
   * (possibly inside whole-stage code generation), which must stay: its batches are the engine's.
   */
  public static boolean keepsEngineTransition(SparkPlan plan) {
    return keepsEngineTransition(plan, ENGINES);
  }

  public static boolean keepsEngineTransition(SparkPlan plan, List<Engine> engines) {
    SparkPlan top = plan;
    if (top instanceof WholeStageCodegenExec) {
      top = ((WholeStageCodegenExec) top).child();
    }
    return top instanceof ColumnarToRowTransition && engineOf(top.getClass(), engines) != null;
  }

  /** The engine owning {@code c} or one of its superclasses, or null. */
  private static Engine engineOf(Class<?> c, List<Engine> engines) {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Engine e : engines) {
        if (e.owns(k.getName())) {
          return e;
        }
      }
    }
    return null;
  }

  // ---- executor: each copied batch ----

  /** How a vector class is treated: Spark's or ours, a known engine's unreadable one, or probed. */
  private static final class Verdict {
    final boolean known;
    final Engine unreadableOf;

    Verdict(boolean known, Engine unreadableOf) {
      this.known = known;
      this.unreadableOf = unreadableOf;
    }
  }

  private static final ClassValue<Verdict> VERDICTS =
      new ClassValue<Verdict>() {
        @Override
        protected Verdict computeValue(Class<?> c) {
          if (c == ArrowColumnVector.class
              || c == NativeColumnVector.class
              || c == OnHeapColumnVector.class
              || c == OffHeapColumnVector.class
              || c == ConstantColumnVector.class) {
            return new Verdict(true, null);
          }
          for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Engine e : ENGINES) {
              if (startsWithAny(k.getName(), e.unreadableVectorPackages)) {
                return new Verdict(false, e);
              }
            }
          }
          return new Verdict(false, null);
        }
      };

  /**
   * Checks that every column of {@code batch} can be read through its getters as {@code schema}
   * types it; throws {@link TableCacheException.Kind#UNREADABLE_INPUT} when one cannot. Returns
   * whether the batch has vectors of classes that are neither Spark's nor ours (probed and
   * readable), for {@link #failedRead}.
   */
  public static boolean checkReadable(ColumnarBatch batch, StructType schema) {
    StructField[] fields = schema.fields();
    int cols = Math.min(batch.numCols(), fields.length);
    int rows = batch.numRows();
    boolean foreign = false;
    for (int i = 0; i < cols; i++) {
      ColumnVector v = batch.column(i);
      Verdict verdict = VERDICTS.get(v.getClass());
      if (verdict.known) {
        continue;
      }
      if (verdict.unreadableOf != null) {
        throw unreadable(
            i, fields[i], v.getClass(), "its engine's batches keep their values native", null);
      }
      foreign = true;
      DataType declared = v.dataType();
      DataType expected = fields[i].dataType();
      if (declared instanceof NullType && !(expected instanceof NullType)) {
        throw unreadable(
            i,
            fields[i],
            v.getClass(),
            "it declares type void for a column of type " + ErrorText.text(expected.simpleString()),
            null);
      }
      try {
        if (rows > 0) {
          probe(v, expected, 0);
          probe(v, expected, rows - 1);
        }
      } catch (RuntimeException e) {
        throw unreadable(i, fields[i], v.getClass(), "its getter threw " + e, e);
      }
    }
    return foreign;
  }

  /**
   * The error for a failure while copying a batch that has foreign vectors: an {@link
   * TableCacheException.Kind#UNREADABLE_INPUT} naming the vector when one of its classes threw it
   * (found in the stack trace), else {@code e} itself.
   */
  public static RuntimeException failedRead(
      ColumnarBatch batch, StructType schema, RuntimeException e) {
    StructField[] fields = schema.fields();
    int cols = Math.min(batch.numCols(), fields.length);
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (StackTraceElement frame : t.getStackTrace()) {
        for (int i = 0; i < cols; i++) {
          Class<?> c = batch.column(i).getClass();
          if (!VERDICTS.get(c).known && frame.getClassName().equals(c.getName())) {
            return unreadable(i, fields[i], c, "its getter threw " + t, e);
          }
        }
      }
    }
    return e;
  }

  /** Reads one value of {@code type} at {@code row} as the copy would, discarding it. */
  private static void probe(ColumnVector v, DataType type, int row) {
    if (v.isNullAt(row)) {
      return;
    }
    if (type instanceof BooleanType) {
      v.getBoolean(row);
    } else if (type instanceof ByteType) {
      v.getByte(row);
    } else if (type instanceof ShortType) {
      v.getShort(row);
    } else if (type instanceof IntegerType
        || type instanceof DateType
        || type instanceof YearMonthIntervalType) {
      v.getInt(row);
    } else if (type instanceof LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType
        || type instanceof DayTimeIntervalType) {
      v.getLong(row);
    } else if (type instanceof FloatType) {
      v.getFloat(row);
    } else if (type instanceof DoubleType) {
      v.getDouble(row);
    } else if (type instanceof DecimalType) {
      DecimalType d = (DecimalType) type;
      v.getDecimal(row, d.precision(), d.scale());
    } else if (type instanceof StringType) {
      v.getUTF8String(row);
    } else if (type instanceof BinaryType) {
      v.getBinary(row);
    } else if (type instanceof CalendarIntervalType) {
      v.getInterval(row);
    } else if (type instanceof StructType) {
      v.getStruct(row);
    } else if (type instanceof ArrayType) {
      v.getArray(row);
    } else if (type instanceof MapType) {
      v.getMap(row);
    }
    // other types (variant, ...): isNullAt above is the probe
  }

  static TableCacheException unreadable(
      int column, StructField field, Class<?> vectorClass, String why, Throwable cause) {
    Engine engine = engineOf(vectorClass, ENGINES);
    StringBuilder m =
        new StringBuilder("tablecache cannot cache this columnar input: column ")
            .append(column)
            .append(" (")
            .append(ErrorText.name(field.name()))
            .append(' ')
            .append(ErrorText.text(field.dataType().simpleString()))
            .append(") is a ")
            .append(vectorClass.getName())
            .append(", whose values cannot be read through Spark's ColumnVector getters (")
            .append(why)
            .append(")");
    if (engine != null) {
      m.append("; it is ").append(engine.name).append("'s");
    }
    m.append(". Nothing was cached. Set ")
        .append(TableCacheConf.COLUMNAR_INPUT)
        .append("=false so that caches are built from the engine's rows");
    if (engine != null) {
      m.append(" (").append(engine.advice).append(')');
    }
    m.append('.');
    return new TableCacheException(TableCacheException.Kind.UNREADABLE_INPUT, m.toString(), cause);
  }

  private static boolean startsWithAny(String s, List<String> prefixes) {
    for (String p : prefixes) {
      if (s.startsWith(p)) {
        return true;
      }
    }
    return false;
  }
}
