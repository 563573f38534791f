"""tablecache installed the ways Spark users install plugins, each then caching natively.

Run by tests/run_e2e.sh (suite "install") against what scripts/release.sh staged, in one of
three ways, named by the first argument:
  submit REPO COORDINATE     spark-submit --packages COORDINATE --repositories file://REPO with
                             only spark.sql.cache.serializer set (and a fresh spark.jars.ivy)
  builder REPO COORDINATE IVY MASTER
                             plain python: spark.jars.packages, spark.jars.repositories and
                             spark.jars.ivy=IVY in SparkSession.builder, plus the serializer
  wheel MASTER               plain python in a fresh virtualenv where tablecache was installed
                             from a --find-links directory and PySpark after it:
                             tablecache.configure(SparkSession.builder) and nothing else
Each checks that the jar Spark got is the staged one (the same bytes as REPO's artifact, from
the fresh ivy cache; or the one inside the installed wheel), caches a small type-matrix table
and compares every query with the uncached rows, checks the columnar read rule loaded from the
jar (once; on Spark 3.5 only where configure() names it in spark.sql.extensions), and shows the
cache is native: every cached batch Spark stores is a dev.tablecache.spark.NativeCachedBatch (the
fallback stores Spark's DefaultCachedBatch). Prints "e2e-install: N passed, N failed" last.
"""

import hashlib
import os
import sys
import traceback
from urllib.parse import unquote, urlparse

from pyspark.sql import SparkSession

from harness import Results, rows, type_matrix_sql

SERIALIZER = "dev.tablecache.spark.NativeCachedBatchSerializer"
NATIVE_BATCH = "dev.tablecache.spark.NativeCachedBatch"
ROWS = 3000
QUERIES = [
    "SELECT count(*), sum(l), max(s), min(dt), sum(dec1) FROM t",
    "SELECT by % 5 AS g, count(*), sum(i), max(d), min(ts) FROM t GROUP BY by % 5",
    "SELECT id, s, bin, f FROM t WHERE id BETWEEN 700 AND 760",
    "SELECT * FROM t",
]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def local_path(uri):
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme in ("file", "") else None


def artifact_path(repo, coordinate):
    group, artifact, version = coordinate.split(":")
    return os.path.join(repo, *group.split("."), artifact, version, f"{artifact}-{version}.jar")


def session(way, args):
    builder = SparkSession.builder.appName(f"tablecache-e2e-install-{way}")
    if way == "builder":
        repo, coordinate, ivy, master = args
        builder = (builder.master(master)
                   .config("spark.jars.packages", coordinate)
                   .config("spark.jars.repositories", f"file://{repo}")
                   .config("spark.jars.ivy", ivy)
                   .config("spark.sql.cache.serializer", SERIALIZER))
    elif way == "wheel":
        import tablecache
        builder = tablecache.configure(builder).master(args[0])
    if way != "submit":
        builder = (builder.config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", "4"))
    return builder.getOrCreate()


def check_jar(check, spark, way, args):
    """The tablecache jar Spark was given is the staged one."""
    jars = [j for j in spark.sparkContext.getConf().get("spark.jars", "").split(",") if j]
    ours = [j for j in jars if "tablecache" in os.path.basename(j)]
    if not check("one tablecache jar in spark.jars", len(ours) == 1, jars):
        return
    path = local_path(ours[0])
    if way == "wheel":
        import tablecache
        check("the installed wheel's jar", path == tablecache.jar_path(), f"{path}")
        check("wheel installed in this virtualenv",
              path.startswith(os.path.realpath(sys.prefix) + os.sep)
              or path.startswith(sys.prefix + os.sep), f"{path} not under {sys.prefix}")
        import pyspark
        check("pyspark from this virtualenv", pyspark.__file__.startswith(sys.prefix + os.sep),
              pyspark.__file__)
        return
    repo, coordinate = args[0], args[1]
    group, artifact, version = coordinate.split(":")
    ivy = spark.sparkContext.getConf().get("spark.jars.ivy", "")
    check("resolved into the fresh ivy cache", bool(ivy) and path.startswith(ivy + os.sep),
          f"{path} (spark.jars.ivy={ivy})")
    check("ivy's name for the coordinate",
          os.path.basename(path) == f"{group}_{artifact}-{version}.jar", path)
    staged = artifact_path(repo, coordinate)
    check("the staged artifact's bytes", sha256(path) == sha256(staged), f"{path} vs {staged}")


def cached_batch_classes(spark, sql):
    """The classes of the batches Spark stores for the cache of `sql` (read from its blocks)."""
    relation = spark.sql(sql)._jdf.queryExecution().withCachedData()
    if not relation.getClass().getName().endswith(".InMemoryRelation"):
        return None, relation.getClass().getName()
    batches = relation.cacheBuilder().cachedColumnBuffers().collect()
    return [b.getClass().getName() for b in batches], sum(b.numRows() for b in batches)


def main():
    way, args = sys.argv[1], sys.argv[2:]
    spark = session(way, args)
    results = Results(prefix=f"[{way}, Spark {spark.version}] ", echo_passes=True)
    check = results.check
    try:
        check("serializer", spark.conf.get("spark.sql.cache.serializer") == SERIALIZER,
              spark.conf.get("spark.sql.cache.serializer"))
        check_jar(check, spark, way, args)
        # The jar's META-INF/services registers the columnar read rule; Spark 4 loads it from a
        # jar however it arrived, Spark 3.5's PySpark only through spark.sql.extensions, which
        # configure() sets there.
        rules = spark._jsparkSession.sessionState().columnarRules()
        ours = [n for n in (rules.apply(i).getClass().getName() for i in range(rules.size()))
                if n.startswith("dev.tablecache.")]
        expected_rules = 0 if spark.version.startswith("3.") and way != "wheel" else 1
        check(f"our columnar rule installed {expected_rules} time(s)",
              len(ours) == expected_rules, ours)

        sql = type_matrix_sql(source=f"range(0, {ROWS}, 1, 6)")
        spark.sql(sql).createOrReplaceTempView("t")
        expected = {q: rows(spark.sql(q)) for q in QUERIES}
        cached = spark.sql(sql)
        cached.cache()
        check("cache built", cached.count() == ROWS)
        # The view's plan is the cached one, so its queries read the cache (replacing or dropping
        # the view would uncache it).
        for q in QUERIES:
            df = spark.sql(q)
            got = rows(df)
            check(f"cached = uncached: {q}", got == expected[q] and len(got) > 0,
                  f"expected {len(expected[q])} rows, got {len(got)}")
            plan = df._jdf.queryExecution().executedPlan().toString()
            check(f"reads the cache: {q}", "InMemoryTableScan" in plan, plan)
        classes, detail = cached_batch_classes(spark, sql)
        check("the cache is an InMemoryRelation", classes is not None, detail)
        if classes is not None:
            check("every cached batch is native (not the fallback's)",
                  len(classes) > 0 and set(classes) == {NATIVE_BATCH},
                  f"{len(classes)} batches: {sorted(set(classes))}")
            check("the native batches hold every row", detail == ROWS, f"{detail} rows")
        cached.unpersist(blocking=True)
    except Exception:  # report, count, and still print the summary line
        traceback.print_exc()
        check("no error", False)
    print(results.summary("e2e-install"), flush=True)
    spark.stop()
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
