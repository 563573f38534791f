"""Turns a benchmark's raw.json into the markdown summary (medians, ratios, targets) and a chart."""

import glob
import json
import os
import statistics
from dataclasses import dataclass, field

from modes import BASELINE, HEADLINE, HEADLINE_ZSTD, MODES

PHASES = [
    ("build", "build"),
    ("read_1_of_16", "read 1/16"),
    ("read_4_of_16_groupby", "read 4/16 group-by"),
    ("filter_point_2_of_16", "filter point 2/16"),
    ("read_all_16", "read all 16"),
]

# Ratios of HEADLINE (or HEADLINE_ZSTD for the zstd footprint) to Spark default: at most these.
TARGETS = [
    ("footprint (lz4)", HEADLINE, "footprint", 0.85),
    ("footprint (zstd)", HEADLINE_ZSTD, "footprint", 0.35),
    ("build", HEADLINE, "build", 0.8),
    ("read 1/16", HEADLINE, "read_1_of_16", 0.5),
    ("read 4/16", HEADLINE, "read_4_of_16_groupby", 0.7),
    ("filter point", HEADLINE, "filter_point_2_of_16", 0.7),
    ("read all", HEADLINE, "read_all_16", 0.9),
]
V3_VS_V2_TARGET = 5.0


@dataclass
class Summary:
    markdown: str
    console: str
    mismatches: list = field(default_factory=list)


def phase_samples(result, phase, warmup=1, key="phases"):
    """The session's timings of a phase (`key`: "phases" for wall time, "task_cpu" for executor
    CPU time); the first run of a repeated query is JIT warm-up."""
    times = result[key][phase]
    return times[warmup:] if phase != "build" and len(times) > warmup else times


def medians(raw):
    """{mode: {phase or 'footprint': median}} pooled over every session of the mode; executor
    CPU medians under ("cpu", phase) when the sessions recorded them."""
    out = {}
    for mode in raw["modes"]:
        runs = [r for r in raw["results"] if r["mode"] == mode]
        if not runs:
            continue
        row = {"footprint": statistics.median(r["footprint_bytes"] for r in runs)}
        for phase, _ in PHASES:
            row[phase] = statistics.median(t for r in runs for t in phase_samples(r, phase))
            if all("task_cpu" in r for r in runs):
                row[("cpu", phase)] = statistics.median(
                    t for r in runs for t in phase_samples(r, phase, key="task_cpu"))
        generated = [r["generate_s"] for r in runs if r.get("generate_s") is not None]
        row["generate"] = statistics.median(generated) if generated else None
        row["disk"] = max(r["disk_bytes"] for r in runs)
        out[mode] = row
    return out


def spread(raw, mode, phase):
    """Relative spread (max-min)/median of a mode's phase samples: how noisy the figure is."""
    samples = [t for r in raw["results"] if r["mode"] == mode for t in phase_samples(r, phase)]
    if len(samples) < 2:
        return 0.0
    m = statistics.median(samples)
    return (max(samples) - min(samples)) / m if m else 0.0


def check_digests(raw):
    """Every mode must return the same rows for every query."""
    mismatches = []
    seen = {}
    for r in raw["results"]:
        for query, d in r["digests"].items():
            first = seen.setdefault(query, (r["mode"], d))
            if first[1] != d:
                mismatches.append(f"{query}: {first[0]} {first[1]} != {r['mode']} {d}")
    return mismatches


def fmt_seconds(s):
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def fmt_ratio(x):
    return f"{x:.2f}"


def machine_lines(raw):
    m, c = dict(raw["machine"]), raw["config"]
    m.setdefault("loadavg_end", float("nan"))
    m.setdefault("wall_minutes", "?")
    return [
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} RAM, Linux {m['kernel']}; "
        f"load average {m['loadavg_start']:.1f} at start, {m['loadavg_end']:.1f} at end",
        f"- Spark {m['spark']} (PySpark from PyPI, local[{c['cores']}], driver memory "
        f"{c['driver_memory']}), {m['jdk']}, {m['python']}; tablecache commit {m['commit']}",
        f"- Data: {c['rows']:,} rows x 16 columns (4 affine longs, 4 low-cardinality longs, 4 "
        f"doubles, 4 low-cardinality strings), {c['partitions']} partitions, cached with `cache()` (MEMORY_AND_DISK, deserialized)",
        f"- Method: each mode in a fresh Spark application, one cache alive at a time, "
        f"{c['iterations']} iterations with the mode order rotated, each query run {c['reps']} "
        f"times per session (the first discarded as warm-up); medians; {m['wall_minutes']} min in all",
    ]


