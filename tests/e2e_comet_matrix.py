"""Query shapes under Apache DataFusion Comet over cached tables: every shape Comet plans, with
the zero-copy read on.

Run by tests/run_e2e.sh through spark-submit on PySpark 4.1.x with Comet switched on (plugin,
exec, Comet shuffle, off-heap memory), as tests/e2e_comet.py is:

    e2e_comet_matrix.py ours RESULTS.json [REFERENCE.json]
    e2e_comet_matrix.py comet-own RESULTS.json

`ours` runs with spark.sql.cache.serializer set to tablecache; `comet-own` with Comet's own
cache (spark.comet.exec.inMemoryCache.enabled=true, no serializer set). Both are static confs, so
each is its own application. Every run caches the same deterministic tables, runs every shape
with adaptive execution on and off, checks each result against the same query uncached in the
same run and writes the results to RESULTS.json. Given REFERENCE.json (a comet-own run), each
result must also equal Comet's own cache's. In `ours` mode every plan is checked too: no cache
scan of ours is read through Comet's copying conversion, and where Comet's operators run above
a cache, our zero-copy scan feeds them. Prints one line per shape and "e2e-comet-matrix: N
passed, N failed" last.
"""

import json
import os
import shutil
import sys
import tempfile
import traceback


from harness import Results, rows, session

OURS = "dev.tablecache.spark.NativeCachedBatchSerializer"

FACT_SQL = """
SELECT
  id,
  CASE WHEN id % 7 = 0 THEN NULL ELSE id % 3 = 0 END AS b,
  CAST(id % 256 - 128 AS TINYINT) AS by,
  CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id - 1000 AS INT) END AS i,
  id * 1000003 % 99991 AS l,
  CASE WHEN id BETWEEN 1700 AND 1709 THEN double('NaN') WHEN id % 50 = 2 THEN double('-0.0')
       WHEN id % 19 = 0 THEN NULL ELSE id / 3.0 - 300 END AS x,
  CASE WHEN id % 17 = 0 THEN NULL WHEN id % 17 = 1 THEN ''
       WHEN id % 17 = 2 THEN 'ünïcødé ✓ 日本語 😀'
       ELSE concat('k', lpad(CAST(id % 400 AS STRING), 5, '0')) END AS s,
  CAST(id * 1.25 - 500 AS DECIMAL(10,2)) AS dec1,
  CASE WHEN id % 23 = 0 THEN NULL ELSE CAST(id * 1000000007 AS DECIMAL(38,0)) END AS dec3,
  date_add(DATE'1899-12-25', CAST(id * 13 AS INT)) AS dt,
  timestamp_micros(id * 86400000001 - 2208988800000000) AS ts,
  id % 40 AS k
FROM range(0, 3000, 1, 6)
WHERE (id < 1000 OR id >= 1500)
"""

DIM_SQL = """
SELECT id AS k, concat('name-', CAST(id AS STRING)) AS name, CAST(id * 2.5 AS DOUBLE) AS w
FROM range(0, 60, 1, 2)
"""

NESTED_SQL = """
SELECT
  id,
  CASE WHEN id % 9 = 0 THEN NULL ELSE array(CAST(id AS INT), NULL, CAST(id % 4 AS INT)) END AS arr,
  named_struct('a', CAST(id AS INT), 'b', CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(id AS STRING) END,
               'c', named_struct('x', id * 0.5D)) AS st
FROM range(0, 2000, 1, 4)
"""

