"""Turns a benchmark's raw.json into the markdown summary (three views per phase: wall time, wall
time above Spark's floor, executor CPU; ratios to Spark default; the targets) and a chart.

Each table's footprint row also shows the same rows as Parquet + zstd (written once per run by
run.py, on disk) and each mode's footprint divided by it: how far a cache is from a good
columnar file format with a strong codec.

Modes under Comet get their own table per benchmark table, with ratios to Comet + Spark's
default cache and to Comet's own cache, their goals (ours smaller than Comet's cache and no
slower on any read phase) and the Spark operators left in their plans (Comet's fallbacks)."""

import glob
import json
import os
import statistics
from dataclasses import dataclass, field

from modes import (BASELINE, COMET_BASELINE, COMET_HEADLINE, COMET_OWN, HEADLINE, HEADLINE_ZSTD,
                   MODES, is_comet)
import tables as tables_mod

# Where Spark default's wall time above its floor is under this, the phase is "at Spark's
# floor": what is left is noise, and the target becomes "no slower than default in wall time".
AT_FLOOR_S = 0.1

# Ours (HEADLINE) / Spark default, wall time above the floor, at most these (standard table).
TARGETS = [
    ("standard", "read_1_of_16", "sum of 1 column", 0.3),
    ("standard", "filter_point_2_of_16", "point filter", 0.3),
    ("standard", "read_4_of_16_groupby", "group-by over 4 columns", 0.6),
    ("standard", "max_all_16", "max of all columns", 0.6),
]
# Ours' build wall time / ours' uncached compute of the same DataFrame, at most this.
BUILD_VS_FLOOR_TARGET = 1.5
# Cache footprint, ours / Spark default (standard table).
FOOTPRINT_TARGETS = [("footprint (lz4)", HEADLINE, 0.85), ("footprint (zstd)", HEADLINE_ZSTD, 0.35)]
V3_VS_V2_TARGET = 5.0


@dataclass
class Summary:
    markdown: str
    console: str
    mismatches: list = field(default_factory=list)


def table_of(result):
    return result.get("table", "standard")  # raw.json before the table option: standard only


def results_of(raw, table, mode=None):
    return [r for r in raw["results"]
            if table_of(r) == table and (mode is None or r["mode"] == mode)]


def raw_tables(raw):
    return raw.get("tables") or ["standard"]


def phase_list(raw, table):
    """[(phase, label)] of a table in the order the sessions ran them."""
    known = dict(tables_mod.phases(table)) if table in tables_mod.TABLES else {}
    runs = results_of(raw, table)
    keys = list(runs[0]["phases"]) if runs else list(known)
    return [(k, known.get(k, k.replace("_", " "))) for k in keys]


def warmup_runs(result, phase, key):
    """How many leading runs of a phase are JIT warm-up: the session's `warmup_reps` for queries
    and read floors (1 in runs from before it was recorded), 1 for the build floor. The cache
    build runs once, after a discarded warm-up build of a quarter of the rows."""
    if phase == "build":
        return 1 if key in ("floors", "floor_cpu") else 0
    return result.get("warmup_reps", 1)


def samples(result, phase, key="phases"):
    """A session's runs of a phase (`key`: phases, floors, task_cpu, floor_cpu) without its
    warm-up runs (`warmup_runs`)."""
    times = (result.get(key) or {}).get(phase)
    if not times:
        return []
    warm = warmup_runs(result, phase, key)
    return times[warm:] if len(times) > warm else times


def cold_runs(result, phase):
    """A session's first run of a query on the full cache: the JIT is as cold as it gets."""
    times = (result.get("phases") or {}).get(phase)
    return times[:1] if phase != "build" and times and len(times) > 1 else []


def median_of(runs, phase, key):
    values = [t for r in runs for t in samples(r, phase, key)]
    return statistics.median(values) if values else None


