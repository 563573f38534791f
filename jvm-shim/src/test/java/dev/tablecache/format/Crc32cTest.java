package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.Checksum;
import org.junit.jupiter.api.Test;

/**
 * The table-driven CRC32C that the Spark 3.5 jar uses on Java 8 agrees with the JDK's, or on
 * Java 8, which has none, with Hadoop's ({@link ReferenceCrc32c}); and {@link Crc32c#create()}
 * returns the JDK's where it exists, else the table-driven one.
 */
class Crc32cTest {

  @Test
  void knownCheckValue() {
    Checksum c = new Crc32c.PureJava();
    byte[] b = "123456789".getBytes(StandardCharsets.US_ASCII);
    c.update(b, 0, b.length);
    assertEquals(0xE3069283L, c.getValue()); // the CRC-32C check value (RFC 3720)
  }

  @Test
  void pureJavaMatchesTheReferenceOnRandomSlices() {
    Random rnd = new Random(42);
    for (int round = 0; round < 500; round++) {
      byte[] b = new byte[rnd.nextInt(3000)];
      rnd.nextBytes(b);
      int off = b.length == 0 ? 0 : rnd.nextInt(b.length);
      int len = rnd.nextInt(b.length - off + 1);
      Checksum jdk = ReferenceCrc32c.create();
      Checksum ours = new Crc32c.PureJava();
      jdk.update(b, off, len);
      ours.update(b, off, len);
      if (len > 0) { // single-byte updates too
        jdk.update(b[off]);
        ours.update(b[off]);
      }
      assertEquals(jdk.getValue(), ours.getValue(), "round " + round);
      ours.reset();
      assertEquals(ReferenceCrc32c.create().getValue(), ours.getValue(), "after reset");
    }
  }

  @Test
  void createUsesTheJdkWhereItExists() {
    Class<?> jdk = ReferenceCrc32c.jdk();
    assertEquals(jdk != null ? jdk : Crc32c.PureJava.class, Crc32c.create().getClass());
  }
}
