package dev.tablecache.spark;

import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.engine.comet.CometBatchDecoder;
import dev.tablecache.spark.engine.foreign.ForeignBatchGuard;
import dev.tablecache.spark.fallback.ArrowShapes;
import dev.tablecache.spark.fallback.Fallback;
import dev.tablecache.spark.fallback.ReadBounds;
import dev.tablecache.spark.read.FrameDecoder;
import dev.tablecache.spark.read.FramesToRows;
import dev.tablecache.spark.read.Projection;
import dev.tablecache.spark.stats.AggregateSlot;
import dev.tablecache.spark.stats.PartialAggregates;
import dev.tablecache.spark.stats.StatsFilter;
import dev.tablecache.spark.stats.StatsPredicates;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.Dependency;
import org.apache.spark.OneToOneDependency;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.StorageLevel;
import scala.Function2;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * The bodies of {@link NativeCachedBatchSerializer}'s SPI methods, shared by every Spark line.
 *
 * <p>The serializer itself is compiled once per line because the SPI's {@code Seq} is {@code
 * scala.collection.Seq} on Scala 2.12 and {@code scala.collection.immutable.Seq} on 2.13, and an
 * override must name the exact type. Everything here takes {@code scala.collection.Seq}, the
 * common supertype, so the per-line classes only decide between {@link Fallback#DEFAULT} and
 * these methods.
 */
public final class SerializerCore {

  private SerializerCore() {}

  /** Whether Spark's default serializer handles the cache with these attributes. */
  public static boolean useDefault(SQLConf conf, Seq<Attribute> cacheAttributes) {
    return Fallback.useDefault(conf, schemaOf(cacheAttributes));
  }

  // ---- writing ----

  /**
   * Whether a cache (that tablecache handles) may be built from columnar batches; false when
   * {@link ForeignBatchGuard} says the session's batches may be unreadable, so that Spark keeps
   * the columnar-to-row transition and hands us rows.
   */
  static boolean supportsColumnarInput(SQLConf conf) {
    return ForeignBatchGuard.takesColumnarInput(conf);
  }

  static RDD<CachedBatch> cacheRows(RDD<InternalRow> input, Seq<Attribute> schema, SQLConf conf) {
    return input.mapPartitions(
        new PartitionFunctions.CacheRows(schemaOf(schema), TableCacheConf.writeSettings(conf)),
        false,
        SparkCompat.classTag(CachedBatch.class));
  }

  static RDD<CachedBatch> cacheColumnar(
      RDD<ColumnarBatch> input, Seq<Attribute> schema, SQLConf conf) {
    return input.mapPartitions(
        new PartitionFunctions.CacheColumnar(schemaOf(schema), TableCacheConf.writeSettings(conf)),
        false,
        SparkCompat.classTag(CachedBatch.class));
  }

  // ---- pruning ----

  /**
   * Stats-based batch pruning that is NaN-correct and never skips a batch for a missing bound;
   * see {@link StatsPredicates} for the rules and how they differ from Spark's.
   */
  public static Function2<Object, Iterator<CachedBatch>, Iterator<CachedBatch>> buildFilter(
      Seq<Expression> predicates, Seq<Attribute> cachedAttributes) {
    return StatsFilter.build(SparkCompat.toJava(predicates), SparkCompat.toJava(cachedAttributes));
  }

  // ---- reading ----

  /** Whether frames can be read as batches; false when the native library is unavailable. */
  static boolean supportsColumnarOutput(StructType schema) {
    if (Fallback.nativeUnavailable(SQLConf.get())) {
      return Fallback.DEFAULT.supportsColumnarOutput(schema);
    }
    // A schema without an Arrow mapping, or beyond the read bounds, is a default-serializer
    // cache: row output only (so our vector types never meet the default's batches).
    return ArrowShapes.canOutputColumnar(schema)
        && !ReadBounds.exceeded(schema, SQLConf.get().sessionLocalTimeZone()).isPresent();
  }

  /** The vector class of each attribute's column, as the generated code will cast to it. */
  static scala.collection.immutable.Seq<String> vectorTypes(Seq<Attribute> attributes) {
    List<String> classes = new ArrayList<>();
    for (Attribute a : SparkCompat.toJava(attributes)) {
      classes.add(FrameDecoder.vectorClassOf(a.dataType()));
    }
    return SparkCompat.toScala(classes);
  }

  /**
   * Columnar batches of the selected columns: our vectors, or with {@code intoComet} Comet's
   * ({@link CometBatchDecoder}).
   */
  public static RDD<ColumnarBatch> readColumnar(
      RDD<CachedBatch> input,
      Seq<Attribute> cacheAttributes,
      Seq<Attribute> selectedAttributes,
      boolean intoComet) {
    List<Attribute> selected = SparkCompat.toJava(selectedAttributes);
    int[] projection = Projection.indices(SparkCompat.toJava(cacheAttributes), selected);
    return input.mapPartitionsWithIndex(
        new PartitionFunctions.ReadColumnar(
            projection, typesOf(selected), cachedRddId(input), intoComet),
        false,
        SparkCompat.classTag(ColumnarBatch.class));
  }

  static RDD<InternalRow> readRows(
      RDD<CachedBatch> input,
      Seq<Attribute> cacheAttributes,
      Seq<Attribute> selectedAttributes,
      SQLConf conf) {
    List<Attribute> selected = SparkCompat.toJava(selectedAttributes);
    int[] projection = Projection.indices(SparkCompat.toJava(cacheAttributes), selected);
    return input.mapPartitionsWithIndex(
        new PartitionFunctions.ReadRows(
            projection,
            typesOf(selected),
            FramesToRows.Codegen.of(
                conf.getConfString("spark.sql.codegen.factoryMode", "FALLBACK")),
            cachedRddId(input)),
        false,
        SparkCompat.classTag(InternalRow.class));
  }

  /** One partial aggregate row per cached batch ({@link PartialAggregates}). */
  public static RDD<InternalRow> readPartialAggregates(
      RDD<CachedBatch> input, AggregateSlot[] slots) {
    return input.mapPartitionsWithIndex(
        new PartitionFunctions.ReadPartialAggregates(slots, cachedRddId(input)),
        false,
        SparkCompat.classTag(InternalRow.class));
  }

  /**
   * The id of the persisted RDD that {@code input} reads, or -1: {@code input} is the cache's RDD
   * or (with batch pruning) a one-to-one map over it. Only through one-to-one dependencies does
   * the read's partition index name the cached partition.
   */
  static int cachedRddId(RDD<?> input) {
    RDD<?> rdd = input;
    while (StorageLevel.NONE().equals(rdd.getStorageLevel())) {
      scala.collection.Seq<Dependency<?>> deps = rdd.dependencies();
      if (deps.size() != 1 || !(deps.head() instanceof OneToOneDependency)) {
        return -1;
      }
      rdd = deps.head().rdd();
    }
    return rdd.id();
  }

  private static StructType schemaOf(Seq<Attribute> attributes) {
    List<Attribute> attrs = SparkCompat.toJava(attributes);
    StructField[] fields = new StructField[attrs.size()];
    for (int i = 0; i < fields.length; i++) {
      Attribute a = attrs.get(i);
      fields[i] = new StructField(a.name(), a.dataType(), a.nullable(), a.metadata());
    }
    return new StructType(fields);
  }

  private static DataType[] typesOf(List<Attribute> attributes) {
    DataType[] types = new DataType[attributes.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = attributes.get(i).dataType();
    }
    return types;
  }
}