def medians(raw):
    """{table: {mode: {...}}}: per phase the medians of wall time (phase), its floor
    ("floor", phase), wall time above the floor ("above", phase) and executor CPU ("cpu", phase),
    pooled over every session of the mode; None where a session did not record it."""
    out = {}
    for table in raw_tables(raw):
        out[table] = {}
        for mode in raw["modes"]:
            runs = results_of(raw, table, mode)
            if not runs:
                continue
            row = {"footprint": statistics.median(r["footprint_bytes"] for r in runs),
                   "disk": max(r["disk_bytes"] for r in runs)}
            for phase, _ in phase_list(raw, table):
                wall = median_of(runs, phase, "phases")
                floor = median_of(runs, phase, "floors")
                row[phase] = wall
                row[("floor", phase)] = floor
                row[("above", phase)] = wall - floor if floor is not None else None
                row[("cpu", phase)] = median_of(runs, phase, "task_cpu")
            out[table][mode] = row
    return out


def spread(raw, table, mode, phase):
    """Relative spread (max-min)/median of a mode's wall-time samples: how noisy the figure is."""
    values = [t for r in results_of(raw, table, mode) for t in samples(r, phase)]
    if len(values) < 2:
        return None
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else 0.0


def check_digests(raw):
    """Every mode must return the same rows for every query, on the cache and on the tiny one."""
    mismatches = []
    seen = {}
    for r in raw["results"]:
        for kind in ("digests", "floor_digests"):
            for query, d in (r.get(kind) or {}).items():
                where = (table_of(r), kind, query)
                first = seen.setdefault(where, (r["mode"], d))
                if first[1] != d:
                    what = f"{table_of(r)} {query}" + (" (8-row cache)" if kind == "floor_digests" else "")
                    mismatches.append(f"{what}: {first[0]} {first[1]} != {r['mode']} {d}")
    return mismatches


def fmt_seconds(s):
    if s is None:
        return "—"
    return f"{s * 1000:.0f} ms" if abs(s) < 1 else f"{s:.2f} s"


def fmt_ratio(value, base):
    """value / base, or "—" when either is not above zero (a wall − floor within the floor's
    noise)."""
    if value is not None and base is not None and base > 0.005 and value >= 0:
        return f"{value / base:.2f}"
    return "—"


def fmt_with_ratio(value, *bases):
    """Seconds and the ratio to each of `bases` ("1.20 s (0.80 / 1.10)"); no ratios when none
    can be given."""
    cell = fmt_seconds(value)
    ratios = [fmt_ratio(value, base) for base in bases]
    if any(r != "—" for r in ratios):
        cell += f" ({' / '.join(ratios)})"
    return cell


def label(mode):
    return MODES[mode]["label"] if mode in MODES else mode


def at_floor(med_table, phase, base_mode=BASELINE):
    """The base mode's wall time above its floor is under AT_FLOOR_S (None: no floor measured)."""
    base = med_table.get(base_mode)
    above = base and base.get(("above", phase))
    if above is None:
        return None
    return above < AT_FLOOR_S


PARQUET_ZSTD = "Parquet + zstd"


def parquet_zstd_bytes(raw, table):
    """Bytes of the table's rows as Parquet + zstd (run.py's parquet_zstd_footprint), or None
    (a raw.json from before it was measured)."""
    entry = (raw.get("parquet_zstd") or {}).get(table)
    return entry["bytes"] if entry else None


def table_shape(raw, table):
    tcfg = (raw["config"].get("tables") or {}).get(table)
    rows = tcfg["rows"] if tcfg else raw["config"]["rows"]
    cols = tcfg["columns"] if tcfg else len(tables_mod.TABLES[table]["columns"])
    return rows, cols


