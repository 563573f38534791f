package dev.tablecache;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Flipped bytes in an LZ4-compressed legacy stream. Runs in its own forked JVM (surefire
 * execution "isolated"): a damaged IPC length prefix once made the native reader allocate
 * exabytes and abort the process, which would take every other suite's results with it.
 */
@Tag("isolated")
class LegacyLz4IsolatedTest extends NativeTestBase {

  @Test
  void legacyLz4FlippedBytesNeverAbortAndAreCorrupt() {
    RejectionTest t = new RejectionTest();
    t.allocator = allocator;
    t.checkLegacyFlips(Codec.LZ4);
  }
}
