"""Side-by-side benchmark of Spark table-cache serializers on a real local Spark.

Every (iteration, table, mode) runs in its own Spark application (scripts/bench/session.py), so
one cache is alive at a time and no JIT or heap state leaks between modes; the mode order rotates
every iteration so machine drift hits all modes alike. Each session also measures Spark's floors
(scripts/bench/session.py), which the report subtracts. Writes raw.json, summary.md, chart.png and
plans/ into --out. Once per run, before the sessions, each table's rows are also written with
Spark's own Parquet writer and zstd (its own Spark application) for the report's reference
footprint, "Parquet + zstd". Modes under Comet (and all modes with --source parquet) cache a
Parquet read of each table, written once per table, row count and partition count under
--parquet-dir and reused.
Usage: see scripts/bench.sh and scripts/demo.sh.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time

from modes import MODES, is_comet
from tables import TABLES, select_tables
import report

HERE = os.path.dirname(os.path.abspath(__file__))


def pyspark_version(python):
    out = subprocess.run(
        [python, "-c", "import pyspark; print(pyspark.__version__)"],
        check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()


def version_tuple(text):
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


def select_modes(requested, spark_version):
    """The requested modes in display order, without Arrow modes on a Spark that lacks them.

    `requested` is a comma-separated list of mode names and groups: "all" (every mode without a
    group) or a group name ("formats", "ab", "comet"). Comet modes are refused unless Spark is
    4.1.x (the Spark line of the Comet jar)."""
    items = requested.split(",")
    groups = {MODES[m].get("group", "all") for m in MODES}
    names = [m for m in MODES if m in items or MODES[m].get("group", "all") in items]
    unknown = set(items) - set(MODES) - groups
    if unknown:
        raise SystemExit(f"unknown modes: {', '.join(sorted(unknown))}; known: "
                         f"{', '.join(MODES)}; groups: {', '.join(sorted(groups))}")
    if version_tuple(spark_version) < (4, 3):
        skipped = [m for m in names if MODES[m].get("needs_arrow")]
        if skipped:
            print(f"bench: Spark {spark_version} has no ArrowCachedBatchSerializer; skipping "
                  + ", ".join(skipped), file=sys.stderr)
        names = [m for m in names if not MODES[m].get("needs_arrow")]
    comet = [m for m in names if is_comet(m)]
    if comet and version_tuple(spark_version) != (4, 1):
        raise SystemExit(f"bench: {', '.join(comet)} run under Comet, which needs Spark 4.1.x; this "
                         f"is Spark {spark_version} (run with PYSPARK_VERSION=4.1.3)")
    return names


def machine(python, spark_version):
    def first(path, key):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(key):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "unknown"

    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {
        "cpu": first("/proc/cpuinfo", "model name"),
        "cores": os.cpu_count(),
        "memory": first("/proc/meminfo", "MemTotal"),
        "kernel": platform.release(),
        "jdk": java[0] if java else "unknown",
        "spark": spark_version,
        "python": subprocess.run([python, "-V"], capture_output=True, text=True).stdout.strip(),
        "commit": commit or "unknown",
        "loadavg_start": os.getloadavg()[0],
    }


def table_rows(args, table):
    return {"standard": args.rows, "wide": args.wide_rows, "strings": args.strings_rows,
            "timeseries": args.timeseries_rows, "logs": args.logs_rows}[table]


def source_of(args, mode):
    """The cached DataFrame's source for a mode: Comet modes always read Parquet."""
    return "parquet" if is_comet(mode) else args.source


def parquet_path(args, table):
    """Where a table's Parquet copy lives: one per table, row count, partitions and column
    definitions, reused by every mode, iteration and later run."""
    spec = hashlib.sha256("\n".join(TABLES[table]["columns"]).encode()).hexdigest()[:8]
    rows = table_rows(args, table)
    return os.path.join(os.path.abspath(args.parquet_dir),
                        f"{table}-{rows}rows-{args.partitions}parts-{spec}")


def ensure_parquet(args, table):
    """Writes the table (and its 8-row copy for the read floors, PATH-tiny) to Parquet once
    (plain Spark, in its own application); a directory with Spark's _SUCCESS marker is reused."""
    path = parquet_path(args, table)
    if all(os.path.exists(os.path.join(p, "_SUCCESS")) for p in (path, path + "-tiny")):
        print(f"bench: reusing {path}", file=sys.stderr, flush=True)
        return path
    print(f"bench: writing {table} to {path}", file=sys.stderr, flush=True)
    cmd = [
        args.python, os.path.join(HERE, "session.py"), "--write-parquet", path,
        "--table", table, "--rows", str(table_rows(args, table)),
        "--partitions", str(args.partitions), "--cores", str(args.cores),
        "--driver-memory", args.driver_memory,
    ]
    env = dict(os.environ, PYTHONPATH=HERE)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env, timeout=args.timeout)
    if proc.returncode != 0 or not all(os.path.exists(os.path.join(p, "_SUCCESS"))
                                       for p in (path, path + "-tiny")):
        raise SystemExit(f"bench: writing {table} to Parquet failed (exit {proc.returncode})")
    for where in (path, path + "-tiny"):
        files = [f for f in os.listdir(where) if f.endswith(".parquet")]
        if len(files) != args.partitions:
            raise SystemExit(f"bench: {where} has {len(files)} Parquet files, not {args.partitions}")
    return path


