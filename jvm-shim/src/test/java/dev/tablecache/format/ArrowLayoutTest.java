package dev.tablecache.format;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Batches;
import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCache;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.WriteOptions;
import dev.tablecache.jni.NativeCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The JVM's layout table ({@link ArrowLayout}) held to the native one ({@code layout.rs}): for
 * every node of every type a frame carries, as the native decoder hands it over, the buffers the
 * table gives the node are the ones the descriptor has, and each buffer's size is what the
 * table's shape and width make of the node's length (the native side slices every buffer to
 * exactly that). Also to Arrow Java's own {@link TypeLayout}, which the importer's vector loader
 * consumes buffers by.
 */
class ArrowLayoutTest extends NativeTestBase {

  /** Every shape and width of layout.rs beyond {@link Batches#ALL_FIELDS}; all null. */
  private static final List<Field> MORE_TYPES =
      Arrays.asList(
          Field.nullable("null", ArrowType.Null.INSTANCE),
          Field.nullable("u8", new ArrowType.Int(8, false)),
          Field.nullable("u64", new ArrowType.Int(64, false)),
          Field.nullable("dec256", new ArrowType.Decimal(76, 10, 256)),
          Field.nullable("date_ms", new ArrowType.Date(DateUnit.MILLISECOND)),
          Field.nullable("time32", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
          Field.nullable("time64", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
          Field.nullable("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
          Field.nullable("duration", new ArrowType.Duration(TimeUnit.MICROSECOND)),
          Field.nullable("year_month", new ArrowType.Interval(IntervalUnit.YEAR_MONTH)),
          Field.nullable("day_time", new ArrowType.Interval(IntervalUnit.DAY_TIME)),
          Field.nullable("month_day_nano", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)),
          Field.nullable("fbin7", new ArrowType.FixedSizeBinary(7)),
          Field.nullable("lbin", ArrowType.LargeBinary.INSTANCE),
          new Field(
              "llist",
              FieldType.nullable(ArrowType.LargeList.INSTANCE),
              Arrays.asList(Field.nullable("item", ArrowType.Utf8.INSTANCE))));

  @Test
  void everyNodeOfEveryTypeIsLaidOutAsTheNativeDecoderHandsItOver() {
    try (VectorSchemaRoot values = Batches.allTypes(allocator);
        VectorSchemaRoot nulls = VectorSchemaRoot.create(new Schema(MORE_TYPES), allocator)) {
      nulls.allocateNew();
      nulls.setRowCount(Batches.ROWS);
      for (VectorSchemaRoot root : Arrays.asList(values, nulls)) {
        byte[] frame = TableCache.serialize(root, WriteOptions.defaults());
        long[] descriptor = NativeCodec.deserializeProjected(frame, null, false);
        try {
          checkDescriptor(descriptor, root.getSchema().getFields());
        } finally {
          handles(descriptor).forEach(NativeCodec::release);
        }
      }
    }
  }

  /** The column handles of a descriptor (docs/ARCHITECTURE.md, "Output"). */
  private static List<Long> handles(long[] d) {
    List<Long> handles = new ArrayList<>();
    for (int p = 2; p < d.length; p += 4 + 2 * (int) (d[p + 2] + d[p + 3])) {
      handles.add(d[p]);
    }
    return handles;
  }

  /** Walks the descriptor's columns against the fields. */
  private static void checkDescriptor(long[] d, List<Field> fields) {
    assertEquals(fields.size(), d[1], "columns");
    int p = 2;
    for (Field field : fields) {
      assertEquals(0, d[p + 1], field + ": kind (plain)");
      int nodes = (int) d[p + 2];
      int buffers = (int) d[p + 3];
      Column c = new Column(d, p + 4, p + 4 + 2 * nodes);
      c.node(field);
      assertEquals(nodes, c.node, field + ": nodes");
      assertEquals(buffers, c.buffer, field + ": buffers");
      assertArrayEquals(new int[] {nodes, buffers}, ArrowLayout.counts(field), field.toString());
      p += 4 + 2 * nodes + 2 * buffers;
    }
    assertEquals(d.length, p, "descriptor fully read");
  }

  /** A cursor over one column's nodes and buffers in the descriptor. */
  private static final class Column {
    final long[] d;
    final int nodesAt;
    final int buffersAt;
    int node;
    int buffer;

    Column(long[] d, int nodesAt, int buffersAt) {
      this.d = d;
      this.nodesAt = nodesAt;
      this.buffersAt = buffersAt;
    }

    /** Checks the node of {@code field} and, in pre-order, its children's. */
    void node(Field field) {
      long length = d[nodesAt + 2 * node++];
      ArrowLayout layout = ArrowLayout.of(field.getType());
      String what = field + " as " + layout;
      assertEquals(
          TypeLayout.getTypeBufferCount(field.getType()), layout.buffers(), what + ": Arrow Java");
      for (int k = 0; k < layout.buffers(); k++) {
        long size = d[buffersAt + 2 * buffer++ + 1];
        long bitmap = (length + 7) / 8;
        if (k == 0) {
          assertTrue(size == 0 || size == bitmap, what + ": validity of " + size + " bytes");
        } else if (layout.shape() == ArrowLayout.Shape.BOOLEAN) {
          assertEquals(bitmap, size, what + ": value bits");
        } else if (layout.shape() == ArrowLayout.Shape.FIXED) {
          assertEquals(length * layout.width(), size, what + ": values");
        } else if (k == 1) { // VARIABLE, LIST
          assertEquals((length + 1) * layout.width(), size, what + ": offsets");
        }
      }
      for (Field child : field.getChildren()) {
        node(child);
      }
    }
  }

  @Test
  void aTypeNoFrameCarriesHasNoLayout() {
    assertKind(
        Kind.UNSUPPORTED_TYPE,
        () -> ArrowLayout.of(new ArrowType.Union(UnionMode.Sparse, new int[] {0})));
  }
}
