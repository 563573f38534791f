package dev.tablecache.format;

import static dev.tablecache.format.LittleEndian.i32;

import dev.tablecache.CacheFormat;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads the metadata of a legacy cached batch (FORMAT.md section 5): a schema message, exactly one
 * record-batch message and the end-of-stream marker, nothing after it. Message bodies are skipped,
 * never read.
 */
final class LegacyStreamParser {

  private LegacyStreamParser() {}

  /** One IPC message's framing: where it starts, its metadata and its body length. */
  private static final class Msg {
    final int start;
    final int metadataEnd; // start + 8 + metadata length
    final long bodyLength;
    final MessageMetadataResult metadata; // null for the end-of-stream marker

    Msg(int start, int metadataEnd, long bodyLength, MessageMetadataResult metadata) {
      this.start = start;
      this.metadataEnd = metadataEnd;
      this.bodyLength = bodyLength;
      this.metadata = metadata;
    }

    boolean isEndOfStream() {
      return metadata == null;
    }

    long end() {
      return metadataEnd + bodyLength;
    }
  }

  static ParsedFrame parse(byte[] b) {
    try {
      return parseUnchecked(b);
    } catch (TableCacheException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      // Flatbuffer accessors do not validate: garbage metadata throws from anywhere inside.
      throw new TableCacheException(Kind.CORRUPT_FRAME, "undecodable IPC message: " + e, e);
    }
  }

  private static ParsedFrame parseUnchecked(byte[] b) {
    Msg schemaMsg = readMessage(b, 0);
    if (schemaMsg.isEndOfStream() || schemaMsg.metadata.headerType() != MessageHeader.Schema) {
      throw corrupt("legacy stream does not start with a schema message");
    }
    // Same decoder (and cache) as a frame's schema section: the message bytes are identical.
    Schema schema =
        SchemaCodec.decode(b, schemaMsg.start, schemaMsg.metadataEnd - schemaMsg.start);
    Msg batchMsg = readMessage(b, schemaMsg.end());
    if (batchMsg.isEndOfStream()) {
      throw corrupt("legacy stream has no record batch");
    }
    byte type = batchMsg.metadata.headerType();
    if (type == MessageHeader.DictionaryBatch) {
      throw corrupt("legacy stream holds a dictionary batch, which is not supported");
    }
    if (type != MessageHeader.RecordBatch) {
      throw corrupt("legacy stream message 2 has header type " + type + ", expected RecordBatch");
    }
    long rowCount;
    try {
      RecordBatch rb = (RecordBatch) batchMsg.metadata.getMessage().header(new RecordBatch());
      rowCount = rb.length();
    } catch (RuntimeException e) {
      throw new TableCacheException(Kind.CORRUPT_FRAME, "undecodable record batch header: " + e, e);
    }
    if (rowCount < 0) {
      throw corrupt("legacy record batch has negative length " + rowCount);
    }
    Msg eos = readMessage(b, batchMsg.end());
    if (!eos.isEndOfStream()) {
      throw corrupt(
          eos.metadata.headerType() == MessageHeader.RecordBatch
              ? "legacy stream holds a second record batch"
              : "legacy stream has an extra message after its record batch");
    }
    if (eos.end() != b.length) {
      throw corrupt(
          "TrailingBytes: " + (b.length - eos.end()) + " bytes after the end-of-stream marker");
    }
    return new ParsedFrame(
        b,
        CacheFormat.LEGACY,
        0,
        rowCount,
        schema.getFields().size(),
        schemaMsg.start,
        schemaMsg.end() - schemaMsg.start,
        0,
        0,
        0,
        0,
        null,
        schema);
  }

  private static Msg readMessage(byte[] b, long start) {
    if (start + 8 > b.length) {
      throw corrupt("Truncated: legacy stream ends at byte " + b.length + " inside a message");
    }
    int s = (int) start;
    if (i32(b, s) != -1) {
      throw corrupt("legacy stream message at byte " + s + " lacks the continuation marker");
    }
    int metaLen = i32(b, s + 4);
    if (metaLen == 0) {
      return new Msg(s, s + 8, 0, null);
    }
    if (metaLen < 0 || metaLen > b.length - (s + 8L)) {
      throw corrupt(
          "LengthOutOfBounds: message metadata of " + metaLen + " bytes at byte " + s
              + " runs past the end");
    }
    MessageMetadataResult result;
    // The channel sees only this message's bytes, so Arrow's reads stay within the input.
    try (ReadChannel in =
        new ReadChannel(Channels.newChannel(new ByteArrayInputStream(b, s, 8 + metaLen)))) {
      result = MessageSerializer.readMessage(in);
    } catch (IOException | RuntimeException e) {
      throw new TableCacheException(
          Kind.CORRUPT_FRAME, "undecodable IPC message at byte " + s + ": " + e, e);
    }
    if (result == null) {
      throw corrupt("Truncated: IPC message at byte " + s);
    }
    long body = result.getMessageBodyLength();
    int metadataEnd = s + 8 + metaLen;
    if (body < 0 || body > b.length - (long) metadataEnd) {
      throw corrupt(
          "LengthOutOfBounds: message body of " + body + " bytes at byte " + metadataEnd
              + " runs past the end");
    }
    return new Msg(s, metadataEnd, body, result);
  }

  private static TableCacheException corrupt(String message) {
    return new TableCacheException(Kind.CORRUPT_FRAME, message);
  }
}
