package dev.tablecache.spark;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;

/** Spark 3.5 versions of calls that differ from Spark 4 (src/main/spark-4 holds that line's). */
final class SparkLine {

  private SparkLine() {}

  /**
   * Whether string bounds (compared as unsigned bytes) order this string type's values the way
   * Spark's predicates do. Spark 3.5 has no collations: every string compares as UTF-8 bytes.
   */
  static boolean hasBinaryStringOrdering(DataType t) {
    return t instanceof StringType;
  }
}
