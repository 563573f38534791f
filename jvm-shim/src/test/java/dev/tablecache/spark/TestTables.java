package dev.tablecache.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Deterministic test tables and the differential query list. */
public final class TestTables {

  private TestTables() {}

  /**
   * Every Spark atomic type plus array/map/struct, with nulls, an all-null column, NaN, -0.0 and
   * ±inf, unicode, empty and over-long strings, decimals (10,2) and (38,0), pre-epoch dates and
   * timestamps, binary and intervals, plus the types only this Spark line has ({@link
   * SparkLineSupport#TABLE_COLUMNS}: on Spark 4 a collated string and a variant). 2,000 ids in 5 partitions of
   * which one is empty (ids 800..1199 dropped) and one sparse (400..799, only every 10th id).
   * NaN doubles appear only in ids 1300..1309, so most batches have no NaN.
   */
  public static Dataset<Row> allTypes(SparkSession spark) {
    return generateAllTypes(spark);
  }

  private static Dataset<Row> generateAllTypes(SparkSession spark) {
    List<String> sql = new ArrayList<>(Arrays.asList(
            "SELECT",
            "  id,",
            "  CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS b,",
            "  CAST(id % 256 - 128 AS TINYINT) AS by,",
            "  CAST((id * 37) % 65536 - 32768 AS SMALLINT) AS sh,",
            "  CASE WHEN id % 11 = 0 THEN NULL WHEN id = 5 THEN 2147483647",
            "       WHEN id = 6 THEN -2147483648 ELSE CAST(id - 1000 AS INT) END AS i,",
            "  CASE WHEN id = 7 THEN 9223372036854775807 WHEN id = 8 THEN -9223372036854775808",
            "       ELSE id * 1000003 END AS l,",
            "  CASE WHEN id % 40 = 1 THEN float('NaN') WHEN id % 40 = 2 THEN float('-0.0')",
            "       WHEN id % 40 = 3 THEN float('0.0') WHEN id % 40 = 4 THEN float('Infinity')",
            "       WHEN id % 40 = 5 THEN float('-Infinity') WHEN id % 13 = 0 THEN NULL",
            "       ELSE CAST(id / 7.0 - 100 AS FLOAT) END AS f,",
            "  CASE WHEN id BETWEEN 1300 AND 1309 THEN double('NaN')",
            "       WHEN id % 50 = 2 THEN double('-0.0') WHEN id % 50 = 3 THEN double('0.0')",
            "       WHEN id = 1601 THEN double('Infinity') WHEN id = 1602 THEN double('-Infinity')",
            "       WHEN id % 19 = 0 THEN NULL ELSE id / 3.0 - 300 END AS d,",
            "  CASE WHEN id % 17 = 0 THEN NULL WHEN id % 17 = 1 THEN ''",
            "       WHEN id % 17 = 2 THEN 'ünïcødé ✓ 日本語 😀'",
            "       WHEN id % 17 = 3 THEN concat(repeat('z', 300), CAST(id AS STRING))",
            "       ELSE concat('k', lpad(CAST(id AS STRING), 5, '0')) END AS s,",
            "  CAST(id * 1.25 - 500 AS DECIMAL(10,2)) AS dec1,",
            "  CASE WHEN id = 9 THEN CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0))",
            "       WHEN id = 10 THEN CAST('-99999999999999999999999999999999999999' AS DECIMAL(38,0))",
            "       ELSE CAST(id * 1000000007 AS DECIMAL(38,0)) END AS dec2,",
            "  date_add(DATE'1899-12-25', CAST(id * 13 AS INT)) AS dt,",
            "  timestamp_micros(id * 86400000001 - 2208988800000000) AS ts,",
            "  CAST(timestamp_micros(id * 3600000000 + 17) AS TIMESTAMP_NTZ) AS tsn,",
            "  CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(concat('b', CAST(id AS STRING)) AS BINARY) END AS bin,",
            "  CASE WHEN id % 9 = 0 THEN NULL ELSE array(CAST(id AS INT), NULL, CAST(id * 2 AS INT)) END AS arr,",
            "  CASE WHEN id % 10 = 0 THEN NULL ELSE map('k1', CAST(id AS INT), 'k2', NULL) END AS m,",
            "  CASE WHEN id % 12 = 0 THEN NULL",
            "       ELSE named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING), 'c', array(id / 4.0))",
            "       END AS st,",
            "  CAST(NULL AS INT) AS allnull,",
            "  CAST(NULL AS STRING) AS allnull_s,",
            "  NULL AS nul,",
            "  make_dt_interval(CAST(id % 5 AS INT), 3, 0, 0) AS dti,",
            "  make_ym_interval(CAST(id % 4 AS INT), 2) AS ymi"));
    for (String column : SparkLineSupport.TABLE_COLUMNS) {
      sql.add("  , " + column);
    }
    sql.add("FROM range(0, 2000, 1, 5)");
    sql.add("WHERE (id < 800 OR id >= 1200) AND (id < 400 OR id >= 800 OR id % 10 = 0)");
    return spark.sql(String.join("\n", sql));
  }

