"""One benchmark session: a fresh Spark application that caches one benchmark table
(scripts/bench/tables.py) with one serializer mode, times the phases and their floors, and
prints one JSON result line (prefixed "RESULT ").

In order: the build floor (the same DataFrame computed without a cache, into the noop sink),
the read floors (every query on an 8-row cache of the same schema and serializer), then the
cache and the queries on it. Every floor and query runs several times; the report drops the
first run of each (JIT warm-up), so every mode gets the same warm-up.

Run by scripts/bench/run.py with the Python of a PySpark virtualenv; never run two at once (one
cache alive at a time is part of the method).
"""

import argparse
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time

from pyspark.sql import SparkSession

from modes import MODES
from tables import TABLES, TINY_ROWS, queries

SERIALIZER_KEY = "spark.sql.cache.serializer"


def digest(rows):
    """A short digest of a collected result, to check every mode returns the same answer."""
    text = "\n".join(repr(tuple(r)) for r in rows)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def java_options(mode, args):
    options = "-XX:+UseG1GC"
    if args.jfr:
        # A Java Flight Recorder profile of the whole session, for finding where the time goes.
        path = os.path.join(os.path.abspath(args.jfr), f"{args.table}-{mode}-{args.iteration}.jfr")
        options += f" -XX:StartFlightRecording=filename={path},settings=profile"
    return options


def build_session(mode, args, event_log_dir):
    builder = (
        SparkSession.builder.master(f"local[{args.cores}]")
        .appName(f"tablecache-bench-{args.table}-{mode}")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # Task metrics per phase (see task_cpu_seconds), read back after the session.
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", event_log_dir)
        .config("spark.eventLog.compress", "false")
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.driver.extraJavaOptions", java_options(mode, args))
    )
    conf = MODES[mode]["conf"]
    if conf.get(SERIALIZER_KEY, "").startswith("dev.tablecache"):
        builder = builder.config("spark.jars", args.jar)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def cached_size(spark):
    """(memory bytes, disk bytes, cached partitions) of the one cached RDD, from storage info."""
    mem = disk = parts = 0
    for info in spark.sparkContext._jsc.sc().getRDDStorageInfo():
        mem += info.memSize()
        disk += info.diskSize()
        parts += info.numCachedPartitions()
    return mem, disk, parts


def timed(action):
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def task_cpu_seconds(event_log_dir):
    """{job group: executor CPU seconds summed over its tasks}, from the session's event log.

    Wall time of a read phase includes Spark's fixed per-query cost (planning, scheduling 16+
    tasks, the shuffle, collecting), which is the same for every serializer and dominates short
    queries; the executors' CPU time is the work the cache read itself costs.
    """
    group_of_stage, cpu = {}, {}
    # Spark 4 writes a directory of rolling event files per application.
    for path in sorted(glob.glob(os.path.join(event_log_dir, "**", "*"), recursive=True)):
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            for line in f:
                event = json.loads(line)
                kind = event.get("Event")
                if kind == "SparkListenerJobStart":
                    group = (event.get("Properties") or {}).get("spark.jobGroup.id")
                    for stage in event.get("Stage IDs", []):
                        group_of_stage[stage] = group
                elif kind == "SparkListenerTaskEnd":
                    group = group_of_stage.get(event.get("Stage ID"))
                    metrics = event.get("Task Metrics") or {}
                    if group is not None:
                        cpu[group] = cpu.get(group, 0.0) + metrics.get("Executor CPU Time", 0) / 1e9
    return cpu


def in_group(spark, group, action):
    """Runs and times an action with its jobs tagged `group` (for task_cpu_seconds)."""
    spark.sparkContext.setJobGroup(group, group)
    try:
        return timed(action)
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)


def run(args):
    event_log_dir = tempfile.mkdtemp(prefix="tablecache-bench-events-")
    try:
        return run_session(args, event_log_dir)
    finally:
        shutil.rmtree(event_log_dir, ignore_errors=True)


def cache_table(spark, view, df, group, rows, partitions):
    """Caches `df` as temp view `view` the way users do and times building it (tagged `group`).

    cache() is what users call: Scala's MEMORY_AND_DISK, deserialized. (PySpark's
    StorageLevel.MEMORY_AND_DISK is the serialized level, which adds Spark's block compression.)
    """
    cached = df.cache()
    cached.createOrReplaceTempView(view)
    seconds, count = in_group(spark, group, cached.count)
    mem, disk, parts = cached_size(spark)
    if count != rows or parts != partitions:
        raise SystemExit(f"cache {view} incomplete: {count}/{rows} rows, "
                         f"{parts}/{partitions} partitions cached")
    return cached, seconds, mem, disk


def run_query(spark, group, sql):
    """(seconds, digest of the collected rows) of one run of a query."""
    seconds, rows = in_group(spark, group, lambda: spark.sql(sql).collect())
    return seconds, digest(rows)


