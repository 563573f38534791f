package dev.tablecache.format;

import static dev.tablecache.format.LittleEndian.i32;
import static dev.tablecache.format.LittleEndian.i64;
import static dev.tablecache.format.LittleEndian.u32;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;

/**
 * Where the length and count fields of a legacy cached batch (a plain Arrow IPC stream, FORMAT.md
 * section 5) sit: each message's metadata length prefix, and inside the flatbuffers the message
 * version, body length, and the record batch's length, nodes and buffers. The flatbuffer walk is
 * done by hand (positions are needed, not values) and checked against Arrow Java's accessors.
 */
final class LegacyLayout {

  /** A field of {@code width} bytes (4: u32/i32, 8: i64, 2: i16) at {@code at}. */
  static final class Field {
    private final String name;
    private final int at;
    private final int width;

    Field(String name, int at, int width) {
      this.name = name;
      this.at = at;
      this.width = width;
    }

    String name() {
      return name;
    }

    int at() {
      return at;
    }
  }

  /** One IPC message: prefix at {@code start}, metadata from start+8, then the body. */
  static final class Msg {
    private final int start;
    private final int metaLen;
    private final long bodyLen;
    private final byte headerType;

    Msg(int start, int metaLen, long bodyLen, byte headerType) {
      this.start = start;
      this.metaLen = metaLen;
      this.bodyLen = bodyLen;
      this.headerType = headerType;
    }

    int start() {
      return start;
    }

    byte headerType() {
      return headerType;
    }

    int metaStart() {
      return start + 8;
    }

    int bodyStart() {
      return metaStart() + metaLen;
    }

    int end() {
      return bodyStart() + (int) bodyLen;
    }
  }

  final byte[] frame;
  final List<Msg> messages = new ArrayList<>();
  /** Offset of the end-of-stream marker. */
  final int eosAt;
  /** Metadata length prefixes, including the end-of-stream marker's zero length. */
  final List<Field> lengthPrefixes = new ArrayList<>();
  /** Message.bodyLength of each message that stores it. */
  final List<Field> bodyLengths = new ArrayList<>();
  /** Message.version of each message. */
  final List<Field> versions = new ArrayList<>();
  /** RecordBatch.length, nodes[i].length/null_count, buffers[i].offset/length. */
  final List<Field> batchFields = new ArrayList<>();

  LegacyLayout(byte[] frame) {
    this.frame = frame;
    int p = 0;
    while (true) {
      if (i32(frame, p) != -1) {
        throw new IllegalStateException("no continuation marker at " + p);
      }
      lengthPrefixes.add(new Field("msg" + messages.size() + ".metadata_len", p + 4, 4));
      int metaLen = i32(frame, p + 4);
      if (metaLen == 0) {
        break;
      }
      Msg m = readMessage(p, metaLen);
      messages.add(m);
      p = m.end();
    }
    eosAt = p;
    if (p + 8 != frame.length || messages.size() != 2) {
      throw new IllegalStateException("not schema + one batch + end-of-stream");
    }
  }

  /** The schema message, bytes [0, end of message 0): the same bytes as a frame's schema section. */
  byte[] schemaSection() {
    return Arrays.copyOfRange(frame, 0, messages.get(0).end());
  }

  /** Start of the record batch body: everything before it is framing and metadata. */
  int batchBodyStart() {
    return messages.get(1).bodyStart();
  }

  private Msg readMessage(int start, int metaLen) {
    int meta = start + 8;
    Message api =
        Message.getRootAsMessage(
            ByteBuffer.wrap(frame, meta, metaLen).slice().order(ByteOrder.LITTLE_ENDIAN));
    String name = "msg" + messages.size();
    int table = meta + (int) u32(frame, meta);
    int version = field(table, 0);
    if (version >= 0) {
      check(api.version(), (short) (frame[version] & 0xFF | frame[version + 1] << 8), "version");
      versions.add(new Field(name + ".version", version, 2));
    }
    int bodyLength = field(table, 3);
    long bodyLen = bodyLength < 0 ? 0 : i64(frame, bodyLength);
    check(api.bodyLength(), bodyLen, "bodyLength");
    if (bodyLength >= 0) {
      bodyLengths.add(new Field(name + ".body_length", bodyLength, 8));
    }
    if (api.headerType() == MessageHeader.RecordBatch) {
      locateBatch(deref(field(table, 2)), (RecordBatch) api.header(new RecordBatch()), name);
    }
    return new Msg(start, metaLen, bodyLen, api.headerType());
  }

  private void locateBatch(int table, RecordBatch api, String name) {
    int length = field(table, 0);
    if (length >= 0) {
      check(api.length(), i64(frame, length), "length");
      batchFields.add(new Field(name + ".length", length, 8));
    }
    int nodes = deref(field(table, 1));
    check(api.nodesLength(), u32(frame, nodes), "nodes");
    for (int i = 0; i < api.nodesLength(); i++) {
      int at = nodes + 4 + 16 * i;
      check(api.nodes(i).length(), i64(frame, at), "node length");
      check(api.nodes(i).nullCount(), i64(frame, at + 8), "node null count");
      batchFields.add(new Field(name + ".node" + i + ".length", at, 8));
      batchFields.add(new Field(name + ".node" + i + ".null_count", at + 8, 8));
    }
    int buffers = deref(field(table, 2));
    check(api.buffersLength(), u32(frame, buffers), "buffers");
    for (int i = 0; i < api.buffersLength(); i++) {
      int at = buffers + 4 + 16 * i;
      check(api.buffers(i).offset(), i64(frame, at), "buffer offset");
      check(api.buffers(i).length(), i64(frame, at + 8), "buffer length");
      batchFields.add(new Field(name + ".buffer" + i + ".offset", at, 8));
      batchFields.add(new Field(name + ".buffer" + i + ".length", at + 8, 8));
    }
  }

  /** Absolute position of field {@code k} of the flatbuffer table at {@code table}, or -1. */
  private int field(int table, int k) {
    int vtable = table - i32(frame, table);
    int vtableSize = frame[vtable] & 0xFF | (frame[vtable + 1] & 0xFF) << 8;
    int slot = 4 + 2 * k;
    if (slot >= vtableSize) {
      return -1;
    }
    int off = frame[vtable + slot] & 0xFF | (frame[vtable + slot + 1] & 0xFF) << 8;
    return off == 0 ? -1 : table + off;
  }

  private int deref(int at) {
    if (at < 0) {
      throw new IllegalStateException("missing flatbuffer offset field");
    }
    return at + (int) u32(frame, at);
  }

  private static void check(long expected, long actual, String what) {
    if (expected != actual) {
      throw new IllegalStateException(what + ": hand walk read " + actual + ", Arrow Java " + expected);
    }
  }
}
