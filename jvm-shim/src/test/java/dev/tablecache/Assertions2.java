package dev.tablecache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tablecache.TableCacheException.Kind;
import org.junit.jupiter.api.function.Executable;

/** Assertion helpers shared by the suites. */
public final class Assertions2 {

  private Assertions2() {}

  /** Asserts {@code call} throws a TableCacheException of {@code kind}; returns it. */
  public static TableCacheException assertKind(Kind kind, Executable call) {
    TableCacheException e = assertThrows(TableCacheException.class, call);
    assertEquals(kind, e.kind(), () -> "wrong kind, message: " + e.getMessage());
    return e;
  }
}