def main_table(raw, med, cpu=False):
    """Wall-time medians with footprints, or (cpu=True) executor CPU medians."""
    base = med.get(BASELINE)
    head = ["mode"] + ([] if cpu else ["footprint"]) + [label for _, label in PHASES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for mode, row in med.items():
        cells = [MODES[mode]["label"]]
        if not cpu:
            fp = f"{row['footprint'] / 2**20:.0f} MiB"
            if base:
                fp += f" ({row['footprint'] / base['footprint']:.2f})"
            cells.append(fp)
        for phase, _ in PHASES:
            key = ("cpu", phase) if cpu else phase
            cell = fmt_seconds(row[key])
            if base and base[key]:
                cell += f" ({fmt_ratio(row[key] / base[key])})"
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def has_cpu(med):
    return bool(med) and all(("cpu", "build") in row for row in med.values())


def targets_table(med):
    base = med.get(BASELINE)
    arrow = med.get("spark-arrow")
    cpu = has_cpu(med)
    lines = ["| measure | target | ours / Spark default | met | ours / Spark Arrow |"
             + (" executor CPU: ours / Spark default | ours / Spark Arrow |" if cpu else ""),
             "|---|---|---|---|---|" + ("---|---|" if cpu else "")]
    met_count = total = 0
    for label, mode, key, target in TARGETS:
        if mode not in med or not base:
            continue
        ratio = med[mode][key] / base[key]
        met = ratio <= target
        vs_arrow = f"{med[mode][key] / arrow[key]:.2f}" if arrow else "n/a"
        if key == "footprint" and mode == HEADLINE_ZSTD and "spark-arrow-zstd" in med:
            vs_arrow = f"{med[mode][key] / med['spark-arrow-zstd'][key]:.2f} (vs Arrow zstd)"
        line = f"| {label} | <= {target} | {ratio:.2f} | {'yes' if met else 'NO'} | {vs_arrow} |"
        if cpu:
            if key == "footprint":
                line += " | |"
            else:
                c = ("cpu", key)
                line += f" {med[mode][c] / base[c]:.2f} | " + (
                    f"{med[mode][c] / arrow[c]:.2f} |" if arrow else "n/a |")
        lines.append(line)
        met_count += met
        total += 1
    for v3, v2 in ((HEADLINE, "tc-v2-stats-lz4"), ("tc-v3-lz4", "tc-v2-lz4")):
        if v3 in med and v2 in med:
            speedup = med[v2]["read_1_of_16"] / med[v3]["read_1_of_16"]
            met = speedup >= V3_VS_V2_TARGET
            line = (f"| read 1/16: {MODES[v3]['label']} vs {MODES[v2]['label']} | >= {V3_VS_V2_TARGET}x "
                    f"faster | {speedup:.1f}x | {'yes' if met else 'NO'} | |")
            if cpu:
                c = ("cpu", "read_1_of_16")
                line += f" {med[v2][c] / med[v3][c]:.1f}x faster | |"
            lines.append(line)
            met_count += met
            total += 1
    return lines, met_count, total


def noise_lines(raw, med):
    lines = ["| mode | " + " | ".join(label for _, label in PHASES) + " |", "|" + "---|" * (len(PHASES) + 1)]
    for mode in med:
        lines.append("| " + MODES[mode]["label"] + " | "
                     + " | ".join(f"{spread(raw, mode, p):.0%}" for p, _ in PHASES) + " |")
    return lines


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
    targets, met, total = targets_table(med)
    md = [f"# {raw['title']}", ""] + machine_lines(raw) + [
        "",
        "## Medians (ratio to Spark default in brackets; lower is better)",
        "",
    ] + main_table(raw, med) + [""]
    if has_cpu(med):
        md += [
            "## Executor CPU time (summed over tasks; ratio to Spark default in brackets)",
            "",
            "What each phase costs the executors, from Spark's task metrics (event log). A read's "
            "wall time also holds Spark's fixed per-query cost (planning, scheduling, the shuffle, "
            "collecting), the same for every serializer; this is the part the cache decides.",
            "",
        ] + main_table(raw, med, cpu=True) + [""]
    generate = med[raw["modes"][0]]["generate"]
    if generate is not None:
        md += [f"Generating the rows without caching takes {fmt_seconds(generate)}; "
               "it is part of every build time.", ""]
    md += [
        f"## Targets ({met} of {total} met)",
        "",
    ] + targets + [
        "",
        "## Noise: (max - min) / median of each figure's samples",
        "",
    ] + noise_lines(raw, med)
    if any(row["disk"] for row in med.values()):
        md += ["", "**Warning:** some cache blocks spilled to disk; footprints include them."]
    md += ["", "## Correctness", ""]
    md.append("Every mode returned identical results for every query." if not mismatches
              else "RESULTS DIFFER: " + "; ".join(mismatches))
    if criterion_dir:
        crit = criterion_lines(criterion_dir)
        if crit:
            md += ["", "## Native codec (criterion, `cargo bench --bench codec`, 10,000 rows x 16 columns)", ""] + crit
    markdown = "\n".join(md) + "\n"
    console = "\n".join(main_table(raw, med) + [""] + targets)
    return Summary(markdown, console, mismatches)


def chart(raw, path):
    """Seconds per phase per mode (one panel per phase) and cache footprint."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    med = medians(raw)
    modes = list(med)
    labels = [MODES[m]["label"] for m in modes]
    colors = ["#7f7f7f" if m.startswith("spark-default") else "#1f77b4" if m.startswith("spark-arrow")
              else "#d62728" if m == HEADLINE else "#ff9896" for m in modes]
    panels = [("footprint", "cache footprint (MiB)", 1 / 2**20)] + [(p, l + " (s)", 1.0) for p, l in PHASES]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    for ax, (key, title, scale) in zip(axes.flat, panels):
        values = [med[m][key] * scale for m in modes]
        ax.barh(range(len(modes)), values, color=colors)
        ax.set_yticks(range(len(modes)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=10)
        for i, v in enumerate(values):
            ax.text(v, i, f" {v:.3g}", va="center", fontsize=7)
        ax.margins(x=0.18)
    c = raw["config"]
    fig.suptitle(f"{raw['title']}: Spark {raw['machine']['spark']}, {c['rows']:,} rows x 16 columns, "
                 f"{c['partitions']} partitions, local[{c['cores']}] (medians; lower is better)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def complete_iterations(raw):
    """An interrupted run's raw.json cut to its complete iterations (every mode measured alike)."""
    per_mode = {}
    for r in raw["results"]:
        per_mode.setdefault(r["mode"], []).append(r)
    done = min((len(per_mode.get(m, [])) for m in raw["modes"]), default=0)
    cut = dict(raw)
    cut["results"] = [r for r in raw["results"] if r["iteration"] < done]
    cut["config"] = dict(raw["config"], iterations=done)
    cut["title"] = (f"{raw['title']} (interrupted: {done} of {raw['config']['iterations']} "
                    f"iterations complete)")
    return cut


def main():
    """Summarises a raw.json again (e.g. an interrupted run's): summary.md and chart.png beside it."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("raw", help="raw.json written by run.py")
    parser.add_argument("--criterion", help="criterion output dir to summarise (target/criterion)")
    parser.add_argument("--no-chart", action="store_true")
    args = parser.parse_args()
    with open(args.raw) as f:
        raw = json.load(f)
    if not raw.get("complete", True):
        raw = complete_iterations(raw)
    out = os.path.dirname(os.path.abspath(args.raw))
    summary = summarize(raw, args.criterion)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary.markdown)
    if not args.no_chart:
        chart(raw, os.path.join(out, "chart.png"))
    print(summary.console)


if __name__ == "__main__":
    main()