def machine_lines(raw):
    m, c = dict(raw["machine"]), raw["config"]
    m.setdefault("loadavg_end", float("nan"))
    m.setdefault("wall_minutes", "?")
    lines = [
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} RAM, Linux {m['kernel']}; "
        f"load average {m['loadavg_start']:.1f} at start, {m['loadavg_end']:.1f} at end",
        f"- Spark {m['spark']} (PySpark from PyPI, local[{c['cores']}], driver memory "
        f"{c['driver_memory']}), {m['jdk']}, {m['python']}; tablecache commit {m['commit']}",
    ]
    for table in raw_tables(raw):
        rows, cols = table_shape(raw, table)
        describe = tables_mod.TABLES.get(table, {}).get("describe", "")
        lines.append(f"- Table `{table}`: {rows:,} rows x {cols} columns ({describe}), "
                     f"{c['partitions']} partitions, cached with `cache()` (MEMORY_AND_DISK, deserialized)")
    if any(parquet_zstd_bytes(raw, t) for t in raw_tables(raw)):
        spark = next(iter(raw["parquet_zstd"].values())).get("spark", m["spark"])
        lines.append(f"- {PARQUET_ZSTD}: each table's rows (the same generated DataFrame and "
                     f"partitions) written once per run by Spark {spark}'s own Parquet writer "
                     f"(`compression=zstd`, its defaults otherwise), one file per partition: the "
                     f"sum of the `.parquet` files' sizes, on disk; a reference for the cache "
                     f"footprints, which are in memory")
    sources = c.get("sources") or {}
    parquet = [m for m in raw["modes"] if sources.get(m) == "parquet"]
    if parquet:
        lines.append(f"- Cached from a Parquet read of each table (written once, one file per "
                     f"partition; the 8-row caches likewise): {', '.join(parquet)}; the other "
                     f"modes cache the generated DataFrame")
    if c.get("comet_jar"):
        lines.append(f"- Comet: `{c['comet_jar']}` on spark.jars of the Comet modes")
    lines.append(
        f"- Method: each (table, mode) in a fresh Spark application, one cache alive at a time, "
        f"{c['iterations']} iterations with the mode order rotated; in every session first the "
        f"floors (the uncached compute {c.get('build_floor_reps', '?')} times, each query "
        f"{c['reps']} times on an 8-row cache), a warm-up build of a quarter of the rows, then the "
        f"build and each query {c['reps']} times; the warm-up build, the first uncached compute "
        f"and the {first_runs(c.get('warmup_reps', 1))} of each query and read floor are "
        f"JIT warm-up, left out of the medians (the first run of each query is shown apart, "
        f"as the cold run); medians; {m['wall_minutes']} min in all")
    return lines


def first_runs(n):
    return "first run" if n == 1 else f"first {n} runs"


VIEWS_TEXT = [
    "Three views per phase, each with its ratio to Spark default in brackets (lower is better):",
    "",
    "- **wall**: the phase's wall time.",
    "- **floor**: Spark's fixed cost of the same work, measured in the same session. For the "
    "build, the same DataFrame computed without a cache (`write.format(\"noop\")`); for a query, "
    "the same query on an 8-row cache of the same schema and serializer (planning, scheduling "
    "the same number of tasks, the shuffle, collecting).",
    "- **wall − floor**: what the cache decides in wall time. Where Spark default's is under "
    f"{AT_FLOOR_S * 1000:.0f} ms the phase is marked *at Spark's floor*: its target becomes "
    "\"no slower than Spark default in wall time\".",
    "- **executor CPU**: summed over the phase's tasks, from Spark's event log.",
]