def run_session(args, event_log_dir):
    spark = build_session(args.mode, args, event_log_dir)
    version = spark.version
    serializer = spark.conf.get(SERIALIZER_KEY)
    columns = TABLES[args.table]["columns"]
    source = spark.range(0, args.rows, 1, args.partitions).selectExpr(*columns)
    tiny_source = spark.range(0, TINY_ROWS, 1, args.partitions).selectExpr(*columns)
    phase_queries = queries(args.table, args.rows)
    floors, phases, digests, floor_digests = {}, {}, {}, {}

    # Floors first, in every mode alike; they also warm up the JIT for what follows.
    # 1. The build floor: the same DataFrame computed without a cache, into Spark's noop sink.
    floors["build"] = []
    for rep in range(args.build_floor_reps):
        seconds, _ = in_group(spark, f"floor:build#{rep}",
                              lambda: source.write.format("noop").mode("overwrite").save())
        floors["build"].append(seconds)
    log(args, "floor build (uncached compute) " + " ".join(f"{s:.3f}s" for s in floors["build"]))

    # 2. The read floors: every query on an 8-row cache of the same schema and serializer, with
    #    the same partitions (so the same number of tasks).
    tiny, _, _, _ = cache_table(spark, "tiny", tiny_source, "floor:tinybuild#0", TINY_ROWS,
                                args.partitions)
    for name, _, sql in phase_queries:
        floors[name] = []
        for rep in range(args.reps):
            seconds, floor_digests[name] = run_query(spark, f"floor:{name}#{rep}", sql.format(t="tiny"))
            floors[name].append(seconds)
        log(args, f"floor {name} " + " ".join(f"{s:.3f}s" for s in floors[name]))
    tiny.unpersist(blocking=True)

    # 3. The cache itself and the queries on it.
    cached, build_s, mem, disk = cache_table(spark, "t", source, "build#0", args.rows, args.partitions)
    log(args, f"build {build_s:.2f}s, {mem / 2**20:.1f} MiB in memory, {disk / 2**20:.1f} MiB on disk")
    phases["build"] = [build_s]
    for name, _, sql in phase_queries:
        phases[name] = []
        for rep in range(args.reps):
            seconds, digests[name] = run_query(spark, f"{name}#{rep}", sql.format(t="t"))
            phases[name].append(seconds)
        log(args, f"{name} " + " ".join(f"{s:.3f}s" for s in phases[name]))
    # The cached plan must really read the cache (guards against a silently uncached run).
    # (Executed first: under adaptive execution only the final plan shows the read path.)
    probe = spark.sql(phase_queries[0][2].format(t="t"))
    probe.collect()
    plan = probe._jdf.queryExecution().executedPlan().toString()
    if "InMemoryTableScan" not in plan:
        raise SystemExit("the benchmark query does not read the cache:\n" + plan)
    # Columnar when a ColumnarToRow transition reads the cache scan (our extension, or a
    # serializer Spark itself reads columnar), else Spark's row path.
    read_path = "columnar" if "ColumnarToRow" in plan else "row"
    cached.unpersist(blocking=True)
    spark.stop()

    cpu = task_cpu_seconds(event_log_dir)

    def cpu_of(prefix, runs):
        return {name: [cpu.get(f"{prefix}{name}#{rep}", 0.0) for rep in range(len(times))]
                for name, times in runs.items()}

    return {
        "table": args.table,
        "mode": args.mode,
        "iteration": args.iteration,
        "rows": args.rows,
        "partitions": args.partitions,
        "spark": version,
        "serializer": serializer,
        # 1-minute load average when the session ends: a busy machine shows here first.
        "loadavg_end": os.getloadavg()[0],
        "read_path": read_path,
        "footprint_bytes": mem + disk,
        "disk_bytes": disk,
        # Seconds of every run of every phase; "floors" has the same keys: for "build" the
        # uncached compute of the same DataFrame, for a query the same query on the tiny cache.
        "phases": phases,
        "floors": floors,
        # Executor CPU seconds of each run (same shapes as "phases" and "floors").
        "task_cpu": cpu_of("", phases),
        "floor_cpu": cpu_of("floor:", floors),
        "digests": digests,
        "floor_digests": floor_digests,
    }


def log(args, message):
    print(f"  [{args.table} {args.mode} #{args.iteration}] {message}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", required=True, choices=sorted(MODES))
    parser.add_argument("--table", default="standard", choices=sorted(TABLES))
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--reps", type=int, default=3, help="runs of each query (first = warm-up)")
    parser.add_argument("--build-floor-reps", type=int, default=2,
                        help="runs of the uncached compute (first = warm-up)")
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--jar", default=os.environ.get("TABLECACHE_JAR", ""))
    parser.add_argument("--jfr", help="directory for a JFR profile of the session")
    args = parser.parse_args()
    print("RESULT " + json.dumps(run(args)), flush=True)


if __name__ == "__main__":
    main()
