package dev.tablecache.jni;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns the native decoder's descriptor (docs/ARCHITECTURE.md, "Output") into a
 * {@link VectorSchemaRoot} whose vectors point straight at native memory.
 *
 * <p>Ownership: each non-empty native buffer is wrapped with
 * {@link BufferAllocator#wrapForeignAllocation}; the buffers of one column share one
 * {@link NativeColumnOwner}, which frees the column when the last of them is released, i.e. when
 * the vectors close. Until the root is handed out, this class holds one reference to every
 * wrapped buffer, so any failure midway releases everything it wrapped and every column no
 * buffer took.
 */
public final class BatchImporter {

  private BatchImporter() {}

  /** One column of the descriptor. */
  /** Descriptor kind of a column in Arrow's own buffers for its type. */
  static final long PLAIN = 0;

  /**
   * Descriptor kind of a string or binary column kept as a dictionary: one node, then validity,
   * one int key per value, the entries' int offsets, the entries' bytes.
   */
  static final long DICTIONARY_STRINGS = 1;

  private static final class ColumnDesc {
    final long handle;
    final long kind;
    final long[] nodes; // (length, null_count) pairs
    final long[] buffers; // (address, size) pairs
    NativeColumnOwner owner;
    final List<NativeColumnOwner.Unit> units = new ArrayList<>();
    final List<Boolean> wrapped = new ArrayList<>();

    ColumnDesc(long handle, long kind, long[] nodes, long[] buffers) {
      this.handle = handle;
      this.kind = kind;
      this.nodes = nodes;
      this.buffers = buffers;
    }
  }

  /**
   * Builds the root for a descriptor from {@code NativeCodec.deserializeProjected}.
   *
   * @param frameSchema the frame's full schema
   * @param projection the projection passed to the native call (null = all columns)
   * @throws TableCacheException INTERNAL for a malformed descriptor, CORRUPT_FRAME when it
   *     disagrees with the schema; every native handle is released before it is thrown
   */
  public static VectorSchemaRoot importBatch(
      long[] descriptor, Schema frameSchema, int[] projection, BufferAllocator allocator) {
    List<ColumnDesc> columns = new ArrayList<>();
    try {
      List<Field> fields = new ArrayList<>();
      int rowCount = parse(descriptor, frameSchema, projection, columns, fields);
      if (fields.isEmpty()) {
        return new VectorSchemaRoot(Collections.emptyList(), Collections.emptyList(), rowCount);
      }
      for (int i = 0; i < fields.size(); i++) {
        checkRepresentable(fields.get(i));
        if (columns.get(i).kind != PLAIN) {
          // Only importColumns' callers ask the decoder for dictionaries.
          throw internal("descriptor column " + i + " is of kind " + columns.get(i).kind);
        }
        checkLayout(fields.get(i), columns.get(i), i);
      }
      Schema schema = new Schema(fields, frameSchema.getCustomMetadata());
      try {
        return load(schema, rowCount, columns, allocator);
      } catch (TableCacheException | OutOfMemoryException e) {
        throw e;
      } catch (RuntimeException e) {
        // Arrow Java refused what arrow-rs accepted: the two readers disagree on this schema.
        throw new TableCacheException(
            Kind.UNSUPPORTED_TYPE, "Arrow Java cannot load this batch (" + schema + "): " + e, e);
      }
    } catch (RuntimeException | Error e) {
      releaseUnowned(columns, e);
      throw e;
    }
  }

  /**
   * The columns of a descriptor from {@code NativeCodec.deserializeProjected} as they lie in
   * native memory, for readers that need no Arrow Java vectors: every projected field must be
   * flat (one node, no children). The caller owns the columns and releases each exactly once.
   *
   * @param frameSchema the frame's full schema
   * @param projection the projection passed to the native call (null = all columns)
   * @throws TableCacheException INTERNAL for a malformed descriptor, CORRUPT_FRAME when it
   *     disagrees with the schema, UNSUPPORTED_TYPE for a nested field; every native handle is
   *     released before it is thrown
   */
  public static NativeColumn[] importColumns(
      long[] descriptor, Schema frameSchema, int[] projection) {
    List<ColumnDesc> columns = new ArrayList<>();
    try {
      List<Field> fields = new ArrayList<>();
      int rowCount = parse(descriptor, frameSchema, projection, columns, fields);
      NativeColumn[] out = new NativeColumn[fields.size()];
      for (int i = 0; i < out.length; i++) {
        Field field = fields.get(i);
        ColumnDesc c = columns.get(i);
        if (!field.getChildren().isEmpty()) {
          throw new TableCacheException(
              Kind.UNSUPPORTED_TYPE, "column " + i + " ('" + ErrorText.name(field.getName()) + "') is not flat");
        }
        boolean dictionary = c.kind == DICTIONARY_STRINGS;
        if (dictionary) {
          checkDictionaryLayout(field, c, i);
        } else if (c.kind == PLAIN) {
          checkLayout(field, c, i);
        } else {
          throw internal("descriptor column " + i + " is of kind " + c.kind);
        }
        if (c.nodes[0] != rowCount || c.nodes[1] < 0 || c.nodes[1] > rowCount) {
          throw internal(
              "column " + i + " has " + c.nodes[0] + " values, " + c.nodes[1] + " nulls, the batch "
                  + rowCount + " rows");
        }
        out[i] =
            new NativeColumn(field, rowCount, (int) c.nodes[1], c.buffers, c.handle, dictionary);
      }
      // Only now do the columns own their handles: a failure above releases every one of them.
      return out;
    } catch (RuntimeException | Error e) {
      releaseUnowned(columns, e);
      throw e;
    }
  }

  private static VectorSchemaRoot load(
      Schema schema, int rowCount, List<ColumnDesc> columns, BufferAllocator allocator) {
    List<ArrowFieldNode> nodes = new ArrayList<>();
    List<ArrowBuf> buffers = new ArrayList<>();
    List<ArrowBuf> ours = new ArrayList<>(); // our own reference to each wrapped buffer
    for (ColumnDesc c : columns) {
      int nonEmpty = 0;
      for (int j = 1; j < c.buffers.length; j += 2) {
        if (c.buffers[j] != 0) {
          nonEmpty++;
        }
      }
      c.owner = new NativeColumnOwner(c.handle, nonEmpty);
    }
    VectorSchemaRoot root = null;
    ArrowRecordBatch batch = null;
    boolean ok = false;
    try {
      for (ColumnDesc c : columns) {
        for (int j = 0; j < c.nodes.length; j += 2) {
          nodes.add(new ArrowFieldNode(c.nodes[j], c.nodes[j + 1]));
        }
        for (int j = 0; j < c.buffers.length; j += 2) {
          long address = c.buffers[j];
          long size = c.buffers[j + 1];
          if (size == 0) {
            buffers.add(allocator.getEmpty());
            continue;
          }
          NativeColumnOwner.Unit unit = c.owner.unit(address, size);
          c.units.add(unit);
          c.wrapped.add(Boolean.FALSE);
          ArrowBuf buf = allocator.wrapForeignAllocation(unit);
          c.wrapped.set(c.wrapped.size() - 1, Boolean.TRUE);
          ours.add(buf);
          buffers.add(buf);
        }
        // A column of only empty buffers (0 rows, Null type) holds no native memory past here.
        c.owner.releaseIfUnused();
      }
      root = VectorSchemaRoot.create(schema, allocator);
      batch = new ArrowRecordBatch(rowCount, nodes, buffers);
      new VectorLoader(root).load(batch);
      ok = true;
      return root;
    } finally {
      if (batch != null) {
        batch.close();
      }
      if (!ok && root != null) {
        root.close();
      }
      // Drop our references: on success the vectors now hold the only ones, on failure this
      // frees the native memory through NativeColumnOwner.
      for (ArrowBuf b : ours) {
        b.close();
      }
    }
  }

  /**
   * Releases every handle of a descriptor that will not be imported. Best effort on a malformed
   * descriptor: handles past the point where it stops making sense cannot be found.
   */
  public static void releaseAll(long[] descriptor, Throwable failure) {
    List<ColumnDesc> columns = new ArrayList<>();
    try {
      parseDescriptor(descriptor, columns);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
    releaseUnowned(columns, failure);
  }

  /** Releases what no ArrowBuf owns after a failure: unwrapped units and unstarted columns. */
  private static void releaseUnowned(List<ColumnDesc> columns, Throwable failure) {
    for (ColumnDesc c : columns) {
      try {
        if (c.owner == null) {
          dev.tablecache.jni.NativeCodec.release(c.handle);
          continue;
        }
        for (int k = 0; k < c.units.size(); k++) {
          if (!c.wrapped.get(k)) {
            c.units.get(k).releaseUnwrapped();
          }
        }
        // Units never created (the failure came first) still count in the owner.
        int created = c.units.size();
        int total = 0;
        for (int j = 1; j < c.buffers.length; j += 2) {
          if (c.buffers[j] != 0) {
            total++;
          }
        }
        for (int k = created; k < total; k++) {
          NativeColumnOwner.Unit u = c.owner.unit(0, 0);
          u.releaseUnwrapped();
        }
        c.owner.releaseIfUnused();
      } catch (RuntimeException | Error e) {
        failure.addSuppressed(e);
      }
    }
  }

  /**
   * Reads the descriptor into {@code columns} and the projected fields of the frame's schema
   * into {@code fields}, one per column; returns the row count.
   */
  private static int parse(
      long[] descriptor,
      Schema frameSchema,
      int[] projection,
      List<ColumnDesc> columns,
      List<Field> fields) {
    int rowCount = parseDescriptor(descriptor, columns);
    fields.addAll(projectedFields(frameSchema, projection));
    if (fields.size() != columns.size()) {
      throw internal(
          "descriptor has " + columns.size() + " columns, projection selects " + fields.size());
    }
    return rowCount;
  }

  /** Reads the descriptor, collecting columns as far as it is well formed; returns row count. */
  private static int parseDescriptor(long[] d, List<ColumnDesc> out) {
    if (d == null || d.length < 2) {
      throw internal("descriptor is " + (d == null ? "null" : "too short"));
    }
    long rows = d[0];
    long count = d[1];
    if (rows < 0 || rows > Integer.MAX_VALUE || count < 0) {
      throw internal("descriptor has row count " + rows + ", column count " + count);
    }
    int p = 2;
    for (long c = 0; c < count; c++) {
      if (p + 4 > d.length) {
        throw internal("descriptor ends inside column " + c);
      }
      long handle = d[p];
      long kind = d[p + 1];
      long n = d[p + 2];
      long b = d[p + 3];
      if (n < 0 || b < 0 || p + 4 + 2 * (n + b) > d.length) {
        // The handle itself is known: release it with the others.
        out.add(new ColumnDesc(handle, kind, new long[0], new long[0]));
        throw internal("descriptor column " + c + " has bad node/buffer counts " + n + "/" + b);
      }
      long[] nodes = new long[(int) (2 * n)];
      System.arraycopy(d, p + 4, nodes, 0, nodes.length);
      long[] buffers = new long[(int) (2 * b)];
      System.arraycopy(d, p + 4 + nodes.length, buffers, 0, buffers.length);
      out.add(new ColumnDesc(handle, kind, nodes, buffers));
      p += 4 + nodes.length + buffers.length;
      for (int j = 0; j < buffers.length; j += 2) {
        if (buffers[j + 1] < 0 || (buffers[j + 1] > 0 && buffers[j] == 0)) {
          throw internal("descriptor column " + c + " has a bad buffer " + j / 2);
        }
      }
    }
    if (p != d.length) {
      throw internal("descriptor has " + (d.length - p) + " trailing values");
    }
    return (int) rows;
  }

  private static List<Field> projectedFields(Schema schema, int[] projection) {
    List<Field> all = schema.getFields();
    if (projection == null) {
      return all;
    }
    List<Field> out = new ArrayList<>(projection.length);
    for (int i : projection) {
      if (i < 0 || i >= all.size()) {
        throw new TableCacheException(
            Kind.COLUMN_OUT_OF_RANGE,
            "ColumnOutOfRange: column " + i + " of a batch with " + all.size() + " columns");
      }
      out.add(all.get(i));
    }
    return out;
  }

  /**
   * Rejects Arrow types that arrow-rs accepts but Arrow Java cannot hold faithfully: duplicate
   * child names (Arrow Java keys struct children by name) and zero-width fixed-size binary.
   */
  private static void checkRepresentable(Field field) {
    ArrowType t = field.getType();
    String problem = null;
    if (t instanceof ArrowType.FixedSizeBinary && ((ArrowType.FixedSizeBinary) t).getByteWidth() <= 0) {
      problem = "a fixed-size binary of width " + ((ArrowType.FixedSizeBinary) t).getByteWidth();
    } else if (t instanceof ArrowType.FixedSizeList && ((ArrowType.FixedSizeList) t).getListSize() < 0) {
      problem = "a fixed-size list of size " + ((ArrowType.FixedSizeList) t).getListSize();
    } else if (t instanceof ArrowType.Struct) {
      Set<String> names = new HashSet<>();
      for (Field child : field.getChildren()) {
        if (!names.add(child.getName())) {
          problem = "a struct with two children named '" + ErrorText.name(child.getName()) + "'";
        }
      }
    }
    if (problem != null) {
      throw new TableCacheException(
          Kind.UNSUPPORTED_TYPE,
          "column part '" + ErrorText.name(field.getName()) + "' is " + problem + ", which Arrow Java cannot represent");
    }
    for (Field child : field.getChildren()) {
      checkRepresentable(child);
    }
  }

  /**
   * The node and buffer counts Arrow Java will consume must be exactly what native returned. The
   * descriptor follows the schema arrow-rs read from the frame, {@code field} the one Arrow Java
   * read from the same bytes: a well-formed schema reads the same in both, so a disagreement
   * means the embedded schema is damaged in a way one reader tolerates (CORRUPT_FRAME).
   */
  private static void checkDictionaryLayout(Field field, ColumnDesc c, int column) {
    if (field.getDictionary() != null) {
      // A dictionary in the frame's own schema, not one the decoder made of a string column.
      throw new TableCacheException(
          Kind.UNSUPPORTED_TYPE,
          "column " + column + " ('" + ErrorText.name(field.getName()) + "') is dictionary-encoded");
    }
    ArrowType t = field.getType();
    if (!(t instanceof ArrowType.Utf8 || t instanceof ArrowType.Binary)
        || c.nodes.length != 2
        || c.buffers.length != 8) {
      throw new TableCacheException(
          Kind.CORRUPT_FRAME,
          "InvalidSchema: column "
              + column
              + " ('"
              + ErrorText.name(field.getName())
              + "') of type "
              + t
              + " came back as a string dictionary of "
              + c.nodes.length / 2
              + " nodes/"
              + c.buffers.length / 2
              + " buffers");
    }
  }

  private static void checkLayout(Field field, ColumnDesc c, int column) {
    int[] counts = dev.tablecache.format.ArrowLayout.counts(field);
    if (counts[0] * 2 != c.nodes.length || counts[1] * 2 != c.buffers.length) {
      throw new TableCacheException(
          Kind.CORRUPT_FRAME,
          "InvalidSchema: column "
              + column
              + " ('"
              + field.getName()
              + "') reads as "
              + counts[0]
              + " nodes/"
              + counts[1]
              + " buffers in Arrow Java, "
              + c.nodes.length / 2
              + "/"
              + c.buffers.length / 2
              + " in the native decoder: the embedded schema is damaged");
    }
  }

  private static TableCacheException internal(String message) {
    return new TableCacheException(Kind.INTERNAL, "bad native descriptor: " + message);
  }
}
