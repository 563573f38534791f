package dev.tablecache.jni;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs only in the aarch64-jvm surefire execution (an arm64 JVM under qemu-user, set up by
 * scripts/test.sh), next to GoldenParityTest: proves that JVM took the jar's linux/aarch64
 * library, so the golden checks beside it exercised that build and not an amd64 one.
 */
@Tag("aarch64-jvm")
class Aarch64JvmTest {

  @Test
  void loadsTheAarch64LibraryFromTheJarResources() {
    assertEquals("aarch64", System.getProperty("os.arch"));
    assertEquals("/linux/aarch64/libtablecache.so", NativeLibrary.resourcePath());
    assertNotNull(NativeLibrary.class.getResource(NativeLibrary.resourcePath()));
    assertTrue(
        NativeLibrary.isAvailable(),
        () -> "load failed: " + NativeLibrary.failure().map(Throwable::getMessage).orElse("?"));
    assertEquals(NativeLibrary.jarVersion(), NativeCodec.version());
  }
}
