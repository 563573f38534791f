"""The columnar read rule with one setting, whichever way the jar reaches Spark.

Run by tests/run_e2e.sh in three ways, named by the first argument:
  submit              spark-submit --jars JAR, only spark.sql.cache.serializer set
  submit+extensions   the same plus spark.sql.extensions=...TableCacheExtensions
  configure           plain python: tablecache.configure(SparkSession.builder) from the
                      installed wheel and nothing else, as a PySpark user writes it (on Spark
                      3.5 configure also names the extension in spark.sql.extensions)
Every way must install tablecache's columnar rule exactly once (Spark loads the extension from
the jar's META-INF/services; naming it as well must not apply it twice), read the cache through
ColumnarToRow, keep Spark's row path when spark.tablecache.columnarRead=false, and return the
uncached rows. Prints "e2e-loading: N passed, N failed" last.

Spark 3.5's PySpark builds its session through the SparkSession constructor, which applies
spark.sql.extensions but never runs the ServiceLoader (Spark 4's PySpark goes through the
builder, which does). There the first two ways must show exactly that: no rule without
spark.sql.extensions, one rule with it, and the same rows either way.
"""

import sys
import traceback

from pyspark.sql import SparkSession

from harness import Results, rows

SERIALIZER = "dev.tablecache.spark.NativeCachedBatchSerializer"
OUR_RULE = "dev.tablecache.spark.TableCacheExtensions$CacheReadColumnarRule"
QUERIES = [
    "SELECT sum(l) FROM t",
    "SELECT k, count(*), max(d), min(s) FROM t GROUP BY k",
    "SELECT id, s FROM t WHERE id BETWEEN 100 AND 140",
]
TABLE_SQL = """
SELECT id, id % 13 AS k, id * 7 AS l,
       CASE WHEN id % 9 = 0 THEN double('NaN') ELSE id / 3.0 END AS d,
       CASE WHEN id % 5 = 0 THEN NULL ELSE concat('s', CAST(id AS STRING)) END AS s
FROM range(0, 4000, 1, 4)
"""


def session(way):
    builder = SparkSession.builder.appName(f"tablecache-e2e-loading-{way}")
    if way == "configure":
        import tablecache
        builder = (tablecache.configure(builder)
                   .master("local-cluster[2,1,1024]")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", "4"))
    return builder.getOrCreate()


def main():
    way = sys.argv[1]
    spark = session(way)
    results = Results(prefix=f"[{way}] ")
    check = results.check

    try:
        check("serializer", spark.conf.get("spark.sql.cache.serializer") == SERIALIZER)
        extensions = spark.sparkContext.getConf().get("spark.sql.extensions", "")
        loads_providers = not spark.version.startswith("3.")
        names_extension = way == "submit+extensions" or (way == "configure" and not loads_providers)
        check("spark.sql.extensions as launched",
              ("TableCacheExtensions" in extensions) == names_extension, extensions)
        expected_rules = 1 if loads_providers or names_extension else 0
        rules = spark._jsparkSession.sessionState().columnarRules()
        names = [rules.apply(i).getClass().getName() for i in range(rules.size())]
        check(f"our columnar rule installed {expected_rules} time(s) (Spark {spark.version})",
              names.count(OUR_RULE) == expected_rules, names)
        capability = spark.sparkContext._jvm.dev.tablecache.jni.Capability.current().toString()
        check("native library loaded", capability == "V4", capability)

        table = spark.sql(TABLE_SQL)
        table.createOrReplaceTempView("t")
        expected = {q: rows(spark.sql(q)) for q in QUERIES}
        table.cache()
        check("cache built", table.count() == 4000)
        for columnar in ("true", "false"):
            spark.conf.set("spark.tablecache.columnarRead", columnar)
            for q in QUERIES:
                df = spark.sql(q)
                got = rows(df)
                plan = df._jdf.queryExecution().executedPlan().toString()
                check(f"columnarRead={columnar}: {q}", got == expected[q],
                      f"expected {len(expected[q])} rows, got {len(got)}")
                check(f"columnarRead={columnar}: reads the cache", "InMemoryTableScan" in plan, plan)
                check(f"columnarRead={columnar}: ColumnarToRow above the scan",
                      ("ColumnarToRow" in plan) == (columnar == "true" and expected_rules == 1),
                      plan)
        table.unpersist(blocking=True)
    except Exception:  # report, count, and still print the summary line
        traceback.print_exc()
        check("no error", False)
    print(results.summary("e2e-loading"), flush=True)
    spark.stop()
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
