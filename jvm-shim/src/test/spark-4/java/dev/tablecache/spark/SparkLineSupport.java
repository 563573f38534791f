package dev.tablecache.spark;

import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Test helpers whose types differ by Spark line: Spark 4 moved the executing Dataset and
 * SparkSession to {@code org.apache.spark.sql.classic} (src/test/spark-3.5 holds the 3.5 ones).
 */
public final class SparkLineSupport {

  private SparkLineSupport() {}

  /** Columns of {@code TestTables.allTypes} with types only Spark 4 has. */
  static final List<String> TABLE_COLUMNS =
      List.of(
          "collate(concat('K', lpad(CAST(id AS STRING), 5, '0')), 'UTF8_LCASE') AS s_lc",
          "parse_json(concat('{\"a\":', CAST(id AS STRING), ',\"b\":[1,\"x\"]}')) AS v");

  /** Differential queries over those columns (appended to {@code TestTables.queries}). */
  static final List<String> QUERIES =
      List.of(
          "SELECT st, m, v FROM t WHERE id < 60",
          "SELECT id, s_lc FROM t WHERE s_lc = 'k00010'",
          "SELECT id FROM t WHERE s_lc > 'k01990'",
          "SELECT id FROM t WHERE s_lc LIKE 'k0001%'",
          "SELECT id, v FROM t WHERE variant_get(v, '$.a', 'int') = 42");

  /** Projections over those columns read through the columnar output. */
  static final List<String> COLUMNAR_PROJECTIONS =
      List.of(
          "SELECT arr, m, st, v FROM t",
          "SELECT dti, ymi, nul, allnull, allnull_s, s_lc, bin, b FROM t");

  /**
   * Whether, under adaptive execution, a cache built from a scan of another cache gets the
   * scan's batches: Spark 4 plans that scan without an adaptive wrapper.
   */
  static final boolean CACHE_OF_CACHE_IS_COLUMNAR_UNDER_AQE = true;

  /** The Dataset with its query execution (and the type the cache manager looks up). */
  public static org.apache.spark.sql.classic.Dataset<Row> classic(Dataset<Row> df) {
    return (org.apache.spark.sql.classic.Dataset<Row>) df;
  }

  /** A DataFrame over Catalyst rows. */
  static Dataset<Row> fromInternalRows(
      SparkSession spark, RDD<InternalRow> rows, StructType schema) {
    return ((org.apache.spark.sql.classic.SparkSession) spark)
        .internalCreateDataFrame(rows, schema, false);
  }
}
