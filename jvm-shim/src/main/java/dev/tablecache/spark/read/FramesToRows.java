package dev.tablecache.spark.read;

import dev.tablecache.spark.heal.BlockHealer;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.io.Serializable;
import java.util.Locale;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.Iterator;

/**
 * Row output, on the same decode as {@link FramesToColumnar}: a {@link GeneratedRowReader}
 * specialised to the projected types, or {@link ProjectedRows} where Spark would not use
 * generated code either. Either way rows are {@code UnsafeRow} copies (Spark's reused-row
 * convention), so none points into a decoded batch's native memory, which is freed as soon as
 * the next batch is decoded.
 */
public final class FramesToRows {

  private static final Logger LOG = LoggerFactory.getLogger(FramesToRows.class);

  private FramesToRows() {}

  /** Spark's {@code spark.sql.codegen.factoryMode}, which decides as it does for projections. */
  public enum Codegen implements Serializable {
    /** Generated code; the generic path when it does not compile (Spark's default). */
    FALLBACK,
    /** Generated code; a compile error fails the task. */
    CODEGEN_ONLY,
    /** No generated code. */
    NO_CODEGEN;

    public static Codegen of(String factoryMode) {
      try {
        return valueOf(factoryMode.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException | NullPointerException e) {
        return FALLBACK;
      }
    }
  }

  public static Iterator<InternalRow> read(
      Iterator<CachedBatch> in, int[] projection, DataType[] types, Codegen codegen) {
    return read(in, projection, types, codegen, BlockHealer.NONE);
  }

  public static Iterator<InternalRow> read(
      Iterator<CachedBatch> in,
      int[] projection,
      DataType[] types,
      Codegen codegen,
      BlockHealer healer) {
    Iterator<ColumnarBatch> batches = new FramesToColumnar(in, projection, types, healer);
    GeneratedRowReader reader = codegen == Codegen.NO_CODEGEN ? null : generated(types, codegen);
    if (reader == null) {
      TableCacheMetrics.ROW_READERS_PROJECTED.increment();
      return new ProjectedRows(batches, types);
    }
    TableCacheMetrics.ROW_READERS_GENERATED.increment();
    return reader.reading(batches);
  }

  private static GeneratedRowReader generated(DataType[] types, Codegen codegen) {
    try {
      return RowReaderCodegen.newReader(types);
    } catch (RuntimeException e) {
      if (codegen == Codegen.CODEGEN_ONLY) {
        throw e;
      }
      LOG.warn(
          "tablecache: the generated row reader did not compile; rows go through a projection",
          e);
      return null;
    }
  }
}
