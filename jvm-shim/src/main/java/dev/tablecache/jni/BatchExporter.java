package dev.tablecache.jni;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.SchemaCodec;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Describes a {@link VectorSchemaRoot} to the native writer by address (docs/ARCHITECTURE.md,
 * "Input"): the schema message, the IPC nodes and the IPC buffers. The buffers stay owned by the
 * root; the native side only borrows them during the call, so an {@link Exported} must stay open
 * until the call returns.
 */
public final class BatchExporter {

  private BatchExporter() {}

  /** A batch unloaded for one native call; closing it drops the references the unloader took. */
  public static final class Exported implements AutoCloseable {
    public final byte[] schema;
    public final int rowCount;
    public final long[] nodes;
    public final long[] buffers;
    private final ArrowRecordBatch batch;

    private Exported(byte[] schema, int rowCount, long[] nodes, long[] buffers, ArrowRecordBatch b) {
      this.schema = schema;
      this.rowCount = rowCount;
      this.nodes = nodes;
      this.buffers = buffers;
      this.batch = b;
    }

    @Override
    public void close() {
      if (batch != null) {
        batch.close();
      }
    }
  }

  /**
   * A batch described by address whose buffers the caller owns and keeps alive until the native
   * call returns (RelocatedArrowExporter); closing it releases nothing.
   */
  static Exported borrowed(byte[] schema, int rowCount, long[] nodes, long[] buffers) {
    return new Exported(schema, rowCount, nodes, buffers, null);
  }

  /**
   * Decoded flat columns of one batch ({@link NativeColumn}, a cached table's own output),
   * described by address under the encoded {@code schema}, whose fields they must match. The
   * caller keeps the columns unreleased until the native call returns; closing releases nothing.
   */
  public static Exported borrowedColumns(byte[] schema, int rowCount, List<NativeColumn> columns) {
    long[] nodes = new long[2 * columns.size()];
    int buffersTotal = 0;
    for (NativeColumn c : columns) {
      buffersTotal += c.bufferCount();
    }
    long[] buffers = new long[2 * buffersTotal];
    int b = 0;
    for (int i = 0; i < columns.size(); i++) {
      NativeColumn c = columns.get(i);
      if (c.length != rowCount) {
        throw new TableCacheException(
            Kind.INVALID_ARGUMENT, "column " + i + " has " + c.length + " rows, not " + rowCount);
      }
      if (c.dictionary) {
        throw new TableCacheException(
            Kind.INVALID_ARGUMENT, "column " + i + " is a dictionary, not Arrow's own layout");
      }
      nodes[2 * i] = c.length;
      nodes[2 * i + 1] = c.nullCount;
      for (int j = 0; j < c.bufferCount(); j++) {
        buffers[b++] = c.address(j);
        buffers[b++] = c.size(j);
      }
    }
    return borrowed(schema, rowCount, nodes, buffers);
  }

  /**
   * Unloads {@code root}. Dictionary-encoded fields are refused: a root does not carry their
   * dictionaries, which the format stores inline.
   *
   * @throws TableCacheException INVALID_ARGUMENT for a null root, UNSUPPORTED_TYPE for dictionary
   *     encoded fields
   */
  public static Exported export(VectorSchemaRoot root) {
    if (root == null) {
      throw new TableCacheException(Kind.INVALID_ARGUMENT, "batch is null");
    }
    for (Field f : root.getSchema().getFields()) {
      rejectDictionaries(f);
    }
    byte[] schema = SchemaCodec.encode(root.getSchema());
    // Uncompressed, with null counts: the native side reads raw Arrow buffers.
    ArrowRecordBatch batch =
        new VectorUnloader(root, true, NoCompressionCodec.INSTANCE, true).getRecordBatch();
    try {
      List<ArrowFieldNode> nodeList = batch.getNodes();
      long[] nodes = new long[nodeList.size() * 2];
      for (int i = 0; i < nodeList.size(); i++) {
        nodes[2 * i] = nodeList.get(i).getLength();
        nodes[2 * i + 1] = nodeList.get(i).getNullCount();
      }
      List<ArrowBuf> bufList = batch.getBuffers();
      long[] buffers = new long[bufList.size() * 2];
      for (int i = 0; i < bufList.size(); i++) {
        ArrowBuf buf = bufList.get(i);
        long size = buf.readableBytes();
        buffers[2 * i] = size == 0 ? 0 : buf.memoryAddress() + buf.readerIndex();
        buffers[2 * i + 1] = size;
      }
      return new Exported(schema, root.getRowCount(), nodes, buffers, batch);
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  private static void rejectDictionaries(Field field) {
    if (field.getDictionary() != null) {
      throw new TableCacheException(
          Kind.UNSUPPORTED_TYPE,
          "dictionary-encoded field '" + ErrorText.name(field.getName()) + "' cannot be cached from Java");
    }
    for (Field child : field.getChildren()) {
      rejectDictionaries(child);
    }
  }
}
