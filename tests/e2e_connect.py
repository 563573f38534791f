"""tablecache behind a Spark Connect server, used from a Spark Connect client (Spark 4).

Run by tests/run_e2e.sh (suite "connect") with the PySpark virtualenv's python, whose pyspark
has the Connect client's dependencies installed (run_e2e.sh pins them):

  e2e_connect.py JAR [SPARK-SUBMIT ARGS...]

It starts org.apache.spark.sql.connect.service.SparkConnectServer with spark-submit from
PySpark's own jars (the spark-connect jar the wheel ships in jars/, or --packages when it has
none) on local[2], a free 127.0.0.1 port, --jars JAR and the server settings a user needs:
spark.sql.cache.serializer, plus spark.tablecache.onUnavailable=fail. For the checks only, the
server also gets spark.plugins=dev.tablecache.spark.TableCachePlugin and Spark's CsvSink (every
second into a temporary directory), whose files this script reads: it has no JVM of its own to
ask. Extra SPARK-SUBMIT ARGS go after the script's own, so they override them (diagnostics,
e.g. the fallback: --conf spark.tablecache.onUnavailable=fallback --driver-java-options
-Dtablecache.native.path=/nonexistent, under which the frame checks must fail).

The client (SparkSession.builder.remote) sets nothing but runtime confs of its own session
(spark.tablecache.batchRows, so that each cache's frame count is known from its partitions'
sizes; shuffle partitions), caches e2e_cache.py's type-matrix table with df.cache(),
df.persist(MEMORY_ONLY / MEMORY_AND_DISK / DISK_ONLY), CACHE TABLE on the view and CACHE TABLE
... AS SELECT, and compares every query with the same query uncached (exact rows). After each
cache it checks, from the sink's first report taken after the work, that the server wrote
exactly the expected number of V4 frames (the default format) (and no frame of another format) and that the queries
were decoded by tablecache's reader: Spark's default serializer (the fallback) moves neither.
The server is stopped at the end, also on failure or SIGTERM. Prints "e2e-connect: N passed,
N failed" last.
"""

import glob
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import pyspark
from pyspark import StorageLevel
from pyspark.sql import SparkSession

from e2e_cache import TABLE_SQL
from harness import Results, rows

SERIALIZER = "dev.tablecache.spark.NativeCachedBatchSerializer"
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
PLUGIN = "plugin.dev.tablecache.spark.TableCachePlugin."
# Rows per cached batch, set from the client: every partition of the table holds at most 500
# rows, so it is cut into ceil(rows / 200) frames.
BATCH_ROWS = 200
START_TIMEOUT = float(os.environ.get("E2E_CONNECT_START_TIMEOUT", "240"))
REPORT_TIMEOUT = 60.0
FORMATS = ("v4", "v3", "v2", "legacy")
METRICS = tuple(f"framesWritten.{f}" for f in FORMATS) + (
    "read.batchesDecoded", "read.batchesKept", "read.batchesPruned", "read.batchesRowsOnly")

QUERIES = [
    "SELECT * FROM t",
    "SELECT count(*) FROM t",
    "SELECT id, d FROM t WHERE d = double('NaN')",
    "SELECT id, d, f FROM t WHERE d = -0.0 OR f = float('NaN')",
    "SELECT id, s FROM t WHERE s = '' OR s = 'ünïcødé ✓ 日本語 😀' OR s LIKE 'k001%'",
    "SELECT id, i, dt FROM t WHERE i IN (1, 2, 3, 500, 1999) OR dt < DATE'1900-06-01'",
    "SELECT s, count(*), max(d), min(dec1), max(ts) FROM t GROUP BY s",
    "SELECT a.id, b.s, b.arr, b.m, b.st FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.dec1 > 3000",
]
NAN_QUERY = QUERIES[2]
# CACHE TABLE ... AS SELECT: a cache of another plan, queried by its own name.
CTAS = "SELECT * FROM t WHERE id % 3 = 0"
CTAS_QUERIES = [
    "SELECT * FROM c",
    "SELECT id, s, d FROM c WHERE d = double('NaN') OR s LIKE 'k002%'",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class ConnectServer:
    """A Spark Connect server started by spark-submit in its own process group."""

    def __init__(self, jar, port, metrics_dir, log_path, extra_args):
        spark_home = os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__)
        connect_jars = glob.glob(os.path.join(spark_home, "jars", "spark-connect_*.jar"))
        # On the classpath already when the wheel ships it in jars/; otherwise from Maven Central.
        packages = [] if connect_jars else [
            "--packages", f"org.apache.spark:spark-connect_2.13:{pyspark.__version__}"]
        self.source = connect_jars[0] if connect_jars else " ".join(packages)
        sink = "spark.metrics.conf.*.sink.csv."
        command = [
            os.path.join(spark_home, "bin", "spark-submit"),
            "--class", SERVER_CLASS,
            "--name", "tablecache-e2e-connect",
            "--master", "local[2]",
            "--jars", jar,
            "--conf", f"spark.sql.cache.serializer={SERIALIZER}",
            "--conf", "spark.tablecache.onUnavailable=fail",
            # For the checks: tablecache's counters, reported by Spark's CSV sink every second.
            "--conf", "spark.plugins=dev.tablecache.spark.TableCachePlugin",
            "--conf", f"{sink}class=org.apache.spark.metrics.sink.CsvSink",
            "--conf", f"{sink}period=1",
            "--conf", f"{sink}unit=seconds",
            "--conf", f"{sink}directory={metrics_dir}",
            "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf", f"spark.connect.grpc.binding.port={port}",
            # A taken port is an error, not another port this script does not know of.
            "--conf", "spark.connect.grpc.port.maxRetries=0",
            "--conf", "spark.ui.enabled=false",
            "--conf", "spark.log.level=WARN",
            # A short-lived JVM: JIT with C1 only, as the other suites.
            "--driver-java-options", "-XX:TieredStopAtLevel=1",
        ] + packages + extra_args
        env = dict(os.environ, SPARK_HOME=spark_home, SPARK_CONNECT_MODE="0")
        self.log_path = log_path
        self.port = port
        print("e2e-connect: server:", " ".join(command), flush=True)
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True)

    def wait_ready(self):
        """Waits until the server accepts connections on its port; False if it exited first or
        START_TIMEOUT passed."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            if accepts(self.port):
                return True
            time.sleep(0.25)
        return False

    def stop(self):
        """SIGTERM to the server's process group (spark-submit and its JVM), SIGKILL if it is
        still there after 20 s (within run_e2e.sh's --kill-after)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                print("e2e-connect: server ignored SIGTERM for 20 s, killing it", flush=True)
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            except ProcessLookupError:
                pass
        print(f"e2e-connect: server stopped, exit code {self.process.returncode}", flush=True)

    def log_tail(self, lines=60):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])


