package dev.tablecache.format;

import java.util.zip.Checksum;
import org.apache.hadoop.util.PureJavaCrc32C;

/**
 * A CRC32C that is not ours ({@link Crc32c}), to check ours against and to seal test frames
 * with: the JDK's {@code java.util.zip.CRC32C} where the runtime has one (Java 9 and later), else
 * Hadoop's {@link PureJavaCrc32C} (on Spark's classpath). Java 8 has no CRC32C, and the Spark 3.5
 * line's tests run there too, compiled against the Java 8 API, so the JDK class is reflected.
 */
final class ReferenceCrc32c {

  private static final Class<?> JDK = jdkClass();

  private ReferenceCrc32c() {}

  /** {@code java.util.zip.CRC32C}, or null on Java 8. */
  static Class<?> jdk() {
    return JDK;
  }

  static Checksum create() {
    if (JDK == null) {
      return new PureJavaCrc32C();
    }
    try {
      return (Checksum) JDK.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Class<?> jdkClass() {
    try {
      return Class.forName("java.util.zip.CRC32C");
    } catch (ClassNotFoundException e) {
      return null; // Java 8
    }
  }
}
