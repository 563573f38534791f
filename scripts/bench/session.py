"""One benchmark session: a fresh Spark application that caches the benchmark table with one
serializer mode, times the phases and prints one JSON result line (prefixed "RESULT ").

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

# 4 sequential/affine longs, 4 low-cardinality longs, 4 doubles, 4 low-cardinality strings.
COLUMNS = [
    "id AS a0",
    "id * 3 + 7 AS a1",
    "1000000000 - id * 2 AS a2",
    "id + 1099511627776 AS a3",
    "id % 16 AS k0",
    "id % 100 AS k1",
    "(id * 7) % 1000 AS k2",
    "id % 5 AS k3",
    "id * 0.25D AS d0",
    "(id % 1000) / 10.0D AS d1",
    "rand(42) AS d2",
    "id / 3.0D AS d3",
    "concat('cat_', CAST(id % 10 AS STRING)) AS s0",
    "concat('region-', CAST(id % 50 AS STRING)) AS s1",
    "element_at(array('alpha', 'beta', 'gamma', 'delta', 'epsilon'), CAST(id % 5 AS INT) + 1) AS s2",
    "concat('user_', lpad(CAST(id % 1000 AS STRING), 4, '0')) AS s3",
]

SERIALIZER_KEY = "spark.sql.cache.serializer"


def queries(rows):
    """The read phases: (name, SQL or None for the all-columns noop write)."""
    point = rows // 2 + 7
    return [
        ("read_1_of_16", "SELECT sum(a1) FROM t"),
        (
            "read_4_of_16_groupby",
            "SELECT k0, count(*), sum(a1), round(avg(d0), 6), max(s0) FROM t GROUP BY k0 ORDER BY k0",
        ),
        ("filter_point_2_of_16", f"SELECT a2, s1 FROM t WHERE a0 = {point}"),
        ("read_all_16", None),
    ]


def digest(rows):
    """A short digest of a collected result, to check every mode returns the same answer."""
    text = "\n".join(repr(tuple(r)) for r in rows)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def java_options(mode, args):
    options = "-XX:+UseG1GC"
    if args.jfr:
        # A Java Flight Recorder profile of the whole session, for finding where the time goes.
        path = os.path.join(os.path.abspath(args.jfr), f"{mode}-{args.iteration}.jfr")
        options += f" -XX:StartFlightRecording=filename={path},settings=profile"
    return options


def build_session(mode, args, event_log_dir):
    builder = (
        SparkSession.builder.master(f"local[{args.cores}]")
        .appName(f"tablecache-bench-{mode}")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
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


def run_session(args, event_log_dir):
    spark = build_session(args.mode, args, event_log_dir)
    version = spark.version
    serializer = spark.conf.get(SERIALIZER_KEY)
    table = spark.range(0, args.rows, 1, args.partitions).selectExpr(*COLUMNS)
    table.createOrReplaceTempView("src")

    generate_s = None
    if args.generate:
        # The same table without a cache: generation cost, shared by every mode's build time.
        generate_s, _ = timed(lambda: table.write.format("noop").mode("overwrite").save())
        log(args, f"generate {generate_s:.2f}s")

    # cache() is what users call: Scala's MEMORY_AND_DISK, deserialized. (PySpark's
    # StorageLevel.MEMORY_AND_DISK is the serialized level, which adds Spark's block compression.)
    cached = spark.table("src").cache()
    cached.createOrReplaceTempView("t")
    build_s, count = in_group(spark, "build#0", cached.count)
    mem, disk, parts = cached_size(spark)
    log(args, f"build {build_s:.2f}s, {mem / 2**20:.1f} MiB in memory, {disk / 2**20:.1f} MiB on disk")
    if count != args.rows or parts != args.partitions:
        raise SystemExit(f"cache incomplete: {count} rows, {parts}/{args.partitions} partitions cached")

    phases = {"build": [build_s]}
    digests = {}
    for name, sql in queries(args.rows):
        times = []
        for rep in range(args.reps):
            group = f"{name}#{rep}"
            if sql is None:
                seconds, _ = in_group(
                    spark, group, lambda: spark.table("t").write.format("noop").mode("overwrite").save())
            else:
                seconds, rows = in_group(spark, group, lambda: spark.sql(sql).collect())
                digests[name] = digest(rows)
            times.append(seconds)
        phases[name] = times
        log(args, f"{name} " + " ".join(f"{s:.3f}s" for s in times))
    # The cached plan must really read the cache (guards against a silently uncached run).
    plan = spark.sql("SELECT sum(a1) FROM t")._jdf.queryExecution().executedPlan().toString()
    if "InMemoryTableScan" not in plan:
        raise SystemExit("the benchmark query does not read the cache:\n" + plan)
    cached.unpersist(blocking=True)
    spark.stop()
    cpu = task_cpu_seconds(event_log_dir)
    task_cpu = {name: [cpu.get(f"{name}#{rep}", 0.0) for rep in range(len(times))]
                for name, times in phases.items()}
    return {
        "mode": args.mode,
        "iteration": args.iteration,
        "rows": args.rows,
        "partitions": args.partitions,
        "spark": version,
        "serializer": serializer,
        "generate_s": generate_s,
        # 1-minute load average when the session ends: a busy machine shows here first.
        "loadavg_end": os.getloadavg()[0],
        "footprint_bytes": mem + disk,
        "disk_bytes": disk,
        "phases": phases,
        # Executor CPU seconds of each run of each phase (same shape as "phases").
        "task_cpu": task_cpu,
        "digests": digests,
    }


def log(args, message):
    print(f"  [{args.mode} #{args.iteration}] {message}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", required=True, choices=sorted(MODES))
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--jar", default=os.environ.get("TABLECACHE_JAR", ""))
    parser.add_argument("--jfr", help="directory for a JFR profile of the session")
    parser.add_argument("--generate", action="store_true", help="also time generating the rows")
    args = parser.parse_args()
    print("RESULT " + json.dumps(run(args)), flush=True)


if __name__ == "__main__":
    main()
