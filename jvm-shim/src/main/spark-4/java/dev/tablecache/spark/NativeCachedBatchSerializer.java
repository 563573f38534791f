package dev.tablecache.spark;

import dev.tablecache.spark.fallback.Fallback;
import dev.tablecache.spark.plan.ColumnarInputPlan;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.columnar.SimpleMetricsCachedBatchSerializer;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.internal.SQLConf;
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
 * <p>This is the Spark 4 / Scala 2.13 copy (the SPI's {@code Seq} is {@code
 * scala.collection.immutable.Seq}); src/main/spark-3.5 holds the Scala 2.12 one. Both only choose
 * between Spark's default serializer ({@link Fallback}) and the shared {@link SerializerCore}.
 * Stateless: Spark creates one instance per JVM and ships it inside closures.
 */
public class NativeCachedBatchSerializer extends SimpleMetricsCachedBatchSerializer {

  private static final long serialVersionUID = 1L;

  public NativeCachedBatchSerializer() {}

  @Override
  public boolean supportsColumnarInput(Seq<Attribute> schema) {
    if (SerializerCore.useDefault(SQLConf.get(), schema)) {
      return Fallback.DEFAULT.supportsColumnarInput(schema);
    }
    return SerializerCore.supportsColumnarInput(SQLConf.get());
  }

  /**
   * Spark 4.1+ asks this (SPARK-52492) for the plan to cache once {@link #supportsColumnarInput}
   * is true; see {@link ColumnarInputPlan}. No {@code @Override}: this line compiles against
   * Spark 4.0, which lacks the method; on 4.1+ it overrides the SPI's default by signature.
   */
  public SparkPlan convertToColumnarPlanIfPossible(SparkPlan plan) {
    return ColumnarInputPlan.of(this, plan);
  }

  @Override
  public RDD<CachedBatch> convertInternalRowToCachedBatch(
      RDD<InternalRow> input, Seq<Attribute> schema, StorageLevel storageLevel, SQLConf conf) {
    if (SerializerCore.useDefault(conf, schema)) {
      return Fallback.DEFAULT.convertInternalRowToCachedBatch(input, schema, storageLevel, conf);
    }
    return SerializerCore.cacheRows(input, schema, conf);
  }

  @Override
  public RDD<CachedBatch> convertColumnarBatchToCachedBatch(
      RDD<ColumnarBatch> input, Seq<Attribute> schema, StorageLevel storageLevel, SQLConf conf) {
    if (SerializerCore.useDefault(conf, schema)) {
      return Fallback.DEFAULT.convertColumnarBatchToCachedBatch(input, schema, storageLevel, conf);
    }
    return SerializerCore.cacheColumnar(input, schema, conf);
  }

  @Override
  public Function2<Object, Iterator<CachedBatch>, Iterator<CachedBatch>> buildFilter(
      Seq<Expression> predicates, Seq<Attribute> cachedAttributes) {
    if (SerializerCore.useDefault(SQLConf.get(), cachedAttributes)) {
      return Fallback.DEFAULT.buildFilter(predicates, cachedAttributes);
    }
    return SerializerCore.buildFilter(predicates, cachedAttributes);
  }

  @Override
  public boolean supportsColumnarOutput(StructType schema) {
    return SerializerCore.supportsColumnarOutput(schema);
  }

  @Override
  public Option<Seq<String>> vectorTypes(Seq<Attribute> attributes, SQLConf conf) {
    if (Fallback.nativeUnavailable(conf)) {
      return Fallback.DEFAULT.vectorTypes(attributes, conf);
    }
    return Option.apply(SerializerCore.vectorTypes(attributes));
  }

  @Override
  public RDD<ColumnarBatch> convertCachedBatchToColumnarBatch(
      RDD<CachedBatch> input,
      Seq<Attribute> cacheAttributes,
      Seq<Attribute> selectedAttributes,
      SQLConf conf) {
    if (SerializerCore.useDefault(conf, cacheAttributes)) {
      return Fallback.DEFAULT.convertCachedBatchToColumnarBatch(
          input, cacheAttributes, selectedAttributes, conf);
    }
    return SerializerCore.readColumnar(input, cacheAttributes, selectedAttributes, false);
  }

  @Override
  public RDD<InternalRow> convertCachedBatchToInternalRow(
      RDD<CachedBatch> input,
      Seq<Attribute> cacheAttributes,
      Seq<Attribute> selectedAttributes,
      SQLConf conf) {
    if (SerializerCore.useDefault(conf, cacheAttributes)) {
      return Fallback.DEFAULT.convertCachedBatchToInternalRow(
          input, cacheAttributes, selectedAttributes, conf);
    }
    return SerializerCore.readRows(input, cacheAttributes, selectedAttributes, conf);
  }
}
