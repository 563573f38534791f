"""Reading executed plans (their tree strings): operator names, what reads the cache scan, and
which operators of a plan under Comet are Spark's own (Comet fell back to Spark for them).

No PySpark here: used by session.py and by report.py."""

# Operators that neither compute nor fall back: adaptive execution's wrappers, the cache scan
# and relation themselves, reuse markers.
NEUTRAL = {
    "AdaptiveSparkPlan", "ResultQueryStage", "ShuffleQueryStage", "BroadcastQueryStage",
    "TableCacheQueryStage", "AQEShuffleRead", "InMemoryTableScan", "InMemoryRelation",
    "ReusedExchange", "ReusedSubquery", "Subquery", "SubqueryBroadcast",
    # tablecache's read into Comet's Arrow: Comet's conversion, not a fallback to Spark.
    "TableCacheCometScan",
}


def operator(line):
    """The operator name of one line of a plan's tree string ("+- *(2) HashAggregate(...)")."""
    text = line.lstrip(" :+-")
    if text.startswith("*("):
        text = text.split(")", 1)[1].lstrip()
    for i, ch in enumerate(text):
        if ch in " ([":
            return text[:i]
    return text


def depth(line):
    return len(line) - len(line.lstrip(" :+-"))


SCANS = ("InMemoryTableScan", "CometInMemoryTableScan")


def final_lines(plan):
    """The lines of the plan that ran: under adaptive execution the "Final Plan" part only."""
    lines = plan.splitlines()
    marks = [i for i, line in enumerate(lines) if "== Final Plan ==" in line]
    if not marks:
        return lines
    end = next((i for i, line in enumerate(lines) if "== Initial Plan ==" in line), len(lines))
    return lines[marks[0] + 1:end]


def ancestors(lines, i):
    """The operators above line i of a tree string, nearest first."""
    out, level = [], depth(lines[i])
    for line in reversed(lines[:i]):
        if depth(line) < level:
            out.append(operator(line))
            level = depth(line)
    return out


def scan_parent(plan):
    """The operator that reads the first cache scan of an executed plan (adaptive execution's
    wrappers skipped): "" if nothing reads it, None if the plan has no cache scan."""
    lines = final_lines(plan)
    for i, line in enumerate(lines):
        if operator(line) in SCANS:
            return next((op for op in ancestors(lines, i) if op not in NEUTRAL), "")
    return None


# Comet reads the cache natively: its own cache scan, or ours decoding straight into Comet's
# Arrow (tablecache's CometScanAdapter).
COMET_NATIVE_READS = ("CometInMemoryTableScan", "TableCacheCometScan")


def comet_scan(plan):
    return any(operator(line) in COMET_NATIVE_READS for line in final_lines(plan))


def read_path(plan, comet):
    """columnar or row: how a query reads the cache scan.

    Spark alone: columnar when a ColumnarToRow transition is in the plan (our extension, or a
    serializer Spark itself reads columnar). Under Comet: columnar when Comet reads the cache
    natively (CometInMemoryTableScan, or our TableCacheCometScan) or a columnar-to-row or columnar-to-columnar transition
    or a Comet operator reads the scan; row when a row-to-columnar transition or a Spark row
    operator does."""
    if not comet:
        return "columnar" if "ColumnarToRow" in plan else "row"
    if comet_scan(plan):
        return "columnar"
    parent = scan_parent(plan) or ""
    if "RowToColumnar" in parent:
        return "row"
    return "columnar" if "ColumnarTo" in parent or parent.startswith("Comet") else "row"


def spark_operators(plan, cached=False):
    """The operators of a plan under Comet that are not Comet's (nor neutral), in plan order,
    each once: where Comet fell back to Spark. Without `cached`, what is under an
    InMemoryRelation (the plan the cache was built from) is left out."""
    seen, skip_below = [], None
    for line in final_lines(plan):
        name = operator(line)
        if skip_below is not None:
            if depth(line) > skip_below:
                continue
            skip_below = None
        if name == "InMemoryRelation" and not cached:
            skip_below = depth(line)
        if not name or name.startswith("==") or name.startswith("Comet") or name in NEUTRAL:
            continue
        if name not in seen:
            seen.append(name)
    return seen
