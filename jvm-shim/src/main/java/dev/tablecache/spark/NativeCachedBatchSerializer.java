package dev.tablecache.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.columnar.SimpleMetricsCachedBatchSerializer;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.StorageLevel;
import scala.Function2;
import scala.Option;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;

/**
 * Spark's table cache through tablecache's native frames. Install with
 * {@code spark.sql.cache.serializer=dev.tablecache.spark.NativeCachedBatchSerializer} (a static
 * conf: set it before the session starts).
 *
 * <p>Stateless: Spark creates one instance per JVM and ships it inside closures. Each SPI method
 * first asks {@link Fallback} whether Spark's default serializer handles the cache, and otherwise
 * hands the partition work to small serializable functions ({@link PartitionFunctions}).
 */
public class NativeCachedBatchSerializer extends SimpleMetricsCachedBatchSerializer {

  private static final long serialVersionUID = 1L;

  public NativeCachedBatchSerializer() {}

  private static StructType schemaOf(Seq<Attribute> attributes) {
    List<Attribute> attrs = SparkCompat.toJava(attributes);
    StructField[] fields = new StructField[attrs.size()];
    for (int i = 0; i < fields.length; i++) {
      Attribute a = attrs.get(i);
      fields[i] = new StructField(a.name(), a.dataType(), a.nullable(), a.metadata());
    }
    return new StructType(fields);
  }

  // ---- writing ----

  @Override
  public boolean supportsColumnarInput(Seq<Attribute> schema) {
    SQLConf conf = SQLConf.get();
    if (Fallback.useDefault(conf, schemaOf(schema))) {
      return Fallback.DEFAULT.supportsColumnarInput(schema);
    }
    return true;
  }

  @Override
  public RDD<CachedBatch> convertInternalRowToCachedBatch(
      RDD<InternalRow> input, Seq<Attribute> schema, StorageLevel storageLevel, SQLConf conf) {
    StructType struct = schemaOf(schema);
    if (Fallback.useDefault(conf, struct)) {
      return Fallback.DEFAULT.convertInternalRowToCachedBatch(input, schema, storageLevel, conf);
    }
    WriteSettings settings = TableCacheConf.writeSettings(conf);
    return input.mapPartitions(
        new PartitionFunctions.CacheRows(struct, settings),
        false,
        SparkCompat.classTag(CachedBatch.class));
  }

  @Override
  public RDD<CachedBatch> convertColumnarBatchToCachedBatch(
      RDD<ColumnarBatch> input, Seq<Attribute> schema, StorageLevel storageLevel, SQLConf conf) {
    StructType struct = schemaOf(schema);
    if (Fallback.useDefault(conf, struct)) {
      return Fallback.DEFAULT.convertColumnarBatchToCachedBatch(input, schema, storageLevel, conf);
    }
    WriteSettings settings = TableCacheConf.writeSettings(conf);
    return input.mapPartitions(
        new PartitionFunctions.CacheColumnar(struct, settings),
        false,
        SparkCompat.classTag(CachedBatch.class));
  }

  // ---- pruning ----

  /**
   * Stats-based batch pruning that is NaN-correct and never skips a batch for a missing bound;
   * see {@link StatsPredicates} for the rules and how they differ from Spark's.
   */
  @Override
  public Function2<Object, Iterator<CachedBatch>, Iterator<CachedBatch>> buildFilter(
      Seq<Expression> predicates, Seq<Attribute> cachedAttributes) {
    if (Fallback.useDefault(SQLConf.get(), schemaOf(cachedAttributes))) {
      return Fallback.DEFAULT.buildFilter(predicates, cachedAttributes);
    }
    return StatsFilter.build(SparkCompat.toJava(predicates), SparkCompat.toJava(cachedAttributes));
  }

  // ---- reading ----

  @Override
  public boolean supportsColumnarOutput(StructType schema) {
    SQLConf conf = SQLConf.get();
    if (Fallback.nativeUnavailable(conf)) {
      return Fallback.DEFAULT.supportsColumnarOutput(schema);
    }
    // A schema without an Arrow mapping is a default-serializer cache: row output only.
    return ArrowShapes.canOutputColumnar(schema);
  }

  @Override
  public Option<Seq<String>> vectorTypes(Seq<Attribute> attributes, SQLConf conf) {
    if (Fallback.nativeUnavailable(conf)) {
      return Fallback.DEFAULT.vectorTypes(attributes, conf);
    }
    List<String> classes = new ArrayList<>();
    for (Attribute a : SparkCompat.toJava(attributes)) {
      classes.add(FrameDecoder.vectorClassOf(a.dataType()));
    }
    return Option.apply(SparkCompat.toScala(classes));
  }

  @Override
  public RDD<ColumnarBatch> convertCachedBatchToColumnarBatch(
      RDD<CachedBatch> input,
      Seq<Attribute> cacheAttributes,
      Seq<Attribute> selectedAttributes,
      SQLConf conf) {
    if (Fallback.useDefault(conf, schemaOf(cacheAttributes))) {
      return Fallback.DEFAULT.convertCachedBatchToColumnarBatch(
          input, cacheAttributes, selectedAttributes, conf);
    }
    List<Attribute> selected = SparkCompat.toJava(selectedAttributes);
    int[] projection = Projection.indices(SparkCompat.toJava(cacheAttributes), selected);
    return input.mapPartitions(
        new PartitionFunctions.ReadColumnar(projection, typesOf(selected)),
        false,
        SparkCompat.classTag(ColumnarBatch.class));
  }

  @Override
  public RDD<InternalRow> convertCachedBatchToInternalRow(
      RDD<CachedBatch> input,
      Seq<Attribute> cacheAttributes,
      Seq<Attribute> selectedAttributes,
      SQLConf conf) {
    if (Fallback.useDefault(conf, schemaOf(cacheAttributes))) {
      return Fallback.DEFAULT.convertCachedBatchToInternalRow(
          input, cacheAttributes, selectedAttributes, conf);
    }
    List<Attribute> selected = SparkCompat.toJava(selectedAttributes);
    int[] projection = Projection.indices(SparkCompat.toJava(cacheAttributes), selected);
    return input.mapPartitions(
        new PartitionFunctions.ReadRows(
            projection,
            typesOf(selected),
            FramesToRows.Codegen.of(
                conf.getConfString("spark.sql.codegen.factoryMode", "FALLBACK"))),
        false,
        SparkCompat.classTag(InternalRow.class));
  }

  private static DataType[] typesOf(List<Attribute> attributes) {
    DataType[] types = new DataType[attributes.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = attributes.get(i).dataType();
    }
    return types;
  }
}
