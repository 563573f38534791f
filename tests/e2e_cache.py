"""End-to-end check of dev.tablecache.spark.NativeCachedBatchSerializer.

Run by tests/run_e2e.sh through spark-submit on local-cluster[2,1,1024]: two executor JVMs load
the tablecache jar (and extract its native library), cache a table of every common Spark type
at several storage levels, and every query must return exactly what the uncached table
returns. Exits non-zero on any difference and prints "e2e: N passed, N failed" last.
"""

import sys
import traceback

from pyspark import StorageLevel

from harness import TYPE_MATRIX_QUERIES, Results, rows, session, type_matrix_sql

TABLE_SQL = type_matrix_sql(
    extra_columns=[
        "CAST(id * 1000000007 AS DECIMAL(38,0)) AS dec2",
        "CASE WHEN id % 9 = 0 THEN NULL ELSE array(CAST(id AS INT), NULL) END AS arr",
        "CASE WHEN id % 10 = 0 THEN NULL ELSE map('k1', CAST(id AS INT)) END AS m",
        "named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING)) AS st",
    ],
    where="(id < 1000 OR id >= 1500) AND (id < 500 OR id >= 1000 OR id % 10 = 0)")

QUERIES = TYPE_MATRIX_QUERIES + [
    "SELECT id FROM t WHERE isnan(d) OR d > 600",
    "SELECT id, d FROM t WHERE d = -0.0",
    "SELECT id FROM t WHERE i BETWEEN -100 AND 100",
    "SELECT id FROM t WHERE i IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 500, 1999)",
    "SELECT id FROM t WHERE i IS NULL",
    "SELECT id, s FROM t WHERE s LIKE 'k001%'",
    "SELECT id FROM t WHERE s = '' OR s = 'ünïcødé ✓ 日本語 😀'",
    "SELECT id FROM t WHERE s LIKE concat(repeat('z', 300), '3%')",
    "SELECT id FROM t WHERE dec1 BETWEEN -10 AND 10",
    "SELECT id FROM t WHERE dt < DATE'1900-06-01'",
    "SELECT id FROM t WHERE ts > TIMESTAMP'1975-01-01 00:00:00'",
    "SELECT id FROM t WHERE bin IS NULL AND id < 100",
    "SELECT id FROM t WHERE allnull IS NOT NULL OR allnull = 3",
    "SELECT id, arr, m, st FROM t WHERE st.a > 2990 OR arr IS NULL AND id < 40",
    "SELECT s, count(*), max(d), min(dec1) FROM t GROUP BY s",
    "SELECT a.id, b.s FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.dec1 > 3000",
]



LEVELS = {
    "MEMORY_ONLY (deserialized)": StorageLevel(False, True, False, True, 1),
    "MEMORY_ONLY_SER": StorageLevel(False, True, False, False, 1),
    "MEMORY_AND_DISK": StorageLevel.MEMORY_AND_DISK,
    "DISK_ONLY": StorageLevel.DISK_ONLY,
    "MEMORY_ONLY_2 (deserialized, replicated)": StorageLevel(False, True, False, True, 2),
}


def main():
    spark = session("tablecache-e2e")
    sc = spark.sparkContext
    results = Results()
    check = results.check

    serializer = spark.conf.get("spark.sql.cache.serializer")
    check("serializer configured", serializer == "dev.tablecache.spark.NativeCachedBatchSerializer",
          serializer)
    capability = sc._jvm.dev.tablecache.jni.Capability.current().toString()
    print(f"spark {spark.version}, master {sc.master}, serializer {spark.conf.get('spark.serializer', 'java')}, "
          f"driver capability {capability}", flush=True)
    check("native library on the driver", capability == "V4", capability)

    table = spark.sql(TABLE_SQL)
    table.createOrReplaceTempView("t")
    expected = {q: rows(spark.sql(q)) for q in QUERIES}
    check("NaN rows exist uncached", len(expected[QUERIES[4]]) == 10)
    total = table.count()

    for level_name, level in LEVELS.items():
        try:
            table.persist(level)
            check(f"{level_name}: count", table.count() == total)
            infos = sc._jsc.sc().getRDDStorageInfo()
            stored = len(infos) == 1 and infos[0].numCachedPartitions() == infos[0].numPartitions()
            check(f"{level_name}: every partition cached", stored,
                  [(i.name(), i.numCachedPartitions(), i.numPartitions()) for i in infos])
            if level.replication == 2:
                check(f"{level_name}: replicated", infos[0].storageLevel().replication() == 2)
            for q in QUERIES:
                got = rows(spark.sql(q))
                check(f"{level_name}: {q}", got == expected[q],
                      f"expected {len(expected[q])} rows, got {len(got)}")
        except Exception:  # a crash in one level must not hide the others
            traceback.print_exc()
            check(f"{level_name}: no error", False)
        finally:
            table.unpersist(blocking=True)
            check(f"{level_name}: unpersisted", len(sc._jsc.sc().getRDDStorageInfo()) == 0)

    q = "SELECT id, s, d FROM c WHERE d = double('NaN') OR s LIKE 'k002%'"
    want = rows(spark.sql(q.replace("FROM c", "FROM (SELECT * FROM t WHERE id % 3 = 0)")))
    spark.sql("CACHE TABLE c AS SELECT * FROM t WHERE id % 3 = 0")
    check("CACHE TABLE", spark.catalog.isCached("c"))
    check("CACHE TABLE query", rows(spark.sql(q)) == want)
    spark.sql("UNCACHE TABLE c")
    check("UNCACHE TABLE", not spark.catalog.isCached("c"))

    print(results.summary("e2e"), flush=True)
    spark.stop()
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
