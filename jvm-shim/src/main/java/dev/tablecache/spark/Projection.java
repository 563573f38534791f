package dev.tablecache.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;

/** Maps selected attributes to cache column indices. */
final class Projection {

  private Projection() {}

  /**
   * The cache column of each selected attribute: by expression id (what Spark guarantees), then
   * by exact name, then by case-insensitive name (a unique match only).
   */
  static int[] indices(List<Attribute> cache, List<Attribute> selected) {
    int[] out = new int[selected.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = indexOf(cache, selected.get(i));
    }
    return out;
  }

  private static int indexOf(List<Attribute> cache, Attribute a) {
    for (int j = 0; j < cache.size(); j++) {
      if (cache.get(j).exprId().equals(a.exprId())) {
        return j;
      }
    }
    int found = -1;
    for (int j = 0; j < cache.size(); j++) {
      if (cache.get(j).name().equals(a.name())) {
        if (found >= 0) {
          found = -2;
          break;
        }
        found = j;
      }
    }
    if (found >= 0) {
      return found;
    }
    if (found == -1) {
      for (int j = 0; j < cache.size(); j++) {
        if (cache.get(j).name().equalsIgnoreCase(a.name())) {
          if (found >= 0) {
            found = -2;
            break;
          }
          found = j;
        }
      }
      if (found >= 0) {
        return found;
      }
    }
    throw new IllegalArgumentException(
        "selected attribute " + a + " is not (uniquely) a column of the cache " + cache);
  }
}
