package dev.tablecache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tablecache.jni.Capability;
import dev.tablecache.jni.NativeCodec;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the suites that need the native library. Each test gets a fresh allocator and must
 * leave no Java memory and no live native column handles behind.
 */
public abstract class NativeTestBase {

  protected BufferAllocator allocator;
  private long handlesBefore;

  @BeforeAll
  protected static void requireLibrary() {
    if (!TableCache.isAvailable()) {
      fail(
          "native library unavailable: "
              + Capability.unavailableCause().map(Throwable::toString).orElse("?"),
          Capability.unavailableCause().orElse(null));
    }
  }

  @BeforeEach
  protected void openAllocator() {
    allocator = new RootAllocator(256L << 20);
    handlesBefore = liveHandles();
  }

  @AfterEach
  protected void checkNoLeaks() {
    long allocated = allocator.getAllocatedMemory();
    allocator.close(); // throws if any buffer is still open
    assertEquals(0, allocated, "Java memory left allocated");
    assertEquals(handlesBefore, liveHandles(), "native column handles leaked");
  }

  protected static long liveHandles() {
    return NativeCodec.allocationStats()[0];
  }

  protected static long liveBytes() {
    return NativeCodec.allocationStats()[1];
  }
}