def table_section(raw, med, table, comet=False):
    """The table's section for the modes without Comet (ratios to Spark default) or, `comet`,
    for the modes under Comet (ratios to Comet + Spark default and to Comet's own cache)."""
    rows, cols = table_shape(raw, table)
    mt = {m: row for m, row in med[table].items() if is_comet(m) == comet}
    if not mt:
        return []
    base_modes = (COMET_BASELINE, COMET_OWN) if comet else (BASELINE,)
    bases = [mt.get(b, {}) for b in base_modes]
    base = bases[0]
    if comet:
        md = [f"## Table `{table}` under Comet: {rows:,} rows x {cols} columns", "",
              "Ratios in brackets: to " + " / to ".join(label(b) for b in base_modes)
              + ". Every mode here caches a Parquet read of the table (a Comet scan).", ""]
    else:
        md = [f"## Table `{table}`: {rows:,} rows x {cols} columns", ""]
    if mt:
        # The reference footprint, where measured: one more column, and rows with each mode's
        # footprint over it and the exact bytes.
        pq = parquet_zstd_bytes(raw, table)
        extra = [] if pq is None else [f"{PARQUET_ZSTD} (on disk)"]
        pad = "" if pq is None else " — |"
        md += ["| | " + " | ".join([label(m) for m in mt] + extra) + " |",
               "|---|" + "---|" * (len(mt) + len(extra))]
        fp = []
        for size in [row["footprint"] for row in mt.values()] + ([] if pq is None else [pq]):
            fp.append(f"{size / 2**20:.1f} MiB")
            ratios = [f"{size / b['footprint']:.2f}" if b.get("footprint") else "—"
                      for b in bases]
            if any(r != "—" for r in ratios):
                fp[-1] += f" ({' / '.join(ratios)})"
        md += ["| cache footprint | " + " | ".join(fp) + " |"]
        if pq is not None:
            md += [f"| footprint ÷ {PARQUET_ZSTD} | "
                   + " | ".join(f"{row['footprint'] / pq:.2f}" for row in mt.values()) + " | 1.00 |",
                   "| footprint, bytes | "
                   + " | ".join(f"{round(row['footprint']):,}" for row in mt.values())
                   + f" | {pq:,} |"]
        paths = [sorted({r.get("read_path", "?") for r in results_of(raw, table, m)}) for m in mt]
        if any(p != ["?"] for p in paths):
            md += ["| read path (first query's plan) | " + " | ".join("/".join(p) for p in paths)
                   + " |" + pad]
        if any(row.get(("floor", "build")) for row in mt.values()):
            ratios = []
            for mode, row in mt.items():
                ratios.append(f"{row['build'] / row[('floor', 'build')]:.2f}"
                              if row.get(("floor", "build")) else "—")
            md += ["| build / uncached compute | " + " | ".join(ratios) + " |" + pad]
        md += [""]
    md += ["| phase, mode | wall | floor | wall − floor | executor CPU |", "|---|---|---|---|---|"]
    for phase, name in phase_list(raw, table):
        flag = at_floor(mt, phase, base_modes[0])
        above = base.get(("above", phase))
        note = ""
        if above is not None:
            note = f" — {label(base_modes[0])}'s wall − floor: {fmt_seconds(above)}"
            if flag:
                note += " → **at Spark's floor** (target: wall no slower than default)"
        md.append(f"| **{name}**{note} | | | | |")
        for mode, row in mt.items():
            md.append("| " + " | ".join([
                label(mode),
                fmt_with_ratio(row[phase], *(b.get(phase) for b in bases)),
                fmt_seconds(row[("floor", phase)]),
                fmt_with_ratio(row[("above", phase)], *(b.get(("above", phase)) for b in bases)),
                fmt_with_ratio(row[("cpu", phase)], *(b.get(("cpu", phase)) for b in bases)),
            ]) + " |")
    return md + [""]


def ratio(med_table, mode, key, base_mode=BASELINE):
    base = med_table.get(base_mode, {}).get(key)
    value = med_table.get(mode, {}).get(key)
    if value is None or not base or base <= 0:
        return None
    return value / base


def phase_target(mt, phase, target, mode=HEADLINE, base_mode=BASELINE):
    """(what is compared, limit, ratio) for `mode` vs `base_mode` on a phase: wall − floor at
    most `target`, or, at the base's floor, wall no slower than the base."""
    flag = at_floor(mt, phase, base_mode)
    if flag:
        return "wall (at Spark's floor)", 1.0, ratio(mt, mode, phase, base_mode)
    if flag is None:  # no floor measured (old raw.json)
        return "wall", target, ratio(mt, mode, phase, base_mode)
    return "wall − floor", target, ratio(mt, mode, ("above", phase), base_mode)


def fmt_target_ratio(r):
    if r is None:
        return None
    # Ours' wall − floor below zero: ours is within its floor's noise.
    return f"{r:.2f}" if r >= 0 else "0 (ours at its floor)"