class CsvMetrics:
    """tablecache's counters as Spark's CsvSink reports them: one file per metric, named
    [<app id>.<executor id>.]plugin.dev.tablecache.spark.TableCachePlugin.<name>.csv, a line
    "<unix seconds>,<count>" per report."""

    def __init__(self, directory):
        self.directory = directory

    def _last(self, name):
        """{file: (timestamp, value)} of the last whole line of each file of metric name."""
        found = {}
        for path in glob.glob(os.path.join(glob.escape(self.directory), f"*{PLUGIN}{name}.csv")):
            with open(path) as f:
                lines = f.read().splitlines()
            for line in reversed(lines):
                fields = line.split(",")
                if len(fields) == 2 and fields[0].isdigit() and fields[1].lstrip("-").isdigit():
                    found[path] = (int(fields[0]), int(fields[1]))
                    break
        return found

    def settled(self):
        """{name: value} from reports made after this call: waits for a report whose timestamp
        (whole seconds) is past the current second, so it counts all work finished before the
        call. None if the sink reports nothing within REPORT_TIMEOUT."""
        after = int(time.time())
        deadline = time.monotonic() + REPORT_TIMEOUT
        while time.monotonic() < deadline:
            values = {}
            for name in METRICS:
                last = self._last(name)
                if not last or any(ts <= after for ts, _ in last.values()):
                    break
                values[name] = sum(value for _, value in last.values())
            else:
                return values
            time.sleep(0.2)
        return None


def partition_sizes(spark, sql):
    """The row count of each non-empty partition of the uncached query."""
    got = spark.sql(f"SELECT spark_partition_id() AS p, count(*) AS n FROM ({sql}) GROUP BY p")
    return sorted(r["n"] for r in got.collect())


