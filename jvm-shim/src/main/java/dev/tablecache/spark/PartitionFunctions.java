package dev.tablecache.spark;

import dev.tablecache.ErrorText;
import dev.tablecache.spark.engine.comet.CometArrow;
import dev.tablecache.spark.engine.comet.CometBatchDecoder;
import dev.tablecache.spark.fallback.ArrowShapes;
import dev.tablecache.spark.heal.BlockHealer;
import dev.tablecache.spark.read.BatchDecoder;
import dev.tablecache.spark.read.FrameDecoder;
import dev.tablecache.spark.read.FramesToColumnar;
import dev.tablecache.spark.read.FramesToRows;
import dev.tablecache.spark.stats.AggregateSlot;
import dev.tablecache.spark.stats.PartialAggregates;
import dev.tablecache.spark.stats.StatsFilter;
import dev.tablecache.spark.write.ColumnarToFrames;
import dev.tablecache.spark.write.RowsToFrames;
import dev.tablecache.spark.write.WriteSettings;
import java.io.Serializable;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.Iterator;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;

/**
 * The per-partition functions shipped to executors. Each is a small Serializable class holding
 * only plain settings (never the serializer or a session), and builds its iterator on the
 * executor.
 */
final class PartitionFunctions {

  private PartitionFunctions() {}

  private static Schema arrowSchema(StructType schema, String tz) {
    Schema s = ArrowShapes.arrowSchemaOrNull(schema, tz);
    if (s == null) {
      throw new IllegalStateException("no Arrow mapping for cache schema " + ErrorText.text(schema.simpleString()));
    }
    return s;
  }

  /** Rows → cached batches. */
  static final class CacheRows
      extends AbstractFunction1<Iterator<InternalRow>, Iterator<CachedBatch>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StructType schema;
    private final WriteSettings settings;

    CacheRows(StructType schema, WriteSettings settings) {
      this.schema = schema;
      this.settings = settings;
    }

    @Override
    public Iterator<CachedBatch> apply(Iterator<InternalRow> rows) {
      return new RowsToFrames(rows, schema, arrowSchema(schema, settings.timeZoneId), settings);
    }
  }

  /** Columnar batches → cached batches. */
  static final class CacheColumnar
      extends AbstractFunction1<Iterator<ColumnarBatch>, Iterator<CachedBatch>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StructType schema;
    private final WriteSettings settings;

    CacheColumnar(StructType schema, WriteSettings settings) {
      this.schema = schema;
      this.settings = settings;
    }

    @Override
    public Iterator<CachedBatch> apply(Iterator<ColumnarBatch> batches) {
      return new ColumnarToFrames(
          batches, schema, arrowSchema(schema, settings.timeZoneId), settings);
    }
  }

  /**
   * Cached batches → columnar batches of the selected columns. Applied with the partition index,
   * which (through one-to-one dependencies) is the cached RDD's partition: a damaged block is
   * dropped by RDD id and partition ({@link BlockHealer}).
   */
  static final class ReadColumnar
      extends AbstractFunction2<Object, Iterator<CachedBatch>, Iterator<ColumnarBatch>>
      implements Serializable {
    private static final long serialVersionUID = 3L;
    private final int[] projection;
    private final DataType[] types;
    private final int cachedRddId;
    private final boolean intoComet;

    /** @param intoComet decode into Comet's vectors ({@link CometBatchDecoder}), not ours */
    ReadColumnar(int[] projection, DataType[] types, int cachedRddId, boolean intoComet) {
      this.projection = projection;
      this.types = types;
      this.cachedRddId = cachedRddId;
      this.intoComet = intoComet;
    }

    @Override
    public Iterator<ColumnarBatch> apply(Object partition, Iterator<CachedBatch> batches) {
      return new FramesToColumnar(
          batches, decoder(batches), new BlockHealer(cachedRddId, (Integer) partition));
    }

    private BatchDecoder decoder(Iterator<CachedBatch> batches) {
      if (!intoComet) {
        return new FrameDecoder(projection, types, StatsFilter.predicateColumnsOf(batches));
      }
      CometArrow comet = CometArrow.get();
      if (comet == null) {
        throw new IllegalStateException(
            "a Comet read of a tablecache cache runs on an executor without Comet's jar");
      }
      return new CometBatchDecoder(comet, projection, types);
    }
  }

  /**
   * Cached batches → one partial aggregate row per batch ({@link PartialAggregates}); healing
   * as {@link ReadColumnar}.
   */
  static final class ReadPartialAggregates
      extends AbstractFunction2<Object, Iterator<CachedBatch>, Iterator<InternalRow>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final AggregateSlot[] slots;
    private final int cachedRddId;

    ReadPartialAggregates(AggregateSlot[] slots, int cachedRddId) {
      this.slots = slots;
      this.cachedRddId = cachedRddId;
    }

    @Override
    public Iterator<InternalRow> apply(Object partition, Iterator<CachedBatch> batches) {
      return new PartialAggregates(
          batches, slots, new BlockHealer(cachedRddId, (Integer) partition));
    }
  }

  /** Cached batches → rows of the selected columns; healing as {@link ReadColumnar}. */
  static final class ReadRows
      extends AbstractFunction2<Object, Iterator<CachedBatch>, Iterator<InternalRow>>
      implements Serializable {
    private static final long serialVersionUID = 2L;
    private final int[] projection;
    private final DataType[] types;
    private final FramesToRows.Codegen codegen;
    private final int cachedRddId;

    ReadRows(int[] projection, DataType[] types, FramesToRows.Codegen codegen, int cachedRddId) {
      this.projection = projection;
      this.types = types;
      this.codegen = codegen;
      this.cachedRddId = cachedRddId;
    }

    @Override
    public Iterator<InternalRow> apply(Object partition, Iterator<CachedBatch> batches) {
      return FramesToRows.read(
          batches, projection, types, codegen, new BlockHealer(cachedRddId, (Integer) partition));
    }
  }
}