def parquet_zstd_footprint(args, table):
    """The table's reference footprint: the same rows (the generated DataFrame, the same
    partitions) written by Spark's own Parquet writer with compression=zstd, in its own Spark
    application, once per run (OUT/parquet-zstd, apart from --parquet-dir's copies, which use
    Spark's default codec). Returns {"bytes": the .parquet files' sizes summed, "files",
    "codec", "seconds", "spark"}; the files are removed once measured."""
    rows = table_rows(args, table)
    path = os.path.join(os.path.abspath(args.out), "parquet-zstd",
                        f"{table}-{rows}rows-{args.partitions}parts")
    shutil.rmtree(path, ignore_errors=True)
    print(f"bench: writing {table} to Parquet + zstd (the reference footprint)", file=sys.stderr,
          flush=True)
    cmd = [
        args.python, os.path.join(HERE, "session.py"), "--write-parquet-zstd", path,
        "--table", table, "--rows", str(rows), "--partitions", str(args.partitions),
        "--cores", str(args.cores), "--driver-memory", args.driver_memory,
    ]
    env = dict(os.environ, PYTHONPATH=HERE)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, timeout=args.timeout)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    if proc.returncode != 0 or not lines or not os.path.exists(os.path.join(path, "_SUCCESS")):
        raise SystemExit(f"bench: writing {table} to Parquet + zstd failed (exit {proc.returncode})")
    result = json.loads(lines[-1][len("RESULT "):])
    files = [os.path.join(path, f) for f in os.listdir(path) if f.endswith(".parquet")]
    if len(files) != args.partitions:
        raise SystemExit(f"bench: {path} has {len(files)} Parquet files, not {args.partitions}")
    footprint = {"bytes": sum(os.path.getsize(f) for f in files), "files": len(files),
                 "codec": "zstd", "rows": rows, "seconds": round(result["seconds"], 2),
                 "spark": result["spark"]}
    shutil.rmtree(path, ignore_errors=True)
    try:
        os.rmdir(os.path.dirname(path))  # OUT/parquet-zstd, once empty
    except OSError:
        pass
    print(f"bench: {table} as Parquet + zstd: {footprint['bytes']:,} bytes in {len(files)} files",
          file=sys.stderr, flush=True)
    return footprint


def run_session(args, table, mode, iteration):
    cmd = [
        args.python, os.path.join(HERE, "session.py"),
        "--table", table, "--mode", mode, "--rows", str(table_rows(args, table)),
        "--partitions", str(args.partitions), "--reps", str(args.reps),
        "--warmup-reps", str(args.warmup_reps),
        "--build-floor-reps", str(args.build_floor_reps), "--iteration", str(iteration),
        "--cores", str(args.cores), "--driver-memory", args.driver_memory, "--jar", args.jar,
        "--source", source_of(args, mode), "--plans-dir", os.path.join(args.out, "plans"),
    ]
    if source_of(args, mode) == "parquet":
        cmd += ["--parquet", parquet_path(args, table)]
    if is_comet(mode):
        cmd += ["--comet-jar", args.comet_jar]
    if args.jfr:
        os.makedirs(args.jfr, exist_ok=True)
        cmd += ["--jfr", args.jfr]
    env = dict(os.environ, PYTHONPATH=HERE)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, timeout=args.timeout)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"bench: session {table} {mode} #{iteration} failed (exit {proc.returncode})")
    return json.loads(lines[-1][len("RESULT "):])


def raw_document(args, info, tables, modes, results, complete, parquet_zstd):
    config = {k: getattr(args, k) for k in ("rows", "partitions", "iterations", "reps",
                                            "warmup_reps", "build_floor_reps", "cores", "driver_memory",
                                            "source")}
    config["sources"] = {m: source_of(args, m) for m in modes}
    if any(is_comet(m) for m in modes):
        config["comet_jar"] = os.path.basename(args.comet_jar)
    config["tables"] = {t: {"rows": table_rows(args, t), "columns": len(TABLES[t]["columns"])}
                        for t in tables}
    return {
        "title": args.title,
        "complete": complete,
        "machine": info,
        "config": config,
        "tables": tables,
        "modes": modes,
        "results": results,
        # Per table: the same rows as Parquet + zstd (parquet_zstd_footprint), the report's
        # reference footprint.
        "parquet_zstd": parquet_zstd,
    }