def targets_table(raw, med):
    lines = ["| table | measure | compared | target | ours / Spark default | met |",
             "|---|---|---|---|---|---|"]
    met_count = total = 0

    def add(table, measure, compared, target_text, value, met):
        nonlocal met_count, total
        shown = "—" if value is None else value
        lines.append(f"| {table} | {measure} | {compared} | {target_text} | {shown} | "
                     f"{'—' if met is None else ('yes' if met else 'NO')} |")
        if met is not None:
            met_count += met
            total += 1

    std = med.get("standard", {})
    if HEADLINE in std and std[HEADLINE].get(("floor", "build")):
        r = std[HEADLINE]["build"] / std[HEADLINE][("floor", "build")]
        add("standard", "build", "ours wall / ours uncached compute", f"<= {BUILD_VS_FLOOR_TARGET}",
            f"{r:.2f}", r <= BUILD_VS_FLOOR_TARGET)
    for table, phase, measure, target in TARGETS:
        mt = med.get(table, {})
        if HEADLINE not in mt or BASELINE not in mt or phase not in mt[HEADLINE]:
            continue
        compared, limit, r = phase_target(mt, phase, target)
        add(table, measure, compared, f"<= {limit}", fmt_target_ratio(r),
            None if r is None else r <= limit)
    for measure, mode, target in FOOTPRINT_TARGETS:
        r = ratio(std, mode, "footprint")
        if r is not None:
            add("standard", f"{measure}, {label(mode)}", "cache footprint", f"<= {target}",
                f"{r:.2f}", r <= target)
    # No phase of any table slower than Spark default.
    for table in raw_tables(raw):
        mt = med.get(table, {})
        if HEADLINE not in mt or BASELINE not in mt:
            continue
        for phase, name in phase_list(raw, table):
            compared, _, r = phase_target(mt, phase, 1.0)
            add(table, f"{name}: no slower than default", compared, "<= 1.0",
                fmt_target_ratio(r), None if r is None else r <= 1.0)
    for v3, v2 in (("tc-v3-stats-lz4", "tc-v2-stats-lz4"), ("tc-v3-lz4", "tc-v2-lz4")):
        if v3 in std and v2 in std and std[v3].get(("above", "read_1_of_16")):
            key = ("above", "read_1_of_16")
            speedup = std[v2][key] / std[v3][key]
            add("standard", f"sum of 1 column: {label(v3)} vs {label(v2)}", "wall − floor",
                f">= {V3_VS_V2_TARGET}x faster", f"{speedup:.1f}x", speedup >= V3_VS_V2_TARGET)
    return lines, met_count, total


def comet_goals_table(raw, med):
    """Ours under Comet against Comet's own cache and against Spark's default cache under
    Comet: footprint smaller, and no read phase slower (wall − floor, or wall where the
    reference is at Spark's floor)."""
    lines = ["| table | measure | compared | target | ratio | met |", "|---|---|---|---|---|---|"]
    met_count = total = 0
    for table in raw_tables(raw):
        mt = med.get(table, {})
        if COMET_HEADLINE not in mt:
            continue
        for base_mode in (COMET_OWN, COMET_BASELINE):
            if base_mode not in mt:
                continue
            who = f"{label(COMET_HEADLINE)} / {label(base_mode)}"
            r = ratio(mt, COMET_HEADLINE, "footprint", base_mode)
            checks = [("footprint", "cache footprint", "< 1.0", r, None if r is None else r < 1.0)]
            for phase, name in phase_list(raw, table):
                if phase == "build":
                    continue
                compared, _, r = phase_target(mt, phase, 1.0, COMET_HEADLINE, base_mode)
                checks.append((f"{name}: no slower", compared, "<= 1.0", r,
                               None if r is None else r <= 1.0))
            for measure, compared, target, r, met in checks:
                shown = "—" if r is None else fmt_target_ratio(r)
                lines.append(f"| {table} | {measure} | {compared}, {who} | {target} | {shown} | "
                             f"{'—' if met is None else ('yes' if met else 'NO')} |")
                if met is not None:
                    met_count += met
                    total += 1
    return lines, met_count, total


