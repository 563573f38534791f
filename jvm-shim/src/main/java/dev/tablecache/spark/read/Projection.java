package dev.tablecache.spark.read;

import java.util.List;
import java.util.function.Predicate;
import org.apache.spark.sql.catalyst.expressions.Attribute;

/** Maps selected attributes to cache column indices. */
public final class Projection {

  private Projection() {}

  /**
   * The cache column of each selected attribute: by expression id (what Spark guarantees), then
   * by exact name, then by case-insensitive name (a unique match only).
   */
  public static int[] indices(List<Attribute> cache, List<Attribute> selected) {
    int[] out = new int[selected.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = indexOf(cache, selected.get(i));
    }
    return out;
  }

  private static final int NONE = -1;
  private static final int AMBIGUOUS = -2;

  private static int indexOf(List<Attribute> cache, Attribute a) {
    int found = uniqueMatch(cache, c -> c.exprId().equals(a.exprId()));
    if (found == NONE) {
      found = uniqueMatch(cache, c -> c.name().equals(a.name()));
    }
    if (found == NONE) {
      found = uniqueMatch(cache, c -> c.name().equalsIgnoreCase(a.name()));
    }
    if (found >= 0) {
      return found;
    }
    throw new IllegalArgumentException(
        "selected attribute " + a + " is not (uniquely) a column of the cache " + cache);
  }

  /** The only index matching {@code test}, {@link #NONE}, or {@link #AMBIGUOUS}. */
  private static int uniqueMatch(List<Attribute> cache, Predicate<Attribute> test) {
    int found = NONE;
    for (int j = 0; j < cache.size(); j++) {
      if (test.test(cache.get(j))) {
        if (found != NONE) {
          return AMBIGUOUS;
        }
        found = j;
      }
    }
    return found;
  }
}
