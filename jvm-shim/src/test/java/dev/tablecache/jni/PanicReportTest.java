package dev.tablecache.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.NativeTestBase;
import dev.tablecache.TableCacheException;
import org.junit.jupiter.api.Test;

/** A panic in the library reaches Java as an exception that says where it happened. */
class PanicReportTest extends NativeTestBase {

  @Test
  void aPanicBecomesAnInternalExceptionNamingItsSourceLine() {
    TableCacheException e = assertThrows(TableCacheException.class, NativeCodec::panicForTest);
    assertEquals(TableCacheException.Kind.INTERNAL, e.kind());
    assertTrue(
        e.getMessage().matches(
            "(?s).*panic in tablecache native code at .*exports/probe\\.rs:\\d+:\\d+: "
            + "deliberate panic.*"),
        e.getMessage());
  }

  @Test
  void theLibraryStillWorksAfterAPanic() {
    assertThrows(TableCacheException.class, NativeCodec::panicForTest);
    assertEquals(4, NativeCodec.capabilities());
  }
}
