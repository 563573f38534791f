package dev.tablecache.spark;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;

/** Spark 4 calls that have no Spark 3.5 counterpart (src/main/spark-3.5 holds that line's). */
final class SparkLine {

  private SparkLine() {}

  /**
   * Whether string bounds (compared as unsigned bytes) order this string type's values the way
   * Spark's predicates do. False for non-binary collations (UTF8_LCASE, ICU, trim collations),
   * where byte-wise bounds would prune wrongly.
   */
  static boolean hasBinaryStringOrdering(DataType t) {
    return t instanceof StringType && ((StringType) t).supportsBinaryOrdering();
  }
}