def comet_plan_lines(raw):
    """Per table and Comet mode: the read path and, per phase, the Spark operators left in the
    executed plan (Comet's fallbacks), from each mode's last session."""
    lines = ["| table | mode | read path (8-row cache) | phase: Spark operators in the plan |",
             "|---|---|---|---|"]
    found = False
    for table in raw_tables(raw):
        for mode in raw["modes"]:
            runs = [r for r in results_of(raw, table, mode) if is_comet(mode)]
            if not runs:
                continue
            last = runs[-1]
            operators = last.get("spark_operators") or {}
            found = found or bool(operators)
            cells = [f"{phase}: {', '.join(ops) if ops else 'none'}" for phase, ops in operators.items()]
            path = f"{last.get('read_path', '?')} ({last.get('floor_read_path', '?')})"
            lines.append(f"| {table} | {label(mode)} | {path} | {'; '.join(cells) or '—'} |")
    return lines if found else []


def cold_lines(raw, med, table):
    """Each query's first run on the full cache (median over sessions), per mode, with its
    ratio to Spark default: what a JVM that has not run the query yet pays, JIT included."""
    phases = [(p, name) for p, name in phase_list(raw, table) if p != "build"]
    cold = {mode: {} for mode in med[table]}
    for mode in med[table]:
        for p, _ in phases:
            values = [t for r in results_of(raw, table, mode) for t in cold_runs(r, p)]
            cold[mode][p] = statistics.median(values) if values else None
    if not any(v is not None for row in cold.values() for v in row.values()):
        return []
    base = cold.get(BASELINE, {})
    lines = [f"`{table}`:", "", "| mode | " + " | ".join(name for _, name in phases) + " |",
             "|" + "---|" * (len(phases) + 1)]
    for mode in med[table]:
        cells = [("—" if cold[mode][p] is None else fmt_with_ratio(cold[mode][p], base.get(p)))
                 for p, _ in phases]
        lines.append(f"| {label(mode)} | " + " | ".join(cells) + " |")
    return lines + [""]


def noise_lines(raw, med, table):
    phases = phase_list(raw, table)
    lines = [f"`{table}`:", "", "| mode | " + " | ".join(name for _, name in phases) + " |",
             "|" + "---|" * (len(phases) + 1)]
    for mode in med[table]:
        cells = [spread(raw, table, mode, p) for p, _ in phases]
        lines.append(f"| {label(mode)} | "
                     + " | ".join("—" if c is None else f"{c:.0%}" for c in cells) + " |")
    return lines + [""]


def criterion_lines(criterion_dir):
    """Criterion's mean time and throughput per native benchmark, if `cargo bench` ran."""
    rows = []
    for bench in sorted(glob.glob(os.path.join(criterion_dir, "**", "new", "benchmark.json"), recursive=True)):
        with open(bench) as f:
            meta = json.load(f)
        with open(os.path.join(os.path.dirname(bench), "estimates.json")) as f:
            est = json.load(f)
        mean_ns = est["mean"]["point_estimate"]
        tp = (meta.get("throughput") or {}).get("Bytes")
        rate = f"{tp / mean_ns * 1e9 / 2**30:.2f} GiB/s" if tp else ""
        rows.append(f"| {meta['full_id']} | {mean_ns / 1e3:.1f} µs | {rate} |")
    if not rows:
        return []
    return ["| benchmark | mean | throughput (Arrow bytes) |", "|---|---|---|"] + rows


