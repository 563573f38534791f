package dev.tablecache.spark.stats;

import java.io.Serializable;
import java.util.Locale;
import org.apache.spark.sql.types.DataType;

/**
 * One value of the partial aggregate row that {@link PartialAggregates} makes of each cached
 * batch: what Spark's partial {@code count}, {@code min} or {@code max} would have put in its
 * aggregation buffer after reading the batch's rows.
 */
public final class AggregateSlot implements Serializable {
  private static final long serialVersionUID = 1L;

  /** What the slot holds. */
  public enum Kind {
    /** The batch's row count ({@code count(*)}, {@code count(1)}): a long. */
    ROWS,
    /** The number of non-null values of a column ({@code count(col)}): a long. */
    NON_NULL,
    /** The smallest non-null value of a column in Spark's ordering, or null. */
    MIN,
    /** The largest non-null value of a column in Spark's ordering, or null. */
    MAX
  }

  final Kind kind;
  /** Cache column index; -1 for {@link Kind#ROWS}. */
  final int column;
  /** The column's Spark type (null for {@link Kind#ROWS}). */
  final DataType type;

  public AggregateSlot(Kind kind, int column, DataType type) {
    this.kind = kind;
    this.column = column;
    this.type = type;
  }

  @Override
  public String toString() {
    return kind == Kind.ROWS ? "rows" : kind.name().toLowerCase(Locale.ROOT) + "(#" + column + ")";
  }
}
