package dev.tablecache.spark.read;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;

/**
 * A read's projection, decoded once per distinct column: the cache columns to decode, in
 * first-seen order, and for every output column the slot of its decoded column (a query may
 * select a column twice).
 */
public final class ProjectionSlots {

  /** Distinct cache column indices to decode. */
  public final int[] decodeColumns;
  /** For each output column, its position in {@link #decodeColumns}. */
  public final int[] outputSlot;
  /** Spark type of each decoded column. */
  public final DataType[] decodeTypes;

  /**
   * @param projection cache column index of every output column (duplicates allowed)
   * @param outputTypes Spark type of every output column
   */
  public ProjectionSlots(int[] projection, DataType[] outputTypes) {
    if (outputTypes.length != projection.length) {
      throw new IllegalArgumentException(
          projection.length + " projected columns but " + outputTypes.length + " types");
    }
    Map<Integer, Integer> slots = new LinkedHashMap<>();
    outputSlot = new int[projection.length];
    List<DataType> types = new ArrayList<>();
    for (int i = 0; i < projection.length; i++) {
      int before = slots.size();
      outputSlot[i] = slots.computeIfAbsent(projection[i], k -> slots.size());
      if (slots.size() > before) {
        types.add(outputTypes[i]);
      }
    }
    decodeColumns = slots.keySet().stream().mapToInt(Integer::intValue).toArray();
    decodeTypes = types.toArray(new DataType[0]);
  }
}
