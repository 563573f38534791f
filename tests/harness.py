"""What every end-to-end script shares: the session, the type-matrix table, the result check and
the exact row comparison.

Imported by the e2e scripts (spark-submit puts a script's directory on sys.path).
"""

# The flat types of the type matrix, each with its edge values: nulls, NaN, -0.0, infinity,
# empty, unicode and long strings, negative and wide decimals, dates and timestamps before 1900.
# Scripts add the columns only they need (nested types, other decimals) as extra columns.
TYPE_MATRIX_COLUMNS = [
    "id",
    "CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS b",
    "CAST(id % 256 - 128 AS TINYINT) AS by",
    "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id - 1000 AS INT) END AS i",
    "id * 1000003 AS l",
    """CASE WHEN id % 40 = 1 THEN float('NaN') WHEN id % 40 = 2 THEN float('-0.0')
       WHEN id % 13 = 0 THEN NULL ELSE CAST(id / 7.0 AS FLOAT) END AS f""",
    """CASE WHEN id BETWEEN 1700 AND 1709 THEN double('NaN') WHEN id % 50 = 2 THEN double('-0.0')
       WHEN id = 1601 THEN double('Infinity') WHEN id % 19 = 0 THEN NULL
       ELSE id / 3.0 - 300 END AS d""",
    """CASE WHEN id % 17 = 0 THEN NULL WHEN id % 17 = 1 THEN ''
       WHEN id % 17 = 2 THEN 'ünïcødé ✓ 日本語 😀'
       WHEN id % 17 = 3 THEN concat(repeat('z', 300), CAST(id AS STRING))
       ELSE concat('k', lpad(CAST(id AS STRING), 5, '0')) END AS s""",
    "CAST(id * 1.25 - 500 AS DECIMAL(10,2)) AS dec1",
    "date_add(DATE'1899-12-25', CAST(id * 13 AS INT)) AS dt",
    "timestamp_micros(id * 86400000001 - 2208988800000000) AS ts",
    "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(concat('b', CAST(id AS STRING)) AS BINARY) END AS bin",
    "CAST(NULL AS INT) AS allnull",
]


def type_matrix_sql(extra_columns=(), where=None, source="range(0, 3000, 1, 6)"):
    """The type-matrix query: TYPE_MATRIX_COLUMNS then extra_columns, over source, filtered by
    where (gaps in the ids make some batches' stats prune)."""
    columns = ",\n  ".join(TYPE_MATRIX_COLUMNS + list(extra_columns))
    sql = f"SELECT\n  {columns}\nFROM {source}"
    return sql + (f"\nWHERE {where}" if where else "")


# The queries every type-matrix table answers first: all columns, one, a count, a projection, and
# the NaN rows of the double and float columns (QUERIES[4] in e2e_cache counts them).
TYPE_MATRIX_QUERIES = [
    "SELECT * FROM t",
    "SELECT id FROM t",
    "SELECT count(*) FROM t",
    "SELECT id, s, dec1 FROM t",
    "SELECT id, d FROM t WHERE d = double('NaN')",
    "SELECT id, f FROM t WHERE f = float('NaN')",
]


def session(app, conf=None):
    """The SparkSession of an e2e script: spark-submit's settings plus conf (a dict)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


class Results:
    """Counts checks; prints each failure with its detail."""

    def __init__(self, prefix="", echo_passes=False):
        self.passed = 0
        self.failed = 0
        self.prefix = prefix
        self.echo_passes = echo_passes

    def check(self, name, ok, detail=""):
        """Records one check; returns whether it passed."""
        if ok:
            self.passed += 1
            if self.echo_passes:
                print(f"ok   {self.prefix}{name} {detail}".rstrip(), flush=True)
        else:
            self.failed += 1
            print(f"FAIL {self.prefix}{name} {detail}".rstrip()[:4000], flush=True)
        return bool(ok)

    def summary(self, suite):
        """The last line every suite prints: "SUITE: N passed, N failed"."""
        return f"{suite}: {self.passed} passed, {self.failed} failed"


def rows(df, ordered=False):
    """The rows as reprs (exact for NaN, -0.0, bytes and nested values), sorted unless the
    query orders them itself."""
    got = [repr(tuple(r)) for r in df.collect()]
    return got if ordered else sorted(got)


def scan_metrics_nodes(df):
    """The TableCacheScanMetrics nodes of df's executed plan (an adaptive plan's final plan and
    its query stages included), as py4j objects: node.metrics().apply(key).value()."""
    found = []

    def walk(p):
        name = p.getClass().getSimpleName()
        if name == "TableCacheScanMetricsExec":
            found.append(p)
        if name == "AdaptiveSparkPlanExec":
            walk(p.executedPlan())
        elif name.endswith("QueryStageExec"):
            walk(p.plan())
        children = p.children()
        for i in range(children.size()):
            walk(children.apply(i))

    walk(df._jdf.queryExecution().executedPlan())
    return found