def run(spark, metrics, results):
    check = results.check
    check("server's serializer", spark.conf.get("spark.sql.cache.serializer") == SERIALIZER,
          spark.conf.get("spark.sql.cache.serializer"))
    check("server runs the client's Spark", spark.version == pyspark.__version__,
          f"server {spark.version}, client {pyspark.__version__}")
    # Runtime confs of this client's session on the server; the cache writer reads batchRows
    # from the session that builds the cache.
    spark.conf.set("spark.tablecache.batchRows", str(BATCH_ROWS))
    spark.conf.set("spark.sql.shuffle.partitions", "4")

    state = metrics.settled()
    if not check("tablecache's counters in the CSV sink", state is not None,
                 f"no report in {metrics.directory} within {REPORT_TIMEOUT:.0f} s: "
                 f"{sorted(os.listdir(metrics.directory))[:10]}"):
        return

    table = spark.sql(TABLE_SQL)
    table.createOrReplaceTempView("t")
    expected = {q: rows(spark.sql(q)) for q in QUERIES}
    check("NaN rows exist uncached", len(expected[NAN_QUERY]) == 10, len(expected[NAN_QUERY]))
    total = table.count()
    frames = sum(math.ceil(n / BATCH_ROWS) for n in partition_sizes(spark, "SELECT * FROM t"))
    ctas_frames = sum(math.ceil(n / BATCH_ROWS) for n in partition_sizes(spark, CTAS))
    ctas_expected = {q: rows(spark.sql(q.replace("FROM c", f"FROM ({CTAS})")))
                     for q in CTAS_QUERIES}
    print(f"e2e-connect: {total} rows, {frames} frames per cache of t, {ctas_frames} of c",
          flush=True)

    def settle(name, want_frames):
        """The counters moved since the last settle: exactly want_frames V4 frames written, none
        of another format, and batches decoded by tablecache's reader."""
        nonlocal state
        now = metrics.settled()
        if not check(f"{name}: the CSV sink reported", now is not None):
            return
        moved = {k: now[k] - state[k] for k in now}
        state = now
        print(f"e2e-connect: {name}: counters moved {moved}", flush=True)
        check(f"{name}: tablecache wrote {want_frames} V4 frames",
              moved["framesWritten.v4"] == want_frames
              and all(moved[f"framesWritten.{f}"] == 0 for f in FORMATS if f != "v4"),
              f"counters moved: {moved}")
        check(f"{name}: tablecache decoded the cached batches", moved["read.batchesDecoded"] > 0,
              f"counters moved: {moved}")

    def query_all(name, queries, want):
        # "InMemoryTableScan", or "Scan In-memory table t" for a scan of a whole cached table.
        plan = spark.sql(f"EXPLAIN {queries[-1]}").collect()[0][0]
        check(f"{name}: queries read the cache", "InMemoryRelation" in plan, plan)
        for q in queries:
            got = rows(spark.sql(q))
            check(f"{name}: {q}", got == want[q] and len(got) > 0,
                  f"expected {len(want[q])} rows, got {len(got)}")

    ways = [
        ("df.cache()", None),
        ("df.persist(MEMORY_ONLY)", StorageLevel.MEMORY_ONLY),
        ("df.persist(MEMORY_AND_DISK)", StorageLevel.MEMORY_AND_DISK),
        ("df.persist(DISK_ONLY)", StorageLevel.DISK_ONLY),
    ]
    for name, level in ways:
        try:
            if level is None:
                table.cache()
            else:
                table.persist(level)
            check(f"{name}: count", table.count() == total)
            got = table.storageLevel
            if level is None:  # Spark's default for Dataset.cache(): memory and disk
                ok = got.useMemory and got.useDisk and not got.useOffHeap
            else:
                ok = (got.useMemory, got.useDisk, got.useOffHeap, got.replication) == \
                    (level.useMemory, level.useDisk, level.useOffHeap, level.replication)
            check(f"{name}: storage level", ok, f"{got!r}")
            query_all(name, QUERIES, expected)
            settle(name, frames)
        except Exception:  # a crash in one way must not hide the others
            traceback.print_exc()
            check(f"{name}: no error", False)
        finally:
            table.unpersist(blocking=True)
            check(f"{name}: unpersisted", not spark.catalog.isCached("t"))

    # CACHE TABLE is eager: the cache is built before the statement returns.
    for view, cache_sql, queries, want, want_frames in [
            ("t", "CACHE TABLE t", QUERIES, expected, frames),
            ("c", f"CACHE TABLE c AS {CTAS}", CTAS_QUERIES, ctas_expected, ctas_frames)]:
        try:
            spark.sql(cache_sql)
            check(f"{cache_sql}: cached", spark.catalog.isCached(view))
            query_all(cache_sql, queries, want)
            settle(cache_sql, want_frames)
        except Exception:
            traceback.print_exc()
            check(f"{cache_sql}: no error", False)
        finally:
            try:
                spark.sql(f"UNCACHE TABLE IF EXISTS {view}")
                # No view c when CACHE TABLE c failed: nothing is cached then either.
                uncached = not (spark.catalog.tableExists(view) and spark.catalog.isCached(view))
            except Exception:
                traceback.print_exc()
                uncached = False
            check(f"{cache_sql}: uncached", uncached)


def main():
    jar, extra_args = sys.argv[1], sys.argv[2:]
    # run_e2e.sh's timeout sends SIGTERM: stop the server on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results = Results()
    work = tempfile.mkdtemp(prefix="tablecache-e2e-connect-")
    metrics_dir = os.path.join(work, "metrics")
    os.mkdir(metrics_dir)
    port = free_port()
    server = None
    spark = None
    began = time.monotonic()
    try:
        server = ConnectServer(jar, port, metrics_dir, os.path.join(work, "server.log"),
                               extra_args)
        print(f"e2e-connect: Spark Connect from {server.source}", flush=True)
        if results.check("server accepts connections", server.wait_ready(),
                         f"port {port}, exit code {server.process.poll()}"):
            print(f"e2e-connect: server up after {time.monotonic() - began:.1f} s", flush=True)
            spark = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            # The one this script started, not another server that took the port.
            own = spark.conf.get("spark.metrics.conf.*.sink.csv.directory", "")
            if results.check("client talks to this test's server", own == metrics_dir, own):
                run(spark, CsvMetrics(metrics_dir), results)
    except Exception:
        traceback.print_exc()
        results.check("no error", False)
    finally:
        if spark is not None:
            try:
                spark.stop()
            except Exception:
                traceback.print_exc()
        if server is not None:
            server.stop()
            if results.failed:
                print("e2e-connect: the server's log ends:\n" + server.log_tail(), flush=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"e2e-connect: {time.monotonic() - began:.1f} s", flush=True)
    print(results.summary("e2e-connect"), flush=True)
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
