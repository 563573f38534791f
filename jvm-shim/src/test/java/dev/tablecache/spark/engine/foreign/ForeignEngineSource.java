package dev.tablecache.spark.engine.foreign;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A columnar data source (DataSource V2) whose batches hold {@link ForeignColumnVector}s: the
 * input a native engine hands a cache. Option {@code mode} is a {@link ForeignColumnVector.Mode};
 * option {@code transition=gluten} puts the engine's transition in Gluten's package.
 * {@value #ROWS} rows in 2 partitions, batches of 100: {@code id} (bigint), {@code x} (double,
 * null when id % 7 = 0, else id / 2) and {@code s} (string 's' || id): {@link #EXPECTED_SQL}.
 */
public final class ForeignEngineSource implements TableProvider {

  static final int ROWS = 1000;
  static final int BATCH = 100;
  static final String EXPECTED_SQL =
      "SELECT id, IF(id % 7 = 0, NULL, CAST(id AS DOUBLE) / 2) AS x, concat('s', CAST(id AS"
          + " STRING)) AS s FROM range(0, " + ROWS + ", 1, 2)";

  static final StructType SCHEMA =
      new StructType()
          .add("id", DataTypes.LongType, false)
          .add("x", DataTypes.DoubleType, true)
          .add("s", DataTypes.StringType, true);

  public ForeignEngineSource() {}

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return SCHEMA;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return new ForeignTable(
        ForeignColumnVector.Mode.valueOf(properties.getOrDefault("mode", "SEALED")),
        "gluten".equals(properties.get("transition")));
  }

  /** The scan's table: marks the plan's scan so the test engine's rule finds it. */
  static final class ForeignTable implements Table, SupportsRead, Scan, ScanBuilder, Batch {
    private final ForeignColumnVector.Mode mode;
    /** Whether the test engine's transition above this scan is the one in Gluten's package. */
    final boolean glutenTransition;

    ForeignTable(ForeignColumnVector.Mode mode, boolean glutenTransition) {
      this.mode = mode;
      this.glutenTransition = glutenTransition;
    }

    @Override
    public String name() {
      return "foreign_engine_" + mode;
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
      return SCHEMA;
    }

    @Override
    public Set<TableCapability> capabilities() {
      return EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return this;
    }

    @Override
    public Scan build() {
      return this;
    }

    @Override
    public StructType readSchema() {
      return SCHEMA;
    }

    @Override
    public Batch toBatch() {
      return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
      return new InputPartition[] {new Part(0), new Part(1)};
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return new Readers(mode);
    }
  }

  static final class Part implements InputPartition {
    private static final long serialVersionUID = 1L;
    final int index;

    Part(int index) {
      this.index = index;
    }
  }

  static final class Readers implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;
    private final ForeignColumnVector.Mode mode;

    Readers(ForeignColumnVector.Mode mode) {
      this.mode = mode;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
      return true;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      throw new UnsupportedOperationException("columnar only");
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
      return new BatchReader(((Part) partition).index, mode);
    }
  }

  static final class BatchReader implements PartitionReader<ColumnarBatch> {
    private final ForeignColumnVector.Mode mode;
    private long next;
    private final long end;
    private ColumnarBatch current;

    BatchReader(int partition, ForeignColumnVector.Mode mode) {
      this.mode = mode;
      this.next = (long) partition * (ROWS / 2);
      this.end = next + ROWS / 2;
    }

    @Override
    public boolean next() {
      closeCurrent();
      if (next >= end) {
        return false;
      }
      int n = (int) Math.min(BATCH, end - next);
      OnHeapColumnVector id = new OnHeapColumnVector(n, DataTypes.LongType);
      OnHeapColumnVector x = new OnHeapColumnVector(n, DataTypes.DoubleType);
      OnHeapColumnVector s = new OnHeapColumnVector(n, DataTypes.StringType);
      for (int r = 0; r < n; r++) {
        long v = next + r;
        id.putLong(r, v);
        if (v % 7 == 0) {
          x.putNull(r);
        } else {
          x.putDouble(r, v / 2.0);
        }
        byte[] b = ("s" + v).getBytes(StandardCharsets.UTF_8);
        s.putByteArray(r, b, 0, b.length);
      }
      next += n;
      current =
          new ColumnarBatch(
              new ColumnVector[] {
                new ForeignColumnVector(id, mode, n),
                new ForeignColumnVector(x, mode, n),
                new ForeignColumnVector(s, mode, n)
              },
              n);
      return true;
    }

    @Override
    public ColumnarBatch get() {
      return current;
    }

    @Override
    public void close() {
      closeCurrent();
    }

    private void closeCurrent() {
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }
}
