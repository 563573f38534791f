package dev.tablecache.spark.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.CacheFormat;
import dev.tablecache.Codec;
import dev.tablecache.Encoding;
import dev.tablecache.EncodingPolicy;
import dev.tablecache.TableCacheException;
import dev.tablecache.spark.TableCacheConf;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

/**
 * The encoding and format keys of {@link TableCacheConf}, and their trip to tasks in {@link
 * WriteSettings}.
 */
class TableCacheConfTest {

  private static WriteSettings settings(String encoding) {
    SQLConf conf = new SQLConf();
    if (encoding != null) {
      conf.setConfString(TableCacheConf.ENCODING, encoding);
    }
    return TableCacheConf.writeSettings(conf);
  }

  private static EncodingPolicy policy(String encoding) {
    return settings(encoding).options().encodingPolicy();
  }

  @Test
  void encodingDefaultsToAuto() {
    assertEquals(EncodingPolicy.AUTO, policy(null));
  }

  @Test
  void encodingIsParsedLeniently() {
    assertEquals(EncodingPolicy.AUTO, policy(" Auto "));
    assertEquals(EncodingPolicy.pinned(Encoding.PLAIN), policy(" Plain "));
    assertEquals(EncodingPolicy.pinned(Encoding.BYTE_STREAM_SPLIT), policy("byte-stream-split"));
    TableCacheException e = assertThrows(TableCacheException.class, () -> settings("delta"));
    assertTrue(e.getMessage().contains("delta"), e.getMessage());
  }

  private static WriteSettings withFormat(String format) {
    SQLConf conf = new SQLConf();
    conf.setConfString("spark.tablecache.format", format);
    return TableCacheConf.writeSettings(conf);
  }

  @Test
  void formatDefaultsToV4() throws Exception {
    assertEquals(CacheFormat.V4, settings(null).options().preferredFormat());
    assertEquals(Codec.ADAPTIVE, settings(null).options().codec(), "the default codec");
    assertEquals(CacheFormat.V3, withFormat(" V3 ").options().preferredFormat());
    assertEquals(CacheFormat.V4, withFormat(" V4 ").options().preferredFormat());
    assertEquals(CacheFormat.V4, roundTrip(withFormat("v4")).options().preferredFormat());
    assertEquals(CacheFormat.LEGACY, withFormat("legacy").options().preferredFormat());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> withFormat("v5"));
    assertTrue(e.getMessage().contains("must be v4, v3, v2 or legacy, got 'v5'"), e.getMessage());
  }

  private static WriteSettings roundTrip(WriteSettings sent) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(sent);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (WriteSettings) in.readObject();
    }
  }

  @Test
  void encodingSurvivesSerialization() throws Exception {
    // Tasks rebuild WriteOptions from the plain fields (the options themselves are transient).
    for (String encoding : new String[] {"plain", "byte_stream_split", "auto", null}) {
      WriteSettings sent = settings(encoding);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(sent);
      }
      WriteSettings received;
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        received = (WriteSettings) in.readObject();
      }
      assertEquals(sent.options(), received.options(), encoding);
      assertEquals(policy(encoding), received.options().encodingPolicy(), encoding);
    }
  }
}