  /**
   * A differential query over view {@code t}; {@code nanSensitive} ones break Spark's default
   * serializer. Queries run "tagged": {@code SELECT <number> AS q, CAST(struct(*) AS STRING)}
   * over the query, so that many of them can share one Spark job (a UNION ALL of tagged
   * queries, each branch with its own scan and pruning predicates) and results of any shape
   * compare as rows of (q, text). The cast renders NaN, -0.0, nested values and variants exactly.
   */
  public static final class Query {
    public final int number;
    public final String sql;
    public final boolean nanSensitive;

    Query(int number, String sql, boolean nanSensitive) {
      this.number = number;
      this.sql = sql;
      this.nanSensitive = nanSensitive;
    }

    String tagged() {
      return "SELECT " + number + " AS q, CAST(struct(*) AS STRING) AS r FROM (" + sql + ")";
    }

    @Override
    public String toString() {
      return "q" + number + ": " + sql;
    }
  }

  /** One Spark query running all {@code queries} (a UNION ALL of the tagged queries). */
  public static String union(List<Query> queries) {
    StringBuilder sb = new StringBuilder();
    for (Query q : queries) {
      if (sb.length() > 0) {
        sb.append("\nUNION ALL\n");
      }
      sb.append(q.tagged());
    }
    return sb.toString();
  }

  /** A chunk's name in test reports: its first and last query numbers. */
  public static String label(List<Query> chunk) {
    return "q" + chunk.get(0).number + "..q" + chunk.get(chunk.size() - 1).number;
  }

  /** {@code queries} in chunks of at most {@code size}. */
  public static List<List<Query>> chunks(List<Query> queries, int size) {
    List<List<Query>> out = new ArrayList<>();
    for (int i = 0; i < queries.size(); i += size) {
      out.add(queries.subList(i, Math.min(queries.size(), i + size)));
    }
    return out;
  }

