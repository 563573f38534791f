"""One benchmark session: a fresh Spark application that caches one benchmark table
(scripts/bench/tables.py) with one serializer mode, times the phases and their floors, and
prints one JSON result line (prefixed "RESULT ").

In order: the build floor (the same DataFrame computed without a cache, into the noop sink), a
discarded warm-up build (a cache of a quarter of the rows, so the one timed build meets a warm
JIT), the read floors (every query on an 8-row cache of the same schema and serializer), then
the cache and the queries on it.

The cached DataFrame is the table's Spark SQL over `spark.range` (`--source generated`), or a
read of the same rows written once to Parquet (`--source parquet --parquet DIR`, written by
`--write-parquet DIR`; under Comet a CometNativeScan, so the cache's input is Comet's batches).
The 8-row cache of the read floors comes from the same source (DIR-tiny for Parquet: the 8 rows
as generated, one file per non-empty partition, and empty files up to the partition count), so
its plans read the cache the same way.

`--write-parquet-zstd DIR` only writes the generated rows to Parquet with zstd, for the report's
"Parquet + zstd" reference footprint (run.py sums the files' sizes and removes them).

Every floor and query runs several times; the report drops the first --warmup-reps runs of
each query and read floor (JIT warm-up; shown apart as the cold runs) and the first run of the
build floor, so every mode gets the same warm-up. With --plans-dir, the executed plans of the last run of
every query go to a text file there.

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

from modes import MODES, is_comet
from plans import read_path as read_path_of, spark_operators
from tables import TABLES, TINY_ROWS, queries

SERIALIZER_KEY = "spark.sql.cache.serializer"
ONE_TIB = 1 << 40


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
    jars = []
    if is_comet(mode):
        if not args.comet_jar:
            raise SystemExit(f"mode {mode} runs under Comet: pass --comet-jar")
        jars.append(args.comet_jar)
    if conf.get(SERIALIZER_KEY, "").startswith("dev.tablecache"):
        jars.append(args.jar)
    if jars:
        builder = builder.config("spark.jars", ",".join(jars))
    if args.source == "parquet":
        # One partition per Parquet file, i.e. per partition the table was written with (no
        # packing of small files, no splitting of large ones), so the cache has --partitions
        # partitions in every mode as with the generated source.
        builder = (builder.config("spark.sql.files.maxPartitionBytes", str(ONE_TIB))
                   .config("spark.sql.files.openCostInBytes", str(ONE_TIB)))
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
    """(seconds, digest of the collected rows, executed plan) of one run of a query. (The plan
    is read after the run: under adaptive execution only the final plan shows the read path.)"""
    df = spark.sql(sql)
    seconds, rows = in_group(spark, group, df.collect)
    return seconds, digest(rows), executed_plan(df)


def executed_plan(df):
    return df._jdf.queryExecution().executedPlan().toString()


def write_plans(args, plans, floor_plans):
    """The executed plans of the last run of every query (and the cached DataFrame's) as text."""
    os.makedirs(args.plans_dir, exist_ok=True)
    path = os.path.join(args.plans_dir, f"{args.table}-{args.mode}-{args.iteration}.txt")
    with open(path, "w") as f:
        for name, plan in list(plans.items()) + [(f"{n} on the 8-row cache", p)
                                                  for n, p in floor_plans.items()]:
            f.write(f"== {name} ==\n{plan}\n\n")


def plain_session(args, purpose):
    """A plain local Spark session (no cache serializer, no Comet, no UI) for writing a table."""
    return (SparkSession.builder.master(f"local[{args.cores}]")
            .appName(f"tablecache-bench-{purpose}-{args.table}")
            .config("spark.driver.memory", args.driver_memory)
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate())


def write_parquet(args):
    """Writes the table's rows (the same DataFrame as --source generated) to Parquet at
    args.write_parquet and its 8 rows to args.write_parquet + "-tiny", one file per partition,
    with plain Spark (no Comet, no cache). Spark writes no file for an empty partition, so the
    8-row copy gets empty files (the schema, no rows) up to --partitions."""
    spark = plain_session(args, "parquet")
    tiny_path = tiny_parquet(args.write_parquet)
    shutil.rmtree(tiny_path, ignore_errors=True)
    tiny = generated(spark, args.table, TINY_ROWS, args.partitions)
    tiny.write.parquet(tiny_path)
    files = glob.glob(os.path.join(tiny_path, "part-*.parquet"))
    if len(files) < args.partitions:
        empty_dir = tempfile.mkdtemp(prefix="tablecache-bench-empty-")
        try:
            spark.createDataFrame([], tiny.schema).coalesce(1).write.mode("overwrite").parquet(empty_dir)
            empty = glob.glob(os.path.join(empty_dir, "part-*.parquet"))[0]
            for k in range(args.partitions - len(files)):
                shutil.copyfile(empty, os.path.join(tiny_path, f"part-{99999 - k:05d}-empty.parquet"))
        finally:
            shutil.rmtree(empty_dir, ignore_errors=True)
    # The table last: its _SUCCESS marks both as complete.
    df = generated(spark, args.table, args.rows, args.partitions)
    df.write.mode("overwrite").parquet(args.write_parquet)
    spark.stop()


def write_parquet_zstd(args):
    """The Parquet + zstd reference footprint: the table's rows (the same DataFrame as --source
    generated, the same partitions) written by Spark's own Parquet writer with compression=zstd
    (Spark's defaults otherwise: zstd level 3, 128 MiB row groups, dictionary encoding) to
    args.write_parquet_zstd, one file per partition, with plain Spark (no cache, no Comet).
    Prints one RESULT line: the seconds the write took."""
    spark = plain_session(args, "parquet-zstd")
    df = generated(spark, args.table, args.rows, args.partitions)
    seconds, _ = timed(lambda: df.write.mode("overwrite").option("compression", "zstd")
                       .parquet(args.write_parquet_zstd))
    version = spark.version
    spark.stop()
    print("RESULT " + json.dumps({"seconds": seconds, "spark": version}), flush=True)


def tiny_parquet(path):
    return path.rstrip("/") + "-tiny"


def generated(spark, table, rows, partitions):
    return spark.range(0, rows, 1, partitions).selectExpr(*TABLES[table]["columns"])


def run_session(args, event_log_dir):
    spark = build_session(args.mode, args, event_log_dir)
    version = spark.version
    comet = is_comet(args.mode)
    if args.source == "parquet":
        if not args.parquet:
            raise SystemExit("--source parquet needs --parquet DIR")
        source = spark.read.parquet(args.parquet)
        tiny_source = spark.read.parquet(tiny_parquet(args.parquet))
    else:
        source = generated(spark, args.table, args.rows, args.partitions)
        tiny_source = generated(spark, args.table, TINY_ROWS, args.partitions)
    phase_queries = queries(args.table, args.rows)
    floors, phases, digests, floor_digests, plans, floor_plans = {}, {}, {}, {}, {}, {}

    # Floors first, in every mode alike; they also warm up the JIT for what follows.
    # 1. The build floor: the same DataFrame computed without a cache, into Spark's noop sink.
    floors["build"] = []
    for rep in range(args.build_floor_reps):
        seconds, _ = in_group(spark, f"floor:build#{rep}",
                              lambda: source.write.format("noop").mode("overwrite").save())
        floors["build"].append(seconds)
    log(args, "floor build (uncached compute) " + " ".join(f"{s:.3f}s" for s in floors["build"]))

    # 2. A warm-up build, discarded like every first run: a cache of a quarter of the table (the
    #    same plan and serializer), so that the timed build, which runs once, meets a JIT as warm
    #    as the build floor's runs do, in every mode alike.
    warmup_source = (source.sample(fraction=0.25, seed=7) if args.source == "parquet"
                     else generated(spark, args.table, max(args.rows // 4, TINY_ROWS),
                                    args.partitions))
    warmup = warmup_source.cache()
    warmup_s, _ = in_group(spark, "warmup:build#0", warmup.count)
    warmup.unpersist(blocking=True)
    log(args, f"warm-up build (a quarter of the rows, discarded) {warmup_s:.2f}s")

    # 3. The read floors: every query on an 8-row cache of the same schema and serializer, with
    #    the same partitions (so the same number of tasks).
    tiny, _, _, _ = cache_table(spark, "tiny", tiny_source, "floor:tinybuild#0", TINY_ROWS,
                                args.partitions)
    for name, _, sql in phase_queries:
        floors[name] = []
        for rep in range(args.reps):
            seconds, floor_digests[name], floor_plans[name] = run_query(
                spark, f"floor:{name}#{rep}", sql.format(t="tiny"))
            floors[name].append(seconds)
        log(args, f"floor {name} " + " ".join(f"{s:.3f}s" for s in floors[name]))
    tiny.unpersist(blocking=True)
    # The serializer as the session has it now (Comet sets its own when its cache is enabled).
    serializer = spark.conf.get(SERIALIZER_KEY)

    # 4. The cache itself and the queries on it.
    cached, build_s, mem, disk = cache_table(spark, "t", source, "build#0", args.rows, args.partitions)
    log(args, f"build {build_s:.2f}s, {mem / 2**20:.1f} MiB in memory, {disk / 2**20:.1f} MiB on disk")
    phases["build"] = [build_s]
    plans["build"] = executed_plan(cached)
    for name, _, sql in phase_queries:
        phases[name] = []
        for rep in range(args.reps):
            seconds, digests[name], plans[name] = run_query(spark, f"{name}#{rep}", sql.format(t="t"))
            phases[name].append(seconds)
        log(args, f"{name} " + " ".join(f"{s:.3f}s" for s in phases[name]))
    # Every query's plan must really read the cache (guards against a silently uncached run).
    for name, plan in list(plans.items()) + [(f"{n} (8-row cache)", p) for n, p in floor_plans.items()]:
        if "InMemoryTableScan" not in plan:
            raise SystemExit(f"the benchmark query {name} does not read the cache:\n" + plan)
    first = phase_queries[0][0]
    read_path = read_path_of(plans[first], comet)
    floor_read_path = read_path_of(floor_plans[first], comet)
    if floor_read_path != read_path:
        log(args, f"warning: the cache is read {read_path}, the 8-row cache {floor_read_path}")
    cached.unpersist(blocking=True)
    spark.stop()
    if args.plans_dir:
        write_plans(args, plans, floor_plans)

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
        # Leading runs of each query and read floor that are JIT warm-up.
        "warmup_reps": args.warmup_reps,
        "read_path": read_path,
        "floor_read_path": floor_read_path,
        "source": args.source,
        "engine": "comet" if comet else "spark",
        "footprint_bytes": mem + disk,
        "disk_bytes": disk,
        # Seconds of every run of every phase; "floors" has the same keys: for "build" the
        # uncached compute of the same DataFrame, for a query the same query on the tiny cache.
        "phases": phases,
        "floors": floors,
        # The discarded warm-up build's seconds (not reported).
        "warmup": {"build": [warmup_s]},
        # Executor CPU seconds of each run (same shapes as "phases" and "floors").
        "task_cpu": cpu_of("", phases),
        "floor_cpu": cpu_of("floor:", floors),
        "digests": digests,
        "floor_digests": floor_digests,
        # Under Comet, per phase the Spark operators left in the executed plan of its last run
        # (Comet's fallbacks; "build": in the plan the cache was built from).
        "spark_operators": {name: spark_operators(plan, cached=name == "build")
                            for name, plan in plans.items()} if comet else {},
    }


def log(args, message):
    print(f"  [{args.table} {args.mode} #{args.iteration}] {message}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=sorted(MODES))
    parser.add_argument("--table", default="standard", choices=sorted(TABLES))
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--partitions", type=int, required=True)
    parser.add_argument("--reps", type=int, default=5, help="runs of each query and read floor")
    parser.add_argument("--warmup-reps", type=int, default=2,
                        help="how many of the leading --reps are JIT warm-up (recorded in the result)")
    parser.add_argument("--build-floor-reps", type=int, default=2,
                        help="runs of the uncached compute (first = warm-up)")
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--jar", default=os.environ.get("TABLECACHE_JAR", ""))
    parser.add_argument("--jfr", help="directory for a JFR profile of the session")
    parser.add_argument("--source", choices=["generated", "parquet"], default="generated",
                        help="cache the generated DataFrame or a read of --parquet")
    parser.add_argument("--parquet", help="the table's Parquet directory (--source parquet)")
    parser.add_argument("--comet-jar", default="", help="the Comet jar (Comet modes)")
    parser.add_argument("--plans-dir", help="write the session's executed plans into this directory")
    parser.add_argument("--write-parquet", metavar="DIR",
                        help="only write the table to Parquet at DIR and exit")
    parser.add_argument("--write-parquet-zstd", metavar="DIR",
                        help="only write the table to Parquet with zstd at DIR (the reference "
                             "footprint) and exit")
    args = parser.parse_args()
    if args.write_parquet:
        write_parquet(args)
        return
    if args.write_parquet_zstd:
        write_parquet_zstd(args)
        return
    if not args.mode:
        parser.error("--mode is required")
    print("RESULT " + json.dumps(run(args)), flush=True)


if __name__ == "__main__":
    main()
