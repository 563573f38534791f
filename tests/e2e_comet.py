"""End-to-end check of tablecache under Apache DataFusion Comet.

Run by tests/run_e2e.sh through spark-submit on PySpark 4.1.x with the Comet jar resolved from
Maven Central (scripts/lib/comet-env.sh) and Comet switched on the way its docs say (plugin,
exec, Comet shuffle, off-heap memory), plus only spark.sql.cache.serializer for us. The tables
are written to Parquet and read back, so the cache's input is Comet's own columnar batches
(CometNativeScan over Comet's shaded Arrow). For every cached table and storage level, every
query must return exactly what the uncached query returns; the suite also asserts that our
serializer wrote each cache, that the cache's input was Comet's scan, and that Comet's native
operators ran above the cache. Prints "e2e-comet: N passed, N failed" last.
"""

import os
import shutil
import sys
import tempfile
import traceback

from pyspark import StorageLevel

from harness import TYPE_MATRIX_QUERIES, Results, rows, scan_metrics_nodes, session, type_matrix_sql

OURS = "dev.tablecache.spark.NativeCachedBatchSerializer"

# Every type Comet's Parquet scan produces, with nulls, NaN, -0.0, unicode and empty values.
# ShortType is in a table of its own: by default Comet leaves a Parquet scan with a short column
# to Spark (spark.comet.scan.unsignedSmallIntSafetyCheck), and that table checks the other route.
FLAT_SQL = type_matrix_sql(
    extra_columns=[
        "CAST(id * 7 AS DECIMAL(18,4)) AS dec2",
        "CASE WHEN id % 23 = 0 THEN NULL ELSE CAST(id * 1000000007 AS DECIMAL(38,0)) END AS dec3",
        "CAST(timestamp_micros(id * 3600000001) AS TIMESTAMP_NTZ) AS tsntz",
    ],
    where="(id < 1000 OR id >= 1500)")

NESTED_SQL = """
SELECT
  id,
  CAST(id % 300 - 150 AS SMALLINT) AS sh,
  CASE WHEN id % 9 = 0 THEN NULL ELSE array(CAST(id AS INT), NULL, CAST(id % 4 AS INT)) END AS arr,
  CASE WHEN id % 10 = 0 THEN NULL ELSE map(concat('k', CAST(id % 3 AS STRING)), id) END AS m,
  named_struct('a', CAST(id AS INT), 'b', CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(id AS STRING) END,
               'c', array(named_struct('x', id * 0.5D))) AS st
FROM range(0, 2000, 1, 4)
"""

FLAT_QUERIES = TYPE_MATRIX_QUERIES + [
    "SELECT id, d FROM t WHERE d = -0.0",
    "SELECT id FROM t WHERE i BETWEEN -100 AND 100",
    "SELECT id FROM t WHERE i IS NULL",
    "SELECT id, s FROM t WHERE s LIKE 'k001%' OR s = '' OR s = 'ünïcødé ✓ 日本語 😀'",
    "SELECT id FROM t WHERE dec1 BETWEEN -10 AND 10 OR dec3 IS NULL",
    "SELECT id FROM t WHERE dt < DATE'1900-06-01' OR ts > TIMESTAMP'1975-01-01 00:00:00'",
    "SELECT id, tsntz FROM t WHERE tsntz < TIMESTAMP_NTZ'1970-01-20 00:00:00'",
    "SELECT id, bin FROM t WHERE bin IS NULL AND id < 100",
    "SELECT id FROM t WHERE allnull IS NOT NULL OR allnull = 3",
    "SELECT b, by % 4, count(*), sum(l), max(d), min(f), max(s), sum(dec1), max(dec3), min(dt), "
    "max(ts), max(bin) FROM t GROUP BY b, by % 4",
    "SELECT max(id), max(b), max(by), max(i), max(l), max(f), max(d), max(s), max(dec1), max(dec2), "
    "max(dec3), max(dt), max(ts), max(tsntz), max(bin) FROM t",
    "SELECT a.id, b.s FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.dec1 > 3000",
]

NESTED_QUERIES = [
    "SELECT * FROM t",
    "SELECT id, sh FROM t WHERE sh < -140",
    "SELECT id, arr FROM t WHERE arr IS NULL OR arr[0] > 1990",
    "SELECT id, m['k1'] FROM t WHERE id % 100 = 1",
    "SELECT st.b, st.c FROM t WHERE st.a < 20",
    "SELECT sh % 3, count(*), sum(id) FROM t GROUP BY sh % 3",
]