# (shape, query). Queries read the cached views t (fact), d (dimension), n (nested) and, for
# the cache of a cache, g. Every result is compared as a sorted list unless the query orders it.
SHAPES = [
    ("aggregate: global", "SELECT count(*), sum(l), max(x), min(s), max(dec3), min(dt), max(ts) FROM t"),
    ("aggregate: grouped", "SELECT b, by % 4, count(*), sum(l), max(x), min(s), sum(dec1) FROM t GROUP BY b, by % 4"),
    ("aggregate: grouped ORDER BY LIMIT", "SELECT k, sum(l) AS sl, count(*) AS c FROM t GROUP BY k ORDER BY sl DESC, k LIMIT 5"),
    ("aggregate: grouped ORDER BY LIMIT (strings)", "SELECT s, count(*) AS c FROM t GROUP BY s ORDER BY c DESC, s LIMIT 4"),
    ("aggregate: DISTINCT", "SELECT DISTINCT b, by % 5 FROM t"),
    ("aggregate: count DISTINCT", "SELECT k % 3, count(DISTINCT s), count(DISTINCT i) FROM t GROUP BY k % 3"),
    ("sort: full", "SELECT id, s, x FROM t ORDER BY l, id"),
    ("limit", "SELECT count(*) FROM (SELECT id FROM t LIMIT 17)"),
    ("top-n", "SELECT id, s, dec1 FROM t ORDER BY dec1 DESC, id LIMIT 7"),
    ("top-n: OFFSET", "SELECT id FROM t ORDER BY id LIMIT 5 OFFSET 3"),
    ("top-n: NaN and nulls first", "SELECT id, x FROM t ORDER BY x DESC NULLS FIRST, id LIMIT 15"),
    ("window: row_number", "SELECT id, b, row_number() OVER (PARTITION BY b ORDER BY id) AS rn FROM t"),
    ("window: running sum, rank", "SELECT id, sum(l) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS rs, rank() OVER (PARTITION BY k ORDER BY l) AS r FROM t"),
    ("window: top-n per group", "SELECT * FROM (SELECT k, id, l, row_number() OVER (PARTITION BY k ORDER BY l DESC, id) AS rn FROM t) WHERE rn <= 2"),
    ("join: broadcast hash, cache on the build side", "SELECT /*+ BROADCAST(d) */ t.id, d.name FROM t JOIN d ON t.k = d.k WHERE t.id % 5 = 0"),
    ("join: broadcast hash, cache on the stream side", "SELECT /*+ BROADCAST(t) */ d.name, t.id FROM d JOIN t ON t.k = d.k WHERE t.id % 7 = 0"),
    ("join: shuffled hash", "SELECT /*+ SHUFFLE_HASH(d) */ t.id, d.w FROM t JOIN d ON t.k = d.k WHERE t.id % 3 = 0"),
    ("join: sort-merge", "SELECT /*+ MERGE(d) */ t.id, d.name, t.s FROM t JOIN d ON t.k = d.k WHERE t.b"),
    ("join: left outer, top-n above", "SELECT t.id, d.name FROM t LEFT JOIN d ON t.k = d.k + 30 ORDER BY t.id DESC LIMIT 9"),
    ("join: self-join of one cache", "SELECT a.id, b.s FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.dec1 > 3000"),
    ("UNION ALL of two caches", "SELECT k, s AS v FROM t WHERE id % 10 = 0 UNION ALL SELECT k, name FROM d"),
    ("UNION ALL, aggregated", "SELECT k, count(*) FROM (SELECT k FROM t UNION ALL SELECT k FROM d) GROUP BY k"),
    ("subquery: scalar", "SELECT id FROM t WHERE l > (SELECT avg(l) + 40000 FROM t)"),
    ("subquery: IN", "SELECT id, s FROM t WHERE k IN (SELECT k FROM d WHERE w > 120) AND id % 4 = 0"),
    ("subquery: EXISTS", "SELECT d.k FROM d WHERE EXISTS (SELECT 1 FROM t WHERE t.k = d.k AND t.l < 100)"),
    ("cache of a cache", "SELECT b, sum(sl) FROM g GROUP BY b"),
    ("cache of a cache: top-n", "SELECT k, sl FROM g ORDER BY sl DESC, k, b LIMIT 6"),
    ("nested: scan", "SELECT * FROM n WHERE id % 97 = 1"),
    ("nested: top-n", "SELECT id, st FROM n ORDER BY st.a DESC LIMIT 5"),
    ("nested: aggregate of a field", "SELECT st.a % 5, count(*), max(st.c.x) FROM n GROUP BY st.a % 5"),
]

# Shapes whose queries order their whole result (compared in order).
ORDERED = {"sort: full", "top-n", "top-n: OFFSET", "top-n: NaN and nulls first",
           "aggregate: grouped ORDER BY LIMIT", "aggregate: grouped ORDER BY LIMIT (strings)",
           "join: left outer, top-n above", "cache of a cache: top-n", "nested: top-n"}


def final_plan(df):
    """The executed plan after execution: of an adaptive plan, its final stages (the string
    also holds the initial plan, which is never run as it is)."""
    return df._jdf.queryExecution().executedPlan().toString().split("== Initial Plan ==")[0]


