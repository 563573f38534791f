"""The SQL metrics of our cache scans and the sizes of our caches, read the way the Spark UI shows
them: through the driver's REST API (/api/v1/applications/<app>/sql and .../storage/rdd).

Run by tests/run_e2e.sh (suite "metrics", one PySpark version per jar line) with spark-submit on
local-cluster[2,1,1024] with spark.ui.enabled=true on a free port (spark.ui.port) and
spark.sql.extensions naming TableCacheExtensions (PySpark 3.5 skips the ServiceLoader provider).

The cached data makes every value known: range(0, P*B*R) in P partitions with R rows per batch
is P*B batches of one long column, batch i holding ids [i*R, (i+1)*R), so a filter id < k*R keeps
exactly k batches and the stats prune the rest; a decoded batch is 8*R bytes (no nulls: no
validity buffer). Each query runs under its own job description, which names its SQL execution
in the REST API; every TableCacheScanMetrics node of that execution must show exactly the
expected counts. Byte sizes are shown by Spark rounded (Utils.bytesToString), so the REST value
is compared with Spark's rendering of the exact figure, and the exact figure is read from the
executed plan's node as well. Prints "e2e-sql-metrics: N passed, N failed" last.
"""

import json
import sys
import time
import traceback
import urllib.request

from harness import Results, scan_metrics_nodes, session

P, B, R = 4, 3, 200  # partitions, batches per partition, rows per batch
BATCHES = P * B
BATCH_BYTES = 8 * R  # one decoded long column of R values, no validity buffer
NODE = "TableCacheScanMetrics"
READ, PRUNED, DECODED = "cached batches read", "cached batches pruned by stats", "cached batches decoded"
FROM_STATS, BYTES, TIME = "cached batches answered from stats", "bytes decoded", "time decoding"
COUNTS = (READ, PRUNED, DECODED, FROM_STATS)


class Rest:
    """The driver's REST API."""

    def __init__(self, spark):
        port = spark.sparkContext.uiWebUrl.rsplit(":", 1)[1]
        self.base = f"http://127.0.0.1:{port}/api/v1/applications/{spark.sparkContext.applicationId}"

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=30) as r:
            return json.load(r)

    def execution(self, description):
        """The completed SQL execution run under this job description, with its node metrics.
        The status store is filled by Spark's listener bus, after the action returned: wait
        for it (a generous bound; no value depends on how long it took)."""
        deadline = time.monotonic() + 60
        while True:
            for e in self.get("/sql?details=true&planDescription=false&offset=0&length=1000"):
                if e.get("description") == description and e.get("status") == "COMPLETED" \
                        and any(n.get("metrics") for n in e["nodes"] if n["nodeName"] == NODE):
                    return e
            if time.monotonic() > deadline:
                raise TimeoutError(f"no completed SQL execution {description!r} with metrics")
            time.sleep(0.5)


def metric_values(node):
    """{metric name: value string} of one REST plan node."""
    return {m["name"]: m["value"] for m in node.get("metrics", [])}


def count(value):
    """A sum metric's value: "1,200" (or, should a line show a total line first, its last
    line's first figure)."""
    last = value.strip().splitlines()[-1] if "\n" in value else value
    return int(last.split(" (")[0].replace(",", "").strip())


def total(value):
    """A size or timing metric's total: the string itself for one task's value, else the first
    figure of the line under "total (min, med, max ...)"."""
    return value.split("\n", 1)[1].split(" (")[0] if "\n" in value else value.strip()