LEVELS = {
    "MEMORY_AND_DISK": StorageLevel.MEMORY_AND_DISK,
    "MEMORY_ONLY_SER": StorageLevel(False, True, False, False, 1),
}



def executed_plan(df):
    return df._jdf.queryExecution().executedPlan().toString()


def write_counters(sc):
    """(zero-copy frames, copied input batches) written in this JVM so far, read from
    TableCachePlugin's metrics source (local mode: the driver is the executor)."""
    sources = sc._jvm.org.apache.spark.SparkEnv.get().metricsSystem().getSourcesByName(
        "plugin.dev.tablecache.spark.TableCachePlugin")
    counters = sources.head().metricRegistry().getCounters()
    return (counters.get("framesWritten.zeroCopy").getCount(),
            counters.get("write.copiedInputBatches").getCount())


def cached_relation(spark, df):
    """The InMemoryRelation that caches df, or None."""
    manager = spark._jsparkSession.sharedState().cacheManager()
    found = manager.lookupCachedData(df._jdf)
    return found.get().cachedRepresentation() if found.isDefined() else None


def main():
    spark = session("tablecache-e2e-comet")
    sc = spark.sparkContext
    results = Results()
    check = results.check

    check("serializer configured", spark.conf.get("spark.sql.cache.serializer") == OURS)
    check("Comet plugin configured", "CometPlugin" in spark.conf.get("spark.plugins", ""))
    print(f"spark {spark.version}, master {sc.master}, comet "
          f"{sc._jvm.org.apache.comet.package.COMET_VERSION()}", flush=True)

    work = tempfile.mkdtemp(prefix="tablecache-e2e-comet-")
    try:
        tables = {"flat": (FLAT_SQL, FLAT_QUERIES, "CometNativeScan"),
                  "nested": (NESTED_SQL, NESTED_QUERIES, None)}
        for name, (sql, queries, scan) in tables.items():
            path = os.path.join(work, name)
            spark.sql(sql).write.parquet(path)
            table = spark.read.parquet(path)
            table.createOrReplaceTempView("t")
            expected = {q: rows(spark.sql(q)) for q in queries}
            check(f"{name}: the uncached table has rows", len(expected[queries[0]]) > 1000)
            for level_name, level in LEVELS.items():
                label = f"{name} {level_name}"
                try:
                    before = write_counters(sc)
                    table.persist(level)
                    table.count()
                    after = write_counters(sc)
                    zero_copy, copied = after[0] - before[0], after[1] - before[1]
                    print(f"{label}: {zero_copy} zero-copy frames, {copied} copied input batches",
                          flush=True)
                    if scan:
                        # Comet's scan batches are its shaded Arrow vectors: cached as they are.
                        check(f"{label}: Comet's batches cached without a copy",
                              zero_copy > 0 and copied == 0, (zero_copy, copied))
                    relation = cached_relation(spark, table)
                    check(f"{label}: cached", relation is not None)
                    writer = relation.cacheBuilder().serializer().getClass().getName()
                    check(f"{label}: our serializer wrote the cache", writer == OURS, writer)
                    cached_plan = relation.cachedPlan().toString()
                    if scan:
                        check(f"{label}: the cache's input is Comet's scan", scan in cached_plan,
                              cached_plan)
                    for q in queries:
                        got = rows(spark.sql(q))
                        check(f"{label}: {q}", got == expected[q],
                              f"expected {len(expected[q])} rows, got {len(got)}")
                    if scan:
                        agg = spark.sql("SELECT b, count(*), sum(l), max(d) FROM t GROUP BY b")
                        agg.collect()
                        plan = executed_plan(agg)
                        check(f"{label}: Comet's native operators read the cache, no copy",
                              "TableCacheCometScan" in plan
                              and "CometHashAggregate" in plan, plan)
                except Exception:  # a crash in one level must not hide the others
                    traceback.print_exc()
                    check(f"{label}: no error", False)
                finally:
                    table.unpersist(blocking=True)

        # A cache of Comet's shuffle and aggregate (its input is a Comet exchange's output).
        table = spark.read.parquet(os.path.join(work, "flat"))
        agg = table.groupBy("b", "by").agg({"l": "sum", "d": "max", "s": "max", "dec1": "sum"})
        want = rows(agg)
        plan = executed_plan(agg)
        check("aggregate: Comet runs the uncached aggregate",
              "CometSortAggregate" in plan and "CometExchange" in plan, plan)
        agg.cache()
        check("aggregate: cache of a Comet aggregate", rows(agg) == want)
        relation = cached_relation(spark, agg)
        check("aggregate: our serializer wrote it",
              relation is not None
              and relation.cacheBuilder().serializer().getClass().getName() == OURS)
        agg.createOrReplaceTempView("a")
        q = "SELECT b, count(*), max(`max(s)`) FROM a GROUP BY b"
        got = rows(spark.sql(q))
        agg.unpersist(blocking=True)
        check("aggregate: a query over the cached aggregate", got == rows(spark.sql(q)))

        # An explicit setting wins: with Comet's conversion off, Spark's operators read the cache.
        flat = spark.read.parquet(os.path.join(work, "flat"))
        flat.cache().count()
        flat.createOrReplaceTempView("t")
        q = "SELECT b, count(*), sum(l), max(d) FROM t GROUP BY b"
        spark.conf.set("spark.comet.convert.inMemoryCache.enabled", "false")
        off = spark.sql(q)
        off_rows = rows(off)
        plan = executed_plan(off)
        check("conversion off: Spark reads the cache",
              "CometSparkColumnarToColumnar" not in plan and "TableCacheCometScan" not in plan,
              plan)
        spark.conf.unset("spark.comet.convert.inMemoryCache.enabled")
        # Our zero-copy read off: Comet's own conversion copies our batches.
        spark.conf.set("spark.tablecache.comet.zeroCopyRead", "false")
        copying = spark.sql(q)
        copying_rows = rows(copying)
        check("zero-copy read off: Comet's conversion reads the cache",
              "CometSparkColumnarToColumnar" in executed_plan(copying), executed_plan(copying))
        spark.conf.unset("spark.tablecache.comet.zeroCopyRead")
        on = spark.sql(q)
        check("conversion off: same rows", off_rows == rows(on))
        check("zero-copy read off: same rows", copying_rows == off_rows)
        check("default again once unset", "TableCacheCometScan" in executed_plan(on))
        # The scan's SQL metrics node sits below either Comet conversion and counts every batch.
        batches = cached_relation(spark, flat).cacheBuilder().cachedColumnBuffers().count()
        for label, df in (("zero-copy read", on), ("Comet's conversion", copying)):
            got = [(n.metrics().apply("numBatchesRead").value(),
                    n.metrics().apply("numBatchesDecoded").value(),
                    n.metrics().apply("bytesDecoded").value() > 0)
                   for n in scan_metrics_nodes(df)]
            check(f"{label}: the scan's SQL metrics count every batch",
                  got == [(batches, batches, True)], f"{got}, {batches} batches")
        flat.unpersist(blocking=True)

        # Spark strings that are not UTF-8: Comet's native operators take only UTF-8, so our
        # zero-copy read refuses them with an error saying so; Spark's operators read them.
        raw = spark.sql("SELECT id, CASE WHEN id % 100 = 7 THEN CAST(unhex('FF41') AS STRING)"
                        " ELSE CAST(id AS STRING) END AS s FROM range(0, 2000, 1, 2)")
        q = "SELECT id, hex(CAST(s AS BINARY)) AS h FROM t WHERE id % 50 = 7"
        raw.createOrReplaceTempView("t")
        want = rows(spark.sql(q))
        raw.cache().createOrReplaceTempView("t")
        try:
            rows(spark.sql(q))
            check("raw strings: Comet's read refuses them", False, "no error")
        except Exception as e:  # Py4JJavaError
            check("raw strings: Comet's read refuses them", "not UTF-8" in str(e), str(e)[:500])
        spark.conf.set("spark.comet.convert.inMemoryCache.enabled", "false")
        check("raw strings: Spark's operators read them", rows(spark.sql(q)) == want)
        spark.conf.unset("spark.comet.convert.inMemoryCache.enabled")
        raw.unpersist(blocking=True)

        # Empty partitions and an empty cache.
        empty = spark.read.parquet(os.path.join(work, "flat")).where("id < 0")
        empty.cache()
        check("empty: count", empty.count() == 0)
        check("empty: aggregate", rows(empty.groupBy("b").count()) == [])
        empty.unpersist(blocking=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(results.summary("e2e-comet"), flush=True)
    spark.stop()
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
