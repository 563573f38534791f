package dev.tablecache.format;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The nodes and buffers a column of an Arrow field occupies in the native decoder's descriptor:
 * one node per field of the tree, Arrow IPC's buffers per node. The Java mirror of the native
 * {@code layout} module; a test checks both agree for every type the writer carries.
 */
public final class ArrowLayout {

  private ArrowLayout() {}

  /**
   * {@code {nodes, buffers}} of a column of {@code field}.
   *
   * @throws TableCacheException UNSUPPORTED_TYPE for a dictionary-encoded field anywhere in the
   *     tree (Arrow Java vectors cannot be imported for those)
   */
  public static int[] counts(Field field) {
    int[] counts = new int[2];
    add(field, counts);
    return counts;
  }

  private static void add(Field field, int[] counts) {
    if (field.getDictionary() != null) {
      throw new TableCacheException(
          Kind.UNSUPPORTED_TYPE,
          "dictionary-encoded column '" + ErrorText.name(field.getName()) + "' cannot be decoded into Java vectors");
    }
    counts[0]++;
    counts[1] += TypeLayout.getTypeBufferCount(field.getType());
    for (Field child : field.getChildren()) {
      add(child, counts);
    }
  }
}
