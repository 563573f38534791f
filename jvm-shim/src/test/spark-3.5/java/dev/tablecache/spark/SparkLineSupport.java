package dev.tablecache.spark;

import java.util.Collections;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Test helpers whose types differ by Spark line: in Spark 3.5 the user-facing Dataset and
 * SparkSession are the executing ones (src/test/spark-4 holds the 4.x {@code classic} ones).
 */
public final class SparkLineSupport {

  private SparkLineSupport() {}

  // Spark 3.5 has no collated strings and no variant: no line-only columns, queries or
  // projections (the shared ones in TestTables and DifferentialSparkTest cover every other type).
  static final List<String> TABLE_COLUMNS = Collections.emptyList();
  static final List<String> QUERIES = Collections.emptyList();
  static final List<String> COLUMNAR_PROJECTIONS = Collections.emptyList();

  /**
   * Spark 3.5 wraps a scan of a cache in an adaptive plan (a table-cache query stage) and never
   * marks an adaptive plan columnar when caching it: such a cache is built from rows.
   */
  static final boolean CACHE_OF_CACHE_IS_COLUMNAR_UNDER_AQE = false;

  /** The Dataset with its query execution (and the type the cache manager looks up). */
  public static Dataset<Row> classic(Dataset<Row> df) {
    return df;
  }

  /** A DataFrame over Catalyst rows ({@code private[sql]} in Scala, public in bytecode). */
  static Dataset<Row> fromInternalRows(
      SparkSession spark, RDD<InternalRow> rows, StructType schema) {
    return spark.internalCreateDataFrame(rows, schema, false);
  }
}