def summarize(raw, criterion_dir=None):
    med = medians(raw)
    mismatches = check_digests(raw)
    targets, met, total = targets_table(raw, med)
    headline = (f"Headline mode: **{label(HEADLINE)}** (only `spark.sql.cache.serializer` set). "
                f"Targets are ours / Spark default in wall time above the floor, except the build "
                f"(ours against its own uncached compute); the `standard` targets are stated for "
                f"20,000,000 rows.")
    views = list(VIEWS_TEXT)
    if any(is_comet(m) for m in raw["modes"]):
        views += ["", f"Under Comet the brackets hold two ratios: to {label(COMET_BASELINE)} and to "
                      f"{label(COMET_OWN)}; in their tables \"at Spark's floor\" is judged on "
                      f"{label(COMET_BASELINE)}, in the Comet goals on each row's reference."]
    md = [f"# {raw['title']}", ""] + machine_lines(raw) + [""] + views + [""]
    sections, comet_sections = [], []
    for table in raw_tables(raw):
        if med.get(table):
            sections += table_section(raw, med, table)
            comet_sections += table_section(raw, med, table, comet=True)
    if not any(HEADLINE in mt and BASELINE in mt for mt in med.values()):
        headline += (f" This run lacks `{HEADLINE}` or `{BASELINE}`: only the footprint "
                     f"and format targets can be checked.")
    spark_modes = any(not is_comet(m) for m in raw["modes"])
    target_md = ([f"## Targets ({met} of {total} met)", "", headline, ""] + targets + [""]
                 if spark_modes else [])
    comet_md = []
    if comet_sections:
        goals, cmet, ctotal = comet_goals_table(raw, med)
        comet_md = [f"## Comet goals ({cmet} of {ctotal} met)", "",
                    f"**{label(COMET_HEADLINE)}** (only `spark.sql.cache.serializer` set, besides "
                    f"Comet's settings) against **{label(COMET_OWN)}** and **{label(COMET_BASELINE)}**: "
                    f"a smaller cache, and no read phase slower (wall − floor; wall where the "
                    f"reference's wall − floor is under {AT_FLOOR_S * 1000:.0f} ms).", ""]
        if ctotal:
            comet_md += goals + [""]
        else:
            comet_md += [f"This run lacks `{COMET_HEADLINE}`, or both `{COMET_OWN}` and "
                         f"`{COMET_BASELINE}`: nothing to check.", ""]
        plan_md = comet_plan_lines(raw)
        if plan_md:
            comet_md += ["### Spark operators in the plans under Comet (fallbacks)", "",
                         "From each mode's last session: the executed plan of each query (`build`: "
                         "the plan the cache was built from); adaptive-execution wrappers and the "
                         "cache scan are not counted. Every session's plans are in `plans/`.", ""] + plan_md + [""]
    md += target_md + sections + comet_md + comet_sections
    noisy = [t for t in raw_tables(raw) if med.get(t) and any(
        spread(raw, t, m, p) is not None for m in med[t] for p, _ in phase_list(raw, t))]
    if noisy:
        md += ["## Noise: (max - min) / median of each wall-time figure's samples", ""]
        for table in noisy:
            md += noise_lines(raw, med, table)
    cold_md = [line for table in raw_tables(raw) if med.get(table)
               for line in cold_lines(raw, med, table)]
    if cold_md:
        md += ["## Cold runs: each query's first run on the full cache (wall)", "",
               "Left out of the medians above: the JIT is still compiling the query's code and "
               "the serializer's read path. Medians over sessions, ratio to Spark default in "
               "brackets.", ""] + cold_md
    if any(row["disk"] for mt in med.values() for row in mt.values()):
        md += ["**Warning:** some cache blocks spilled to disk; footprints include them.", ""]
    md += ["## Correctness", ""]
    md.append("Every mode returned identical results for every query (on the cache and on the "
              "8-row cache)." if not mismatches else "RESULTS DIFFER: " + "; ".join(mismatches))
    if criterion_dir:
        crit = criterion_lines(criterion_dir)
        if crit:
            md += ["", "## Native codec (criterion, `cargo bench --bench codec`, 10,000 rows x 16 columns)", ""] + crit
    markdown = "\n".join(md) + "\n"
    console = "\n".join(sections + target_md + comet_sections + comet_md)
    return Summary(markdown, console, mismatches)


