package dev.tablecache.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.Encoding;
import dev.tablecache.TableCacheException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

/** The encoding key of {@link TableCacheConf}, and its trip to tasks in {@link WriteSettings}. */
class TableCacheConfTest {

  private static WriteSettings settings(String encoding) {
    SQLConf conf = new SQLConf();
    if (encoding != null) {
      conf.setConfString(TableCacheConf.ENCODING, encoding);
    }
    return TableCacheConf.writeSettings(conf);
  }

  @Test
  void encodingDefaultsToByteStreamSplit() {
    assertEquals(Encoding.BYTE_STREAM_SPLIT, settings(null).options().encoding());
  }

  @Test
  void encodingIsParsedLeniently() {
    assertEquals(Encoding.PLAIN, settings(" Plain ").options().encoding());
    assertEquals(Encoding.BYTE_STREAM_SPLIT, settings("byte-stream-split").options().encoding());
    TableCacheException e = assertThrows(TableCacheException.class, () -> settings("delta"));
    assertTrue(e.getMessage().contains("delta"), e.getMessage());
  }

  @Test
  void encodingSurvivesSerialization() throws Exception {
    // Tasks rebuild WriteOptions from the plain fields (the options themselves are transient).
    WriteSettings sent = settings("plain");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(sent);
    }
    WriteSettings received;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      received = (WriteSettings) in.readObject();
    }
    assertEquals(sent.options(), received.options());
    assertEquals(Encoding.PLAIN, received.options().encoding());
  }
}
