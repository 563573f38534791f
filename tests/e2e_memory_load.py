"""Memory under load: concurrent jobs over a cache larger than storage memory, one small
executor, tablecache next to Spark's default serializer in the same run.

Run by tests/run_e2e.sh with spark-submit's common settings (our jar and serializer); it
starts two applications of its own, one after the other, on local-cluster[1,2,768] (one
executor JVM of 768 MB with 2 task slots and a small spark.memory.fraction, so storage memory
is about 70 MB): one with tablecache and one with Spark's default serializer (the
serializer is a static conf: one application each). Each caches a table several times larger
than storage memory with MEMORY_AND_DISK (blocks are evicted to disk and read back), then runs
four threads of queries at once, each reading every column. Checks, per serializer: every
result equals the uncached query, and the executor was never lost (same executor id and
process from start to end). Reports, side by side, the executor JVM's peak resident memory
(VmHWM from /proc), its resident memory at the end, the cache's memory and disk sizes and the
wall time. Decoded native memory is accounted to the task's execution memory
(DecodedMemory), so concurrent decodes wait for their share instead of growing unseen.

    e2e_memory_load.py                  (the driver of both runs)
    e2e_memory_load.py run SERIALIZER   (one application; prints one RESULT line)

Prints "e2e-memory-load: N passed, N failed" last.
"""

import json
import os
import subprocess
import sys
import threading
import time
import traceback

from harness import Results, rows

ROWS = int(os.environ.get("E2E_MEMORY_ROWS", "1000000"))
TABLE_SQL = f"""
SELECT id, CAST(id % 97 AS INT) AS k, xxhash64(id) AS l, sha2(CAST(id AS STRING), 256) AS h,
       concat('row-', CAST(id AS STRING), '-', substr(sha2(CAST(id AS STRING), 224), 1, 24)) AS s,
       CAST(id AS DOUBLE) / 7 AS x,
       -- Random hex: about 64 bytes a row in any encoding, so that even V4's cache stays several
       -- times larger than storage memory.
       sha2(CAST(id AS STRING), 512) AS h2
FROM range(0, {ROWS}, 1, 24)
"""
QUERIES = [
    "SELECT k, count(*), max(h), min(s), sum(l % 1000), max(x) FROM t GROUP BY k",
    "SELECT count(*), max(h), min(h), max(s), sum(id), max(h2) FROM t",
    "SELECT id, h FROM t WHERE h LIKE 'abc%' OR s LIKE 'row-77777-%'",
]
THREADS = 4
DEFAULT = "org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer"
OURS = "dev.tablecache.spark.NativeCachedBatchSerializer"


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1


def run(serializer):
    """One application: prints RESULT {json}."""
    from pyspark import SparkConf, SparkContext, StorageLevel
    from pyspark.sql import SparkSession
    from e2e_faults import executor_processes, registered_executors, wait_for

    conf = (SparkConf().setMaster("local-cluster[1,2,768]")
            .setAppName(f"tablecache-e2e-memory-load {serializer}")
            .set("spark.executor.memory", "768m")
            .set("spark.memory.fraction", "0.15")
            .set("spark.sql.shuffle.partitions", "4")
            .set("spark.sql.cache.serializer", OURS if serializer == "tablecache" else DEFAULT))
    sc = SparkContext(conf=conf)
    spark = SparkSession(sc)
    result = {"serializer": serializer, "ok": True, "failures": []}
    try:
        wait_for(lambda: registered_executors(sc) == 1, 180, "one executor")
        processes = executor_processes(sc.applicationId)
        t = spark.sql(TABLE_SQL)
        t.createOrReplaceTempView("t")
        expected = {q: rows(spark.sql(q)) for q in QUERIES}
        t.persist(StorageLevel.MEMORY_AND_DISK)
        t.count()
        info = [i for i in sc._jsc.sc().getRDDStorageInfo() if i.isCached()][0]
        result.update(mem_size=info.memSize(), disk_size=info.diskSize(),
                      partitions=info.numPartitions(), cached=info.numCachedPartitions())
        errors = []
        began = time.monotonic()

        def worker(i):
            try:
                for j in range(len(QUERIES)):
                    q = QUERIES[(i + j) % len(QUERIES)]
                    if rows(spark.sql(q)) != expected[q]:
                        errors.append(f"thread {i}: wrong rows for {q}")
            except Exception as e:  # noqa: BLE001 - reported as a failure
                errors.append(f"thread {i}: {type(e).__name__}: {str(e)[:300]}")

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        result["wall_s"] = round(time.monotonic() - began, 1)
        after = executor_processes(sc.applicationId)
        result["failures"] = errors
        result["executor_kept"] = after == processes and len(after) == 1
        pid = next(iter(after.values())) if after else None
        result["peak_rss"] = status(pid, "VmHWM") if pid else -1
        result["rss_end"] = status(pid, "VmRSS") if pid else -1
        result["ok"] = not errors and result["executor_kept"]
    except Exception:
        traceback.print_exc()
        result["ok"] = False
    finally:
        spark.stop()
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


def main():
    results = Results()
    check = results.check

    submit = os.path.join(os.environ["SPARK_HOME"], "bin", "spark-submit")
    args = json.loads(os.environ.get("E2E_MEMORY_SUBMIT_ARGS", "[]"))
    runs = {}
    for serializer in ("tablecache", "spark-default"):
        out = subprocess.run([submit, *args, os.path.abspath(__file__), "run", serializer],
                             capture_output=True, text=True, timeout=1500)
        lines = [l for l in out.stdout.splitlines() if l.startswith("RESULT ")]
        if not lines:
            check(f"{serializer}: the run reported", False, out.stderr[-2000:])
            continue
        r = json.loads(lines[-1][len("RESULT "):])
        runs[serializer] = r
        check(f"{serializer}: every concurrent result equals the uncached query",
              "wall_s" in r and not r["failures"], r["failures"][:3])
        check(f"{serializer}: the executor was never lost", r.get("executor_kept", False))
        check(f"{serializer}: the cache does not fit storage memory (blocks on disk)",
              r.get("disk_size", 0) > 0, r)
    mib = lambda b: f"{b / 2**20:.0f} MiB" if b >= 0 else "?"
    print("| serializer | executor peak RSS | RSS at end | cache in memory | cache on disk |"
          " 4 threads x 3 queries |")
    print("|---|---|---|---|---|---|")
    for name, r in runs.items():
        print(f"| {name} | {mib(r.get('peak_rss', -1))} | {mib(r.get('rss_end', -1))} | "
              f"{mib(r.get('mem_size', -1))} | {mib(r.get('disk_size', -1))} | "
              f"{r.get('wall_s', '?')} s |", flush=True)
    print(results.summary("e2e-memory-load"), flush=True)
    return 1 if results.failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2]))
    sys.exit(main())
