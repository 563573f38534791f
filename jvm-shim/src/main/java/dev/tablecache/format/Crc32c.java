package dev.tablecache.format;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.zip.Checksum;

/**
 * CRC32C (Castagnoli) checksums. Java 9+ has {@code java.util.zip.CRC32C} (a JIT intrinsic); the
 * Spark 3.5 jar also runs on Java 8, which lacks it, so there a table-driven implementation of the
 * same polynomial takes over. The JDK class is found once, by reflection, because the code is
 * compiled against the Java 8 API.
 */
final class Crc32c {

  private static final MethodHandle JDK_CRC32C = findJdkCrc32c();

  private Crc32c() {}

  /** A fresh checksum: the JDK's CRC32C when the runtime has it, else {@link PureJava}. */
  static Checksum create() {
    if (JDK_CRC32C == null) {
      return new PureJava();
    }
    try {
      return (Checksum) JDK_CRC32C.invoke();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private static MethodHandle findJdkCrc32c() {
    try {
      Class<?> c = Class.forName("java.util.zip.CRC32C");
      return MethodHandles.publicLookup().findConstructor(c, MethodType.methodType(void.class));
    } catch (ReflectiveOperationException e) {
      return null; // Java 8
    }
  }

  /** Reflected CRC32C (reversed polynomial 0x82F63B78), one table lookup per byte. */
  static final class PureJava implements Checksum {

    private static final int[] TABLE = table();

    private int crc = 0xFFFFFFFF;

    private static int[] table() {
      int[] t = new int[256];
      for (int n = 0; n < 256; n++) {
        int c = n;
        for (int k = 0; k < 8; k++) {
          c = (c & 1) != 0 ? (c >>> 1) ^ 0x82F63B78 : c >>> 1;
        }
        t[n] = c;
      }
      return t;
    }

    @Override
    public void update(int b) {
      crc = (crc >>> 8) ^ TABLE[(crc ^ b) & 0xFF];
    }

    @Override
    public void update(byte[] b, int off, int len) {
      int c = crc;
      for (int i = off, end = off + len; i < end; i++) {
        c = (c >>> 8) ^ TABLE[(c ^ b[i]) & 0xFF];
      }
      crc = c;
    }

    @Override
    public long getValue() {
      return (~crc) & 0xFFFFFFFFL;
    }

    @Override
    public void reset() {
      crc = 0xFFFFFFFF;
    }
  }
}
