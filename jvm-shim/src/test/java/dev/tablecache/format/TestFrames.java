package dev.tablecache.format;

import dev.tablecache.Java8;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.Checksum;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds V2/V3 frames byte by byte from FORMAT.md alone (no native code), so parser tests can
 * craft every malformation. Payload contents are opaque to the parser, so they are arbitrary.
 */
public final class TestFrames {

  /** The header's ENCODED flag, for the tests outside this package. */
  public static final int FLAG_ENCODED = FrameParser.FLAG_ENCODED;

  private TestFrames() {}

  public static byte[] schemaMessage(Field... fields) {
    return schemaMessage(new Schema(Arrays.asList(fields)));
  }

  /**
   * The encapsulated IPC schema message, written by Arrow's {@link MessageSerializer} (what Arrow
   * 18's {@code Schema.serializeAsMessage} does; Arrow 12, in Spark 3.5, has only this form).
   */
  public static byte[] schemaMessage(Schema schema) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), schema);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Reads an encapsulated IPC schema message with Arrow's {@link MessageSerializer}. */
  static Schema schemaOf(byte[] message) {
    try {
      return MessageSerializer.deserializeSchema(
          new ReadChannel(Channels.newChannel(new ByteArrayInputStream(message))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- little-endian encoders for stats bounds and fields ----

  static byte[] u32(long v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array();
  }

  static byte[] i64(long v) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
  }

  static byte[] f64(double v) {
    return i64(Double.doubleToRawLongBits(v));
  }

  static byte[] bool(boolean v) {
    return new byte[] {(byte) (v ? 1 : 0)};
  }

  static byte[] utf8(String s) {
    return utf8Raw(s.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] utf8Raw(byte[] b) {
    return concat(u32(b.length), b);
  }

  static byte[] dec(BigInteger v) {
    byte[] be = v.toByteArray();
    byte[] le = new byte[16];
    byte fill = (byte) (v.signum() < 0 ? 0xFF : 0);
    Arrays.fill(le, fill);
    for (int i = 0; i < be.length && i < 16; i++) {
      le[i] = be[be.length - 1 - i];
    }
    return le;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      Java8.writeBytes(out, p);
    }
    return out.toByteArray();
  }

  /** One stats entry: counts, flags byte, bound kind byte, then the encoded bounds. */
  static byte[] statsEntry(
      long nulls, long rows, long size, int flags, int kind, byte[]... bounds) {
    return concat(
        u32(nulls), u32(rows), i64(size), new byte[] {(byte) flags, (byte) kind}, concat(bounds));
  }

  static final int UNSUPPORTED = 1;
  static final int HAS_NAN = 2;
  static final int HAS_LOWER = 4;
  static final int HAS_UPPER = 8;
  static final int BOTH = HAS_LOWER | HAS_UPPER;

  /** A stats section: u32 column count, then the entries. */
  static byte[] statsSection(byte[]... entries) {
    return concat(u32(entries.length), concat(entries));
  }

  /** A payload: its stored bytes and directory codec/raw length/encoding. */
  static final class Payload {
    final byte[] stored;
    final int codec;
    final long rawLen;
    final int encoding;

    Payload(byte[] stored, int codec, long rawLen) {
      this(stored, codec, rawLen, 0);
    }

    Payload(byte[] stored, int codec, long rawLen, int encoding) {
      this.stored = stored;
      this.codec = codec;
      this.rawLen = rawLen;
      this.encoding = encoding;
    }

    /** The same bytes with another directory encoding id (the parser never decodes them). */
    Payload encoding(int id) {
      return new Payload(stored, codec, rawLen, id);
    }

    static Payload raw(int len) {
      byte[] b = new byte[len];
      for (int i = 0; i < len; i++) {
        b[i] = (byte) (i * 31 + 7);
      }
      return new Payload(b, 0, len);
    }
  }

  /** Frame builder; defaults give a valid frame. */
  public static final class Builder {
    int version = 3;
    int checksumKind = 1;
    Integer flagsOverride;
    int reserved;
    long rowCount;
    Long columnCount;
    byte[] schema;
    byte[] stats; // null = no stats section
    List<Payload> payloads = new ArrayList<>();
    Long metaChecksumOverride;

    Builder version(int v) {
      version = v;
      return this;
    }

    Builder rows(long r) {
      rowCount = r;
      return this;
    }

    Builder columns(long c) {
      columnCount = c;
      return this;
    }

    Builder schema(Field... fields) {
      schema = schemaMessage(fields);
      if (columnCount == null) {
        columnCount = (long) fields.length;
      }
      return this;
    }

    Builder schemaBytes(byte[] b) {
      schema = b;
      return this;
    }

    Builder stats(byte[] section) {
      stats = section;
      return this;
    }

    Builder payload(Payload p) {
      payloads.add(p);
      return this;
    }

    Builder checksumKind(int k) {
      checksumKind = k;
      return this;
    }

    Builder flags(int f) {
      flagsOverride = f;
      return this;
    }

    public byte[] build() {
      ByteArrayOutputStream meta = new ByteArrayOutputStream();
      Java8.writeBytes(meta, schema);
      if (stats != null) {
        Java8.writeBytes(meta, stats);
      }
      long offset = 0;
      for (Payload p : payloads) {
        long crc = checksumKind == 1 ? crc(p.stored) : 0;
        Java8.writeBytes(meta, u32(offset));
        Java8.writeBytes(meta, u32(p.stored.length));
        Java8.writeBytes(meta, u32(p.rawLen));
        Java8.writeBytes(meta, u32(crc));
        Java8.writeBytes(meta, new byte[] {(byte) p.codec, (byte) p.encoding, 0, 0});
        if (version == 4) {
          Java8.writeBytes(meta, u32(p.rawLen)); // decoded_len: the plain body, here the raw bytes
        }
        offset += p.stored.length;
      }
      boolean encoded = payloads.stream().anyMatch(p -> p.encoding != 0);
      int flags =
          flagsOverride != null
              ? flagsOverride
              : (stats != null && stats.length > 0 ? 1 : 0)
                  | (checksumKind << 1)
                  | (encoded ? FrameParser.FLAG_ENCODED : 0);
      ByteBuffer h = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
      h.put((byte) 0x89).put((byte) 0x54).put((byte) 0x43).put((byte) 0x46);
      h.put((byte) version).put((byte) flags).putShort((short) reserved);
      h.putInt((int) rowCount);
      h.putInt((int) (long) (columnCount == null ? 0 : columnCount));
      h.putInt(schema.length);
      h.putInt(stats == null ? 0 : stats.length);
      h.putInt(0);
      byte[] out = concat(h.array(), meta.toByteArray());
      for (Payload p : payloads) {
        out = concat(out, p.stored);
      }
      long metaCrc = checksumKind == 1 ? metaCrc(out, out.length - (int) offset) : 0;
      if (metaChecksumOverride != null) {
        metaCrc = metaChecksumOverride;
      }
      System.arraycopy(u32(metaCrc), 0, out, 24, 4);
      return out;
    }
  }

  static Builder v3() {
    return new Builder();
  }

  static Builder v2() {
    return new Builder().version(2);
  }

  /** V4: V3's metadata; the payloads stand in for bodies the Java parser never reads. */
  static Builder v4() {
    return new Builder().version(4);
  }

  static long crc(byte[] b) {
    Checksum c = ReferenceCrc32c.create();
    c.update(b, 0, b.length);
    return c.getValue();
  }

  static long metaCrc(byte[] frame, int payloadStart) {
    return dev.tablecache.format.Header.metaChecksum(ReferenceCrc32c.create(), frame, payloadStart);
  }

  /** The payload start a frame's header implies (V3, V4: column_count entries, V2: one). */
  static long payloadStart(byte[] f) {
    ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
    long cols = b.getInt(12) & 0xFFFFFFFFL;
    long entries = f[4] == 3 || f[4] == 4 ? cols : 1;
    long entryLen = f[4] == 4 ? 24 : 20;
    return 28 + (b.getInt(16) & 0xFFFFFFFFL) + (b.getInt(20) & 0xFFFFFFFFL) + entryLen * entries;
  }

  /** Rewrites the meta checksum after a deliberate edit, so deeper rules become reachable. */
  public static byte[] refreshChecksum(byte[] f) {
    byte[] out = f.clone();
    long ps = payloadStart(out);
    if (ps <= out.length) {
      System.arraycopy(u32(metaCrc(out, (int) ps)), 0, out, 24, 4);
    }
    return out;
  }

  public static byte[] putU32(byte[] f, int at, long v) {
    byte[] out = f.clone();
    System.arraycopy(u32(v), 0, out, at, 4);
    return out;
  }

  public static byte[] putU8(byte[] f, int at, int v) {
    byte[] out = f.clone();
    out[at] = (byte) v;
    return out;
  }
}