def main():
    mode, out_path = sys.argv[1], sys.argv[2]
    reference_path = sys.argv[3] if len(sys.argv) > 3 else None
    own = {"spark.comet.exec.inMemoryCache.enabled": "true"} if mode == "comet-own" else {}
    spark = session(f"tablecache-e2e-comet-matrix-{mode}", own)
    sc = spark.sparkContext
    serializer = spark.conf.get("spark.sql.cache.serializer", "")
    reference = None
    if reference_path:
        with open(reference_path) as f:
            reference = json.load(f)

    results = Results()
    check = results.check

    check(f"{mode}: serializer", (serializer == OURS) == (mode == "ours"), serializer)
    print(f"spark {spark.version}, master {sc.master}, mode {mode}, comet "
          f"{sc._jvm.org.apache.comet.package.COMET_VERSION()}", flush=True)

    answers = {}
    table_rows = []
    work = tempfile.mkdtemp(prefix="tablecache-e2e-comet-matrix-")
    try:
        # Parquet, so the caches' input is Comet's own scan (its shaded Arrow batches).
        for name, sql in (("t", FACT_SQL), ("d", DIM_SQL), ("n", NESTED_SQL)):
            spark.sql(sql).write.parquet(os.path.join(work, name))
        for aqe in ("true", "false"):
            spark.conf.set("spark.sql.adaptive.enabled", aqe)
            # Small enough that only the hinted joins broadcast.
            spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
            views = {name: spark.read.parquet(os.path.join(work, name)) for name in ("t", "d", "n")}
            for name, df in views.items():
                df.createOrReplaceTempView(name)
            grouped = "SELECT k, b, sum(l) AS sl FROM t GROUP BY k, b"
            spark.sql(grouped).createOrReplaceTempView("g")
            expected = {}
            for shape, q in SHAPES:
                expected[shape] = rows(spark.sql(q), shape in ORDERED)
            for df in views.values():
                df.cache().count()
            # The cache of a cache: its input is a plan that reads the cache of t.
            g = spark.sql(grouped)
            g.cache().count()
            g.createOrReplaceTempView("g")
            manager = spark._jsparkSession.sharedState().cacheManager()
            writers = {name: manager.lookupCachedData(df._jdf).get().cachedRepresentation()
                       .cacheBuilder().serializer().getClass().getName()
                       for name, df in list(views.items()) + [("g", g)]}
            if mode == "ours":
                check(f"aqe={aqe}: our serializer wrote every cache",
                      all(w == OURS for w in writers.values()), writers)
            else:
                check(f"aqe={aqe}: Comet's serializer wrote every cache",
                      all("comet" in w.lower() for w in writers.values()), writers)
            for shape, q in SHAPES:
                key = f"aqe={aqe} {shape}"
                outcome = "right"
                try:
                    df = spark.sql(q)
                    got = rows(df, shape in ORDERED)
                    answers[key] = got
                    ok = got == expected[shape]
                    check(f"{key}: equals uncached", ok,
                          f"expected {len(expected[shape])} rows, got {len(got)}: "
                          f"{got[:3]} vs {expected[shape][:3]}")
                    if reference is not None:
                        same = reference.get(key) == got
                        check(f"{key}: equals Comet's own cache", same)
                        ok = ok and same
                    if mode == "ours":
                        plan = final_plan(df)
                        # Comet's copying conversion never reads one of our caches...
                        copying = "CometSparkColumnarToColumnar" in plan
                        check(f"{key}: no copying conversion over our cache", not copying, plan)
                        # ... and where Comet's operators run on a cache, our scan feeds them.
                        native = any(op in plan for op in ("CometHashAggregate", "CometSort",
                                                           "CometProject", "CometFilter",
                                                           "CometBroadcastHashJoin",
                                                           "CometHashJoin", "CometSortMergeJoin",
                                                           "CometExchange", "CometUnion",
                                                           "CometTakeOrderedAndProject",
                                                           "CometWindowExec",
                                                           "CometColumnarExchange"))
                        if native and "InMemoryTableScan" in plan:
                            zero_copy = "TableCacheCometScan" in plan
                            check(f"{key}: our scan feeds Comet without a copy", zero_copy, plan)
                            ok = ok and zero_copy
                        ok = ok and not copying
                    outcome = "right" if ok else "WRONG"
                    if mode == "ours":
                        outcome += ", zero-copy" if "TableCacheCometScan" in final_plan(df) \
                            else ", Spark operators"
                except Exception:  # one failing shape must not hide the others
                    traceback.print_exc()
                    check(f"{key}: no error", False)
                    outcome = "ERROR"
                table_rows.append((aqe, shape, outcome))
                print(f"shape aqe={aqe} | {shape} | {outcome}", flush=True)
            for df in list(views.values()) + [g]:
                df.unpersist(blocking=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    with open(out_path, "w") as f:
        json.dump(answers, f)
    print(results.summary("e2e-comet-matrix"), flush=True)
    spark.stop()
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