def main():
    spark = session("tablecache-e2e-sql-metrics", {"spark.sql.autoBroadcastJoinThreshold": "-1"})
    results = Results()
    check = results.check
    jvm = spark._jvm
    try:
        spark.conf.set("spark.tablecache.batchRows", str(R))
        rest = Rest(spark)
        spark.range(0, BATCHES * R, 1, P).createOrReplaceTempView("t")
        spark.catalog.cacheTable("t")
        spark.table("t").count()
        spark.range(0, 3 * R, 1, 1).createOrReplaceTempView("u")  # 3 batches, other ids too
        spark.catalog.cacheTable("u")
        spark.table("u").count()

        def run(name, sql, expected, decodes):
            """Runs sql under job description name; its SQL execution's metrics nodes must show
            the expected {metric: value} (one dict per node, in any order); decodes: whether
            every node decoded batches (then its decode time must be > 0)."""
            spark.sparkContext.setJobDescription(name)
            try:
                df = spark.sql(sql)
                rows = df.collect()
            finally:
                spark.sparkContext.setJobDescription(None)
            nodes = [metric_values(n) for n in rest.execution(name)["nodes"]
                     if n["nodeName"] == NODE]
            # A metric no task added to may be left out of the REST answer: it shows 0.
            shown = sorted(tuple(count(v.get(k, "0")) for k in COUNTS) for v in nodes)
            want = sorted(tuple(e[k] for k in COUNTS) for e in expected)
            check(f"{name}: batches read, pruned, decoded, from stats per scan node (REST)",
                  shown == want, f"shown {shown}, expected {want}; {nodes}")
            shown_bytes = sorted(total(v.get(BYTES, "0.0 B")) for v in nodes)
            want_bytes = sorted(jvm.org.apache.spark.util.Utils.bytesToString(e[BYTES])
                                for e in expected)
            check(f"{name}: bytes decoded as Spark renders the exact figure (REST)",
                  shown_bytes == want_bytes, f"shown {shown_bytes}, expected {want_bytes}")
            check(f"{name}: time decoding shown on every node (REST)",
                  all(total(v.get(TIME, "0 ms")).endswith(("ms", "s", "m", "h")) for v in nodes)
                  and len(nodes) == len(expected),
                  nodes)
            exact = sorted(n.metrics().apply("bytesDecoded").value()
                           for n in scan_metrics_nodes(df))
            want_exact = sorted(e[BYTES] for e in expected)
            check(f"{name}: exact bytes decoded on the executed plan's nodes",
                  [max(0, b) for b in exact] == want_exact, f"{exact}, expected {want_exact}")
            if decodes:
                nanos = [n.metrics().apply("decodeTime").value() for n in scan_metrics_nodes(df)]
                check(f"{name}: decode time > 0 where batches were decoded",
                      all(t > 0 for t in nanos), nanos)
            return rows

        def scan(read=0, pruned=0, decoded=0, from_stats=0, nbytes=0):
            return {READ: read, PRUNED: pruned, DECODED: decoded, FROM_STATS: from_stats,
                    BYTES: nbytes}

        rows = run("filter", f"SELECT id FROM t WHERE id < {2 * R}",
                   [scan(read=2, pruned=BATCHES - 2, decoded=2, nbytes=2 * BATCH_BYTES)], True)
        check("filter: rows", len(rows) == 2 * R, len(rows))

        rows = run("aggregates from stats", "SELECT count(*), min(id), max(id) FROM t",
                   [scan(read=BATCHES, from_stats=BATCHES)], False)
        check("aggregates from stats: values",
              [tuple(r) for r in rows] == [(BATCHES * R, 0, BATCHES * R - 1)], rows)

        rows = run("projection", "SELECT sum(id * 2) FROM t",
                   [scan(read=BATCHES, decoded=BATCHES, nbytes=BATCHES * BATCH_BYTES)], True)
        n = BATCHES * R
        check("projection: value", rows[0][0] == n * (n - 1), rows)

        rows = run("two caches", "SELECT count(*) FROM t JOIN u ON t.id = u.id + 1",
                   [scan(read=BATCHES, decoded=BATCHES, nbytes=BATCHES * BATCH_BYTES),
                    scan(read=3, decoded=3, nbytes=3 * BATCH_BYTES)], True)
        check("two caches: value", rows[0][0] == 3 * R, rows)

        # The Storage tab: our cache's size is its frames' bytes.
        frames = spark.table("t")._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()
        frame_bytes = frames if isinstance(frames, int) else int(frames.toString())  # BigInt
        entries = [r for r in rest.get("/storage/rdd")
                   if r["name"].startswith("In-memory table") and r["name"].split()[-1] == "t"]
        check("storage: one RDD for cache t (REST)", len(entries) == 1,
              [r["name"] for r in rest.get("/storage/rdd")])
        if entries:
            info = rest.get(f"/storage/rdd/{entries[0]['id']}")
            used = info["memoryUsed"]
            check("storage: every partition cached in memory (REST)",
                  info["numCachedPartitions"] == P and info["diskUsed"] == 0, info)
            check("storage: partitions' memory adds up to the RDD's (REST)",
                  sum(p["memoryUsed"] for p in info.get("partitions", [])) == used, info)
            # The frames, plus per batch its object and array headers, per partition an array.
            check("storage: memory used is the frames' bytes plus object headers (REST)",
                  0 <= used - frame_bytes <= 64 * BATCHES + 64 * P,
                  f"memoryUsed {used}, frame bytes {frame_bytes}")
    except Exception:  # noqa: BLE001 - a crash is one failure, reported with its trace
        traceback.print_exc()
        check("no error", False)
    print(results.summary("e2e-sql-metrics"), flush=True)
    spark.stop()
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