def save(out, raw):
    with open(os.path.join(out, "raw.json"), "w") as f:
        json.dump(raw, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", required=True, help="python of a PySpark virtualenv")
    parser.add_argument("--jar", required=True, help="the tablecache jar")
    parser.add_argument("--table", default="all",
                        help="standard, wide, strings, timeseries, logs (comma-separated), or 'all'")
    parser.add_argument("--rows", type=int, default=TABLES["standard"]["rows"],
                        help="rows of the standard table (16 columns)")
    parser.add_argument("--wide-rows", type=int, default=TABLES["wide"]["rows"],
                        help="rows of the wide table (256 columns)")
    parser.add_argument("--strings-rows", type=int, default=TABLES["strings"]["rows"],
                        help="rows of the string-heavy table")
    parser.add_argument("--timeseries-rows", type=int, default=TABLES["timeseries"]["rows"],
                        help="rows of the time-series table (12 columns)")
    parser.add_argument("--logs-rows", type=int, default=TABLES["logs"]["rows"],
                        help="rows of the log-lines table (8 columns)")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--reps", type=int, default=5,
                        help="runs of each query and read floor per session (the first "
                             "--warmup-reps of them are warm-up)")
    parser.add_argument("--warmup-reps", type=int, default=2,
                        help="leading runs of each query and read floor that are JIT warm-up: "
                             "reported only as the cold runs, not in the medians")
    parser.add_argument("--build-floor-reps", type=int, default=2,
                        help="runs of the uncached compute per session (the first is warm-up)")
    parser.add_argument("--modes", default="all",
                        help="comma-separated mode names or groups: all, formats, ab, comet")
    parser.add_argument("--source", choices=["generated", "parquet"], default="generated",
                        help="what is cached: the table's Spark SQL over spark.range (generated) "
                             "or a read of it written once to Parquet (parquet; Comet modes "
                             "always read Parquet)")
    parser.add_argument("--parquet-dir",
                        help="where the tables' Parquet copies are written once and reused "
                             "(default: OUT/parquet)")
    parser.add_argument("--comet-jar", default="", help="the Comet jar (Comet modes)")
    parser.add_argument("--cores", type=int, default=2, help="local[N]")
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per session")
    parser.add_argument("--out", required=True)
    parser.add_argument("--criterion", help="criterion output dir to summarise (target/criterion)")
    parser.add_argument("--title", default="tablecache benchmark")
    parser.add_argument("--jfr", help="write a JFR profile of every session into this directory")
    parser.add_argument("--no-chart", action="store_true", help="skip chart.png (no matplotlib)")
    args = parser.parse_args()

    if args.build_floor_reps < 2:
        raise SystemExit("--build-floor-reps must be at least 2 (the first run is warm-up)")
    if args.warmup_reps < 1 or args.reps <= args.warmup_reps:
        raise SystemExit("--warmup-reps must be at least 1, and --reps must leave a run after them")
    spark_version = pyspark_version(args.python)
    tables = select_tables(args.table)
    modes = select_modes(args.modes, spark_version)
    if not modes:
        raise SystemExit(f"bench: no mode left to run on Spark {spark_version}")
    if any(is_comet(m) for m in modes) and not args.comet_jar:
        raise SystemExit("bench: Comet modes need --comet-jar (scripts/bench.sh passes it)")
    args.parquet_dir = args.parquet_dir or os.path.join(args.out, "parquet")
    info = machine(args.python, spark_version)
    os.makedirs(args.out, exist_ok=True)
    total = args.iterations * len(modes) * len(tables)
    shapes = ", ".join(f"{t} {table_rows(args, t):,} x {len(TABLES[t]['columns'])}" for t in tables)
    print(f"bench: Spark {spark_version}, tables {shapes} (rows x columns), {args.partitions} "
          f"partitions, {len(modes)} modes x {args.iterations} iterations ({total} sessions)",
          file=sys.stderr, flush=True)

    if any(source_of(args, m) == "parquet" for m in modes):
        for table in tables:
            ensure_parquet(args, table)
    parquet_zstd = {table: parquet_zstd_footprint(args, table) for table in tables}
    results = []
    started = time.time()
    for iteration in range(args.iterations):
        # Rotate the order so no mode always runs first (cold machine) or last (hot machine).
        shift = iteration % len(modes)
        for table in tables:
            for mode in modes[shift:] + modes[:shift]:
                done = len(results)
                eta = "" if not done else f", ~{(time.time() - started) / done * (total - done) / 60:.0f} min left"
                print(f"bench: [{done + 1}/{total}] {table} {mode} (iteration {iteration + 1}{eta})",
                      file=sys.stderr, flush=True)
                results.append(run_session(args, table, mode, iteration))
                # Saved after every session, so an interrupted run keeps what it measured.
                save(args.out, raw_document(args, info, tables, modes, results, complete=False,
                                             parquet_zstd=parquet_zstd))

    info["loadavg_end"] = os.getloadavg()[0]
    info["wall_minutes"] = round((time.time() - started) / 60, 1)
    raw = raw_document(args, info, tables, modes, results, complete=True, parquet_zstd=parquet_zstd)
    save(args.out, raw)
    summary = report.summarize(raw, args.criterion)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(summary.markdown)
    if not args.no_chart:
        report.chart(raw, os.path.join(args.out, "chart.png"))
    print(summary.console)
    if summary.mismatches:
        print("bench: RESULTS DIFFER BETWEEN MODES: " + "; ".join(summary.mismatches), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