def chart(raw, path):
    """Per table: cache footprint and, per phase, each mode's floor (grey) and wall time above
    it (coloured), stacked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    med = medians(raw)
    tables = [t for t in raw_tables(raw) if med.get(t)]
    ncols = 1 + max(len(phase_list(raw, t)) for t in tables)
    fig, axes = plt.subplots(len(tables), ncols, figsize=(3.2 * ncols, 3.6 * len(tables)), squeeze=False)
    for row_axes, table in zip(axes, tables):
        mt = med[table]
        modes = list(mt)
        labels = [label(m) for m in modes]
        colors = ["#7f7f7f" if m in (BASELINE, COMET_BASELINE)
                  else "#1f77b4" if m.startswith("spark-arrow") or m == COMET_OWN
                  else "#d62728" if m in (HEADLINE, COMET_HEADLINE) else "#ff9896" for m in modes]
        rows, cols = table_shape(raw, table)
        panels = [("footprint", f"{table}: footprint (MiB)")] + [
            (p, f"{table}: {name} (s)") for p, name in phase_list(raw, table)]
        for i, ax in enumerate(row_axes):
            if i >= len(panels):
                ax.axis("off")
                continue
            key, title = panels[i]
            y = range(len(modes))
            if key == "footprint":
                values = [mt[m]["footprint"] / 2**20 for m in modes]
                ax.barh(y, values, color=colors)
                pq = parquet_zstd_bytes(raw, table)
                if pq:
                    ax.axvline(pq / 2**20, color="#2ca02c", linestyle="--", linewidth=1)
                    ax.text(pq / 2**20, len(modes) - 0.5, f" {PARQUET_ZSTD}", color="#2ca02c",
                            fontsize=6, va="bottom")
            else:
                values = [mt[m][key] for m in modes]
                # The bar is the wall time; its grey part the floor (capped: a floor measured
                # above the wall time is noise).
                floors = [min(max(mt[m][("floor", key)] or 0.0, 0.0), v) for m, v in zip(modes, values)]
                above = [max(v - f, 0.0) for v, f in zip(values, floors)]
                ax.barh(y, floors, color="#d9d9d9")
                ax.barh(y, above, left=floors, color=colors)
            ax.set_yticks(list(y))
            ax.set_yticklabels(labels if i == 0 else [""] * len(modes), fontsize=7)
            ax.invert_yaxis()
            ax.set_title(title, fontsize=8)
            for j, v in enumerate(values):
                ax.text(v, j, f" {v:.3g}", va="center", fontsize=6)
            ax.margins(x=0.22)
    fig.suptitle(f"{raw['title']}: Spark {raw['machine']['spark']}, local[{raw['config']['cores']}], "
                 f"medians; grey = Spark's floor measured in the same session; lower is better",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def complete_iterations(raw):
    """An interrupted run's raw.json cut to its complete iterations (every table and mode
    measured alike)."""
    counts = {}
    for r in raw["results"]:
        key = (table_of(r), r["mode"])
        counts[key] = counts.get(key, 0) + 1
    done = min((counts.get((t, m), 0) for t in raw_tables(raw) for m in raw["modes"]), default=0)
    cut = dict(raw)
    cut["results"] = [r for r in raw["results"] if r["iteration"] < done]
    cut["config"] = dict(raw["config"], iterations=done)
    cut["title"] = (f"{raw['title']} (interrupted: {done} of {raw['config']['iterations']} "
                    f"iterations complete)")
    return cut


def main():
    """Summarises a raw.json again (e.g. an interrupted run's): summary.md and chart.png beside it
    (or in --out)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("raw", help="raw.json written by run.py")
    parser.add_argument("--out", help="directory for summary.md and chart.png (default: beside raw)")
    parser.add_argument("--criterion", help="criterion output dir to summarise (target/criterion)")
    parser.add_argument("--no-chart", action="store_true")
    args = parser.parse_args()
    with open(args.raw) as f:
        raw = json.load(f)
    if not raw.get("complete", True):
        raw = complete_iterations(raw)
    out = args.out or os.path.dirname(os.path.abspath(args.raw))
    os.makedirs(out, exist_ok=True)
    summary = summarize(raw, args.criterion)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary.markdown)
    if not args.no_chart:
        chart(raw, os.path.join(out, "chart.png"))
    print(summary.console)


if __name__ == "__main__":
    main()