  private static final String[] QUERIES = {
    // projections: all, one, some, none
    "SELECT * FROM t",
    "SELECT id FROM t",
    "SELECT id, s, d, dec1, arr FROM t",
    "SELECT count(*) FROM t",
    "SELECT st, m FROM t WHERE id < 60",
    "SELECT dti, ymi, nul, allnull FROM t",
    // floats: NaN, -0.0, infinities
    "!SELECT id, d FROM t WHERE d = double('NaN')",
    "!SELECT id, f FROM t WHERE f = float('NaN')",
    "!SELECT id FROM t WHERE isnan(d)",
    "!SELECT id, d FROM t WHERE d > 360",
    "!SELECT id, d FROM t WHERE d >= double('Infinity')",
    "SELECT id, d FROM t WHERE d = 0.0",
    "SELECT id, d FROM t WHERE d = -0.0",
    "SELECT id, f FROM t WHERE f < -1e30",
    "SELECT id FROM t WHERE d <= double('-Infinity')",
    "!SELECT id, d FROM t WHERE d <=> double('NaN')",
    "!SELECT id FROM t WHERE i < -900 AND d = double('NaN')",
    // integers
    "SELECT id, i FROM t WHERE i = 2147483647",
    "SELECT id, i FROM t WHERE i BETWEEN -100 AND 100",
    "SELECT id FROM t WHERE i IN (5, 77, -1000, 300)",
    "SELECT id FROM t WHERE i IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 399, 950)",
    "SELECT id FROM t WHERE i IS NULL",
    "SELECT id FROM t WHERE i IS NOT NULL AND i < -990",
    "SELECT id FROM t WHERE i <=> 5",
    "SELECT id, l FROM t WHERE l = 9223372036854775807",
    "SELECT id FROM t WHERE l < 0",
    "SELECT id FROM t WHERE by = -128",
    "SELECT id FROM t WHERE sh > 30000",
    "SELECT id FROM t WHERE NOT (i > -995)",
    "SELECT id FROM t WHERE id = 1999",
    "SELECT id FROM t WHERE id BETWEEN 399 AND 401",
    "SELECT id FROM t WHERE id > 1500 AND id < 1503",
    // strings
    "SELECT id FROM t WHERE s = ''",
    "SELECT id, s FROM t WHERE s LIKE 'k001%'",
    "SELECT id FROM t WHERE s > 'k01500'",
    "SELECT id FROM t WHERE s IN ('k00004', 'nope', 'k01988')",
    "SELECT id FROM t WHERE s IS NULL",
    "SELECT id FROM t WHERE s LIKE 'zzzzzzzzzz%'",
    "SELECT id FROM t WHERE s = concat(repeat('z', 300), '3')",
    "SELECT id FROM t WHERE s LIKE concat(repeat('z', 300), '3%')",
    "SELECT id FROM t WHERE s > repeat('z', 299)",
    "SELECT id FROM t WHERE s = 'ünïcødé ✓ 日本語 😀'",
    "SELECT id FROM t WHERE s >= 'ü'",
    "SELECT id FROM t WHERE s < 'k0'",
    "SELECT id FROM t WHERE s <=> NULL",
    "SELECT id FROM t WHERE allnull_s LIKE 'a%'",
    // decimals
    "SELECT id, dec1 FROM t WHERE dec1 = 12.50",
    "SELECT id FROM t WHERE dec1 BETWEEN -10 AND 10",
    "SELECT id FROM t WHERE dec2 > CAST('10000000000000000000000000000000000000' AS DECIMAL(38,0))",
    "SELECT id FROM t WHERE dec2 = CAST('-99999999999999999999999999999999999999' AS DECIMAL(38,0))",
    // dates and timestamps
    "SELECT id, dt FROM t WHERE dt < DATE'1900-01-01'",
    "SELECT id FROM t WHERE dt = DATE'1900-06-10'",
    "SELECT id FROM t WHERE dt BETWEEN DATE'1950-01-01' AND DATE'1960-01-01'",
    "SELECT id, ts FROM t WHERE ts < TIMESTAMP'1900-06-01 00:00:00'",
    "SELECT id FROM t WHERE ts BETWEEN TIMESTAMP'1969-12-01 00:00:00' AND TIMESTAMP'1970-03-01 00:00:00'",
    "SELECT id, tsn FROM t WHERE tsn >= TIMESTAMP_NTZ'1970-03-20 00:00:00'",
    // binary, booleans, all-null and null-typed columns
    "SELECT id, bin FROM t WHERE bin IS NULL",
    "SELECT id FROM t WHERE bin IS NOT NULL AND id < 30",
    "SELECT id FROM t WHERE bin = X'623130'",
    "SELECT id FROM t WHERE allnull IS NULL AND id < 30",
    "SELECT id FROM t WHERE allnull = 5",
    "SELECT id FROM t WHERE allnull IS NOT NULL",
    "SELECT id FROM t WHERE nul IS NULL AND id > 1990",
    "SELECT id FROM t WHERE b = true AND id < 100",
    "SELECT id FROM t WHERE b IS NULL",
    // nested, intervals
    "SELECT id FROM t WHERE arr IS NULL",
    "SELECT id, arr FROM t WHERE size(arr) = 3 AND arr[0] > 1900",
    "SELECT id, st FROM t WHERE st.a = 5",
    "SELECT id FROM t WHERE m['k1'] = 77",
    "SELECT id FROM t WHERE st IS NULL",
    "SELECT id FROM t WHERE dti > INTERVAL '3' DAY",
    "SELECT id FROM t WHERE ymi = INTERVAL '1-2' YEAR TO MONTH",
    // combinations and aggregates
    "SELECT id FROM t WHERE i < -990 OR s LIKE 'k019%'",
    "SELECT id FROM t WHERE (id < 5 OR id > 1995) AND s IS NOT NULL",
    "!SELECT s, count(*), max(d), min(dec1) FROM t GROUP BY s",
    "!SELECT sum(i), avg(d), count(bin), max(s), min(dt) FROM t WHERE id > 1500",
    "SELECT a.id, b.s FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.dec1 > 1000",
    "SELECT * FROM t WHERE id % 97 = 3",
  };

  /** All differential queries, in a fixed order: the shared ones, then this line's. */
  public static List<Query> queries() {
    List<Query> out = new ArrayList<>();
    List<String> all = new ArrayList<>(Arrays.asList(QUERIES));
    all.addAll(SparkLineSupport.QUERIES);
    for (String q : all) {
      boolean nan = q.startsWith("!");
      out.add(new Query(out.size(), nan ? q.substring(1) : q, nan));
    }
    return out;
  }
}
