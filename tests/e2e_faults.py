"""Fault and concurrency end-to-end checks of dev.tablecache.spark.NativeCachedBatchSerializer.

Run by tests/run_e2e.sh through spark-submit on local-cluster[2,1,1024] (a master, two workers
and two executor JVMs inside one application) after tests/e2e_cache.py. Every check compares
with the same query on the uncached data, computed by Spark itself (sorted collected rows, NaN
compared as in e2e_cache.py). Checks:

1. concurrent queries: 8 Python threads share the SparkSession and run 8 different queries
   (aggregates, filters, projections, joins, a window) at once over one cached table;
2. a cache built (cache() + count) while other threads keep reading the first cached table;
3. an executor JVM killed (SIGKILL) while a MEMORY_ONLY cached table is read: the lost blocks
   are recomputed, the running query and the next one are correct, a new executor comes up;
4. a MEMORY_AND_DISK cache several times larger than storage memory spills to disk and reads
   back correctly (own SparkContext with tiny storage memory, Kryo serialization);
5. block healing: one flipped byte in a column payload of one block file (DISK_ONLY; a spilled
   MEMORY_AND_DISK block; one replica of a MEMORY_AND_DISK_2 block), with Java and with Kryo
   serialization (the frame sits in a different envelope in the block file): the reading task
   drops the block (one executor WARN), its retry recomputes it or reads the other replica, the
   query returns the uncached rows, the block is cached again and a later query reads it;
6. a broken writer (spark.tablecache.test.corruptFrames: every frame damaged, so is every
   recomputation): the query fails with the "not dropping it again" error after
   spark.task.maxFailures (4) attempts, without hanging.

The phases use their own SparkContexts: "main" (Java serialization: checks 1, 2, 5, 6, 3),
"spill" (Kryo, tiny storage memory: checks 4, 5) and "spill-java" (Java serialization, tiny
storage memory: check 5 on MEMORY_AND_DISK). TABLECACHE_TEST_SCALE=full runs bigger
sizes and more rounds. Prints "e2e-faults: N passed, N failed" last; exits non-zero on failure.
"""

import os
import shutil
import signal
import struct
import sys
import tempfile
import threading
import time
import traceback

from pyspark import SparkConf, SparkContext, StorageLevel
from pyspark.sql import SparkSession

from harness import Results, rows

SCALE = os.environ.get("TABLECACHE_TEST_SCALE", "smoke")
SIZES = {
    # rows/partitions of the shared table, concurrent rounds, reader threads while a cache is
    # built, the kill test's partitions and per-partition delay, the spill table (about 57
    # bytes a row on disk in V4, 90 in V3: more than twice the storage memory either way) and the spill phase's spark.memory.fraction: storage memory per
    # executor is (512 MB heap - 300 MB reserved) x fraction, about 2 MB (smoke) or 11 MB (full).
    # Keep one spill block (rows / partitions) well below that: a block that cannot be unrolled
    # in memory holds its unroll memory while the task reads it, and the task's own sort then
    # gets no execution memory (SparkOutOfMemoryError, whatever the cache serializer).
    "smoke": dict(rows=20_000, partitions=8, rounds=1, readers=2,
                  kill_rows=20_000, kill_partitions=8, kill_delay=1.0,
                  spill_rows=240_000, spill_partitions=16, spill_memory_fraction="0.01"),
    "full": dict(rows=200_000, partitions=16, rounds=5, readers=6,
                 kill_rows=200_000, kill_partitions=16, kill_delay=1.5,
                 spill_rows=1_500_000, spill_partitions=64, spill_memory_fraction="0.05"),
}[SCALE]

MAGIC = b"\x89TCF"
JOB_TIMEOUT = 600 if SCALE == "full" else 300  # seconds for one group of queries

TABLE_SQL = """
SELECT
  id,
  CAST(id % 16 AS INT) AS k,
  xxhash64(id) AS l,
  CASE WHEN id % 97 = 0 THEN double('NaN') WHEN id % 89 = 0 THEN NULL
       WHEN id % 83 = 0 THEN double('-0.0') ELSE (xxhash64(id, 7) % 1000000) / 1e6 END AS d,
  CASE WHEN id % 31 = 0 THEN NULL WHEN id % 31 = 1 THEN 'ünïcødé ✓ 日本語 😀'
       ELSE substr(sha2(CAST(id AS STRING), 256), 1, 8 + CAST(id % 20 AS INT)) END AS s,
  CAST(id * 0.01 AS DECIMAL(12,2)) AS dec,
  date_add(DATE'1960-01-01', CAST(id % 20000 AS INT)) AS dt,
  CASE WHEN id % 7 = 0 THEN NULL ELSE array(CAST(id AS INT), CAST(id % 5 AS INT)) END AS arr
FROM range(0, {rows}, 1, {partitions})
"""

# Eight different queries over the cached table t (no floating-point sums: their value would
# depend on the order partial results arrive in).
QUERIES = [
    "SELECT count(*), sum(l % 1000), min(s), max(s), sum(dec), max(dt) FROM t",
    "SELECT k, count(*), count(d), max(d), min(d), max(s), min(dt) FROM t GROUP BY k",
    "SELECT id, s FROM t WHERE s LIKE 'a1%' OR s = 'ünïcødé ✓ 日本語 😀'",
    "SELECT id, d FROM t WHERE isnan(d) OR d > 0.99 OR d = 0.0",
    "SELECT id * 2 AS id2, upper(s), l % 97, arr FROM t WHERE id % 50 = 0",
    "SELECT a.k, count(*), max(b.s), sum(b.dec) FROM t a JOIN t b ON a.id = b.id + 1 GROUP BY a.k",
    "SELECT a.id, b.id, a.s FROM t a JOIN t b ON a.l % 1000 = b.l % 1000 AND a.k = b.k "
    "WHERE a.id % 100 = 7 AND b.id % 100 = 3",
    "SELECT k, id, d, dense_rank() OVER (PARTITION BY k ORDER BY d, id) FROM t WHERE id % 37 = 0",
]

SECOND_TABLE_SQL = """
SELECT id AS uid, CAST(id % 13 AS INT) AS g, sha2(CAST(id AS STRING), 256) AS h,
       CAST(id AS DOUBLE) / 8 AS x
FROM range(0, {rows}, 1, {partitions})
"""
SECOND_QUERIES = [
    "SELECT g, count(*), min(h), max(x) FROM u GROUP BY g",
    "SELECT uid, h FROM u WHERE h LIKE 'ff%'",
    "SELECT t.id, u.h FROM t JOIN u ON t.id = u.uid WHERE t.k = 3 AND u.g = 5",
]

SPILL_SQL = """
SELECT id, xxhash64(id) AS l1, xxhash64(id, 1) AS l2, sha2(CAST(id AS STRING), 256) AS h
FROM range(0, {rows}, 1, {partitions})
"""
SPILL_QUERIES = [
    "SELECT count(*), sum(l1 % 1000), min(h), max(h), max(l2) FROM sp",
    "SELECT id, h FROM sp WHERE h LIKE 'abc%'",
    "SELECT id % 10 AS g, count(*), min(l1), max(h) FROM sp GROUP BY id % 10",
    "SELECT * FROM sp WHERE id % 5000 = 17",
]

CORRUPT_SQL = """
SELECT id, concat('value-', CAST(id AS STRING)) AS s, CAST(id AS DOUBLE) / 4 AS x
FROM range(0, 2000, 1, 2)
"""
CORRUPT_COLUMN = 1  # s: the payload that gets a flipped byte


# ---------------------------------------------------------------------------------------------
# Shared helpers


def wait_for(condition, timeout, what, interval=0.05):
    """Polls condition() until it returns a truthy value, which is returned."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class Threads:
    """Functions started each in its own thread; wait() returns [(result, exception)]."""

    def __init__(self, functions):
        self.outcomes = [(None, TimeoutError("did not finish"))] * len(functions)
        self.threads = [threading.Thread(target=self._run, args=(i, fn), daemon=True)
                        for i, fn in enumerate(functions)]
        for t in self.threads:
            t.start()

    def _run(self, i, fn):
        try:
            self.outcomes[i] = (fn(), None)
        except Exception as e:  # reported by the caller
            self.outcomes[i] = (None, e)

    def wait(self, spark, timeout=JOB_TIMEOUT):
        """Joins the threads. Past the timeout, all jobs are cancelled so that a hung query
        cannot hang the suite, and unfinished functions report a TimeoutError."""
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in self.threads):
            spark.sparkContext.cancelAllJobs()
        return list(self.outcomes)


def run_threads(spark, functions):
    return Threads(functions).wait(spark)


def storage_infos(sc):
    return list(sc._jsc.sc().getRDDStorageInfo())


def storage_info(sc):
    """The storage info of the one cached RDD."""
    infos = storage_infos(sc)
    if len(infos) != 1:
        raise AssertionError(f"expected one cached RDD, got {[i.name() for i in infos]}")
    return infos[0]


def fully_cached(info):
    return info.numCachedPartitions() == info.numPartitions()


def uses_cache(df):
    return "InMemoryTableScan" in df._jdf.queryExecution().executedPlan().toString()


def settled_storage_info(sc, condition, timeout=30):
    """The one cached RDD's storage info once condition(info) holds, or the last one seen: the
    driver's status store learns about block updates asynchronously (listener bus)."""
    try:
        return wait_for(lambda: (lambda i: i if condition(i) else None)(storage_info(sc)),
                        timeout, "the storage status")
    except TimeoutError:
        return storage_info(sc)


def block_locations(sc, rdd_id, attempts=5):
    """{executor id: number of cached blocks of rdd_id it holds}, from the status store.

    The store's partition list is a live structure that the listener updates in place, so this
    reads a copy (toList) and retries a read torn by a concurrent update.
    """
    for attempt in range(attempts):
        try:
            partitions = sc._jsc.sc().statusStore().rdd(rdd_id).partitions()
            counts = {}
            if partitions.isDefined():
                it = partitions.get().toList().iterator()
                while it.hasNext():
                    for executor in scala_list(it.next().executors()):
                        counts[executor] = counts.get(executor, 0) + 1
            return counts
        except Exception:
            if attempt == attempts - 1:
                raise


def scala_list(seq):
    """A Python list of a Scala collection's elements."""
    it = seq.iterator()
    out = []
    while it.hasNext():
        out.append(it.next())
    return out


def stage_under_way(sc):
    """A running stage with at least one task done and one running, else None."""
    tracker = sc.statusTracker()
    for stage in tracker.getActiveStageIds():
        info = tracker.getStageInfo(stage)
        if info and info.numCompletedTasks >= 1 and info.numActiveTasks >= 1:
            return info
    return None


def executor_processes(app_id):
    """{executor id: pid} of this application's live CoarseGrainedExecutorBackend JVMs."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if ("org.apache.spark.executor.CoarseGrainedExecutorBackend" in args
                and app_id in args and "--executor-id" in args and process_alive(int(entry))):
            found[args[args.index("--executor-id") + 1]] = int(entry)
    return found


def process_alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def executor_storage_memory(sc):
    """{executor id: its storage memory in bytes}, the driver left out."""
    executors = scala_list(sc._jsc.sc().statusStore().executorList(True))
    return {e.id(): e.maxMemory() for e in executors if e.id() != "driver"}


def registered_executors(sc):
    """Number of executors registered with the driver (the driver itself not counted)."""
    return sc._jsc.sc().getExecutorMemoryStatus().size() - 1


def query_checks(results, spark, label, queries, expected):
    """Runs each query on the cached view(s) and checks it against expected[query]."""
    for q in queries:
        got = rows(spark.sql(q))
        results.check(f"{label}: {q}", got == expected[q],
                      f"expected {len(expected[q])} rows, got {len(got)}")


# ---------------------------------------------------------------------------------------------
# CRC32C and the frame inside a block file (docs/FORMAT.md)


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC32C_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def java_frame_positions(data, magic_at):
    """File offsets of the frame bytes written by NativeCachedBatch.writeExternal.

    Java serialization writes externalizable data as block-data chunks of at most 1024 bytes,
    each behind a header (0x77 + u8 length, or 0x7A + big-endian i32 length). The first chunk
    starts with numRows and the frame length (big-endian i32 each), then the frame follows.
    """
    start = magic_at - 8
    if magic_at >= 10 and data[start - 2] == 0x77:
        header = start - 2
    elif magic_at >= 13 and data[start - 5] == 0x7A:
        header = start - 5
    else:
        raise AssertionError(f"no block-data header before the frame at {magic_at}")
    frame_len = struct.unpack(">i", data[magic_at - 4:magic_at])[0]
    logical = []  # file offsets of numRows, length and frame bytes, in order
    pos = header
    while len(logical) < frame_len + 8:
        if data[pos] == 0x77:
            n, pos = data[pos + 1], pos + 2
        elif data[pos] == 0x7A:
            n, pos = struct.unpack(">i", data[pos + 1:pos + 5])[0], pos + 5
        else:
            raise AssertionError(f"expected a block-data header at {pos}, got {data[pos]:#x}")
        logical.extend(range(pos, pos + n))
        pos += n
    return logical[8:8 + frame_len]


def kryo_frame_positions(data, magic_at):
    """File offsets of the frame bytes written by NativeCachedBatch.write(Kryo): numRows, the
    frame length, then the frame, contiguous. Spark's Kryo output writes the length as a
    varint or as 4 bytes (unsafe output); either must equal the frame's own length."""
    length = frame_length(data, magic_at)
    before = data[max(0, magic_at - 5):magic_at]
    encodings = [struct.pack("<i", length), struct.pack(">i", length), varint(length)]
    if not any(before.endswith(e) for e in encodings):
        raise AssertionError(f"no frame length {length} before the frame at {magic_at}: "
                             f"{bytes(before).hex()}")
    return list(range(magic_at, magic_at + length))


def varint(value):
    """Kryo's positive varint: 7 bits a byte, least significant first."""
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def entry_len(version):
    """A directory entry's bytes: V3's 20, V4's 24 (it states the decoded length too)."""
    if version not in (3, 4):
        raise AssertionError(f"not a V3 or V4 frame: version {version}")
    return 24 if version == 4 else 20


def frame_length(data, at):
    """A contiguous V3 or V4 frame's length from its header and directory."""
    width = entry_len(data[at + 4])
    column_count, schema_len, stats_len = struct.unpack_from("<III", data, at + 12)
    directory_at = at + 28 + schema_len + stats_len
    stored = sum(struct.unpack_from("<I", data, directory_at + width * i + 4)[0]
                 for i in range(column_count))
    return directory_at + width * column_count - at + stored


def parse_frame(frame):
    """Header and V3/V4 directory of a frame; verifies every checksum so that offsets are right."""
    if frame[:4] != MAGIC:
        raise AssertionError(f"not a frame: {frame[:5].hex()}")
    width = entry_len(frame[4])
    flags = frame[5]
    row_count, column_count, schema_len, stats_len, meta_checksum = struct.unpack_from(
        "<IIIII", frame, 8)
    if (flags >> 1) & 3 != 1:
        raise AssertionError(f"frame checksum kind is not CRC32C: flags {flags:#x}")
    directory_at = 28 + schema_len + stats_len
    payload_start = directory_at + width * column_count
    entries = []
    for i in range(column_count):
        offset, stored_len, raw_len, checksum, codec = struct.unpack_from(
            "<IIIIB", frame, directory_at + width * i)
        entries.append(dict(offset=offset, stored_len=stored_len, raw_len=raw_len,
                            checksum=checksum, codec=codec))
    end = payload_start + sum(e["stored_len"] for e in entries)
    if end != len(frame):
        raise AssertionError(f"frame length {len(frame)}, directory says {end}")
    if crc32c(frame[:24] + frame[28:payload_start]) != meta_checksum:
        raise AssertionError("meta checksum does not match: frame located wrongly")
    for i, e in enumerate(entries):
        at = payload_start + e["offset"]
        if crc32c(frame[at:at + e["stored_len"]]) != e["checksum"]:
            raise AssertionError(f"payload {i} checksum does not match: frame located wrongly")
    return dict(rows=row_count, columns=column_count, payload_start=payload_start,
                entries=entries)


def corrupt_one_payload_byte(path, serializer, column):
    """Flips one byte in the middle of `column`'s payload of the first frame in a block file.

    Returns a description (file offset, frame layout) for the report.
    """
    with open(path, "rb") as f:
        data = bytearray(f.read())
    magic_at = data.find(MAGIC)
    if magic_at < 0:
        raise AssertionError(f"no frame magic in {path}")
    positions = (java_frame_positions if serializer == "java" else kryo_frame_positions)(
        data, magic_at)
    frame = bytes(data[p] for p in positions)
    layout = parse_frame(frame)
    entry = layout["entries"][column]
    frame_offset = layout["payload_start"] + entry["offset"] + entry["stored_len"] // 2
    file_offset = positions[frame_offset]
    data[file_offset] ^= 0x5A
    with open(path, "r+b") as f:
        f.seek(file_offset)
        f.write(bytes([data[file_offset]]))
    return (f"{os.path.basename(path)}: frame at {magic_at} ({len(frame)} bytes, "
            f"{layout['rows']} rows), column {column} payload {entry['stored_len']} bytes "
            f"(codec {entry['codec']}), flipped frame byte {frame_offset} = file byte "
            f"{file_offset}")


def block_files(local_dir, rdd_id, since):
    """Block files of rdd_id under local_dir written at or after `since` (a time.time()): RDD
    ids restart with every SparkContext, and all of this script's contexts share local_dir."""
    found = []
    for root, _dirs, files in os.walk(local_dir):
        for f in files:
            path = os.path.join(root, f)
            if f.startswith(f"rdd_{rdd_id}_") and os.path.getmtime(path) >= since - 1:
                found.append(path)
    return sorted(found)


# ---------------------------------------------------------------------------------------------
# The checks: one function each


def check_concurrent_queries(results, spark, expected):
    """Check 1: 8 different queries at once, in threads sharing the SparkSession."""
    barrier = threading.Barrier(len(QUERIES))

    def query(q):
        def run():
            barrier.wait(timeout=60)
            return rows(spark.sql(q))
        return run

    for r in range(SIZES["rounds"]):
        barrier.reset()
        outcomes = run_threads(spark, [query(q) for q in QUERIES])
        for q, (got, error) in zip(QUERIES, outcomes):
            detail = repr(error) if error else f"expected {len(expected[q])} rows, got {len(got)}"
            results.check(f"concurrent round {r + 1}: {q}",
                          error is None and got == expected[q], detail)


def check_cache_built_while_reading(results, spark, u, expected):
    """Check 2: cache u (cache() + count) while reader threads keep querying the cached t."""
    sc = spark.sparkContext
    total = u.count()
    build = {}
    built = threading.Event()

    def reader(offset):
        def run():
            reads = []  # (query, start, end, correct)
            i = offset
            while not built.is_set() or len(reads) < 2:
                q = QUERIES[i % len(QUERIES)]
                start = time.monotonic()
                got = rows(spark.sql(q))
                reads.append((q, start, time.monotonic(), got == expected[q]))
                i += 1
            return reads
        return run

    def builder():
        try:
            build["start"] = time.monotonic()
            u.cache()
            build["count"] = u.count()
            build["end"] = time.monotonic()
        finally:
            built.set()

    try:
        outcomes = run_threads(spark, [builder] + [reader(i) for i in range(SIZES["readers"])])
        errors = [repr(e) for _, e in outcomes if e is not None]
        results.check("build while reading: no error", not errors, "; ".join(errors))
        results.check("build while reading: count of the new cache", build.get("count") == total,
                      f"{build.get('count')} rows, uncached {total}")
        reads = [r for got, _ in outcomes[1:] if got for r in got]
        wrong = [q for q, _, _, ok in reads if not ok]
        results.check("build while reading: every concurrent read of t correct", not wrong,
                      f"{len(reads)} reads, wrong: {wrong}")
        overlapping = [r for r in reads
                       if "end" in build and r[1] < build["end"] and r[2] > build["start"]]
        results.check("build while reading: reads overlapped the build", len(overlapping) > 0,
                      f"{len(overlapping)} of {len(reads)} reads during the "
                      f"{build.get('end', 0) - build.get('start', 0):.1f}s build")

        def both_cached():
            infos = storage_infos(sc)
            return len(infos) == 2 and all(fully_cached(i) for i in infos)

        try:
            wait_for(both_cached, 30, "both tables cached")
        except TimeoutError:
            pass
        infos = [(i.id(), i.numCachedPartitions(), i.numPartitions()) for i in storage_infos(sc)]
        results.check("build while reading: both tables fully cached", both_cached(), infos)
        results.check("build while reading: queries use the cache",
                      all(uses_cache(spark.sql(q)) for q in SECOND_QUERIES))
        query_checks(results, spark, "after build", SECOND_QUERIES, expected)
        query_checks(results, spark, "after build", QUERIES[::3], expected)
    finally:
        u.unpersist(blocking=True)


def check_executor_killed(results, spark):
    """Check 3: SIGKILL one executor JVM while a MEMORY_ONLY cached table is read."""
    sc = spark.sparkContext
    app_id = sc.applicationId
    partitions = SIZES["kill_partitions"]
    delay = SIZES["kill_delay"]
    kt = spark.sql(TABLE_SQL.format(rows=SIZES["kill_rows"], partitions=partitions))
    kt.createOrReplaceTempView("kt")
    after_query = ("SELECT k, count(*), max(s), min(d), sum(dec) FROM kt WHERE id % 3 <> 1 "
                   "GROUP BY k")
    want_rows = rows(kt)
    want_after = rows(spark.sql(after_query))

    def slow_rows(iterator):
        time.sleep(delay)  # the workload: each task takes a while so the kill lands mid-query
        for r in iterator:
            yield tuple(r)

    def slow_query():
        return sorted(repr(r) for r in kt.rdd.mapPartitions(slow_rows).collect())

    try:
        kt.persist(StorageLevel.MEMORY_ONLY)
        kt.count()
        info = settled_storage_info(sc, fully_cached)
        rdd_id = info.id()
        locations = block_locations(sc, rdd_id)
        results.check("kill: every partition cached in memory", fully_cached(info)
                      and info.diskSize() == 0, f"{info.numCachedPartitions()}/{partitions}, "
                      f"blocks per executor {locations}")
        executors = executor_processes(app_id)
        victim = max(locations, key=locations.get)
        if not results.check("kill: executor JVMs found",
                             victim in executors and len(executors) == 2,
                             f"executor pids {executors}, blocks per executor {locations}"):
            return
        pid = executors[victim]

        query = Threads([slow_query])
        stage = wait_for(lambda: stage_under_way(sc), 120, "the slow query to be under way")
        os.kill(pid, signal.SIGKILL)
        print(f"kill: SIGKILL executor {victim} (pid {pid}, held {locations[victim]} of "
              f"{partitions} cached blocks) during stage {stage.stageId}: "
              f"{stage.numCompletedTasks}/{stage.numTasks} tasks done, "
              f"{stage.numActiveTasks} running", flush=True)
        wait_for(lambda: not process_alive(pid), 30, f"pid {pid} to die")
        results.check("kill: the executor process died", not process_alive(pid), f"pid {pid}")
        try:
            wait_for(lambda: victim not in block_locations(sc, rdd_id), 60, "the blocks' loss")
        except TimeoutError:
            pass
        locations_after = block_locations(sc, rdd_id)
        results.check("kill: the driver dropped the killed executor's blocks",
                      victim not in locations_after, f"blocks per executor {locations_after}")
        [(got, error)] = query.wait(spark)
        results.check("kill: query running during the kill correct",
                      error is None and got == want_rows,
                      repr(error) if error else f"expected {len(want_rows)} rows, got {len(got)}")
        got_after = rows(spark.sql(after_query))
        results.check(f"kill: next query correct: {after_query}", got_after == want_after,
                      f"expected {len(want_after)} rows, got {len(got_after)}")
        results.check("kill: next query used the cache", uses_cache(spark.sql(after_query)))
        info = settled_storage_info(sc, fully_cached)
        results.check("kill: lost blocks recomputed and cached again", fully_cached(info),
                      f"{info.numCachedPartitions()}/{partitions}, blocks per executor "
                      f"{block_locations(sc, rdd_id)}")
        wait_for(lambda: registered_executors(sc) == 2, 180, "two registered executors")
        replaced = [e for e in executor_processes(app_id) if e not in executors]
        results.check("kill: a new executor replaced the killed one", len(replaced) == 1,
                      f"new executor(s) {replaced}, now {executor_processes(app_id)}")
    finally:
        kt.unpersist(blocking=True)


def check_spill(results, spark, local_dir):
    """Check 4: a MEMORY_AND_DISK cache larger than storage memory (run with a tiny one)."""
    sc = spark.sparkContext
    sp = spark.sql(SPILL_SQL.format(rows=SIZES["spill_rows"], partitions=SIZES["spill_partitions"]))
    sp.createOrReplaceTempView("sp")
    expected = {q: rows(spark.sql(q)) for q in SPILL_QUERIES}
    storage = executor_storage_memory(sc)
    since = time.time()
    try:
        sp.persist(StorageLevel.MEMORY_AND_DISK)
        count = sp.count()
        info = settled_storage_info(sc, fully_cached)
        files = block_files(local_dir, info.id(), since)
        on_disk = sum(os.path.getsize(f) for f in files)
        detail = (f"{info.numCachedPartitions()}/{info.numPartitions()} partitions, "
                  f"memSize {info.memSize()}, diskSize {info.diskSize()}, {len(files)} block "
                  f"files of {on_disk} bytes, storage memory per executor {storage}")
        print(f"spill: {detail}", flush=True)
        results.check("spill: count", count == SIZES["spill_rows"], count)
        results.check("spill: every partition cached", fully_cached(info), detail)
        results.check("spill: blocks were written to disk", info.diskSize() > 0 and files, detail)
        results.check("spill: cache larger than the executors' storage memory",
                      info.memSize() + on_disk > 2 * sum(storage.values()), detail)
        results.check("spill: queries use the cache", all(uses_cache(spark.sql(q))
                                                          for q in SPILL_QUERIES))
        query_checks(results, spark, "spill", SPILL_QUERIES, expected)
        info = storage_info(sc)
        files = block_files(local_dir, info.id(), since)
        results.check("spill: still on disk after the queries", info.diskSize() > 0 and files,
                      f"memSize {info.memSize()}, diskSize {info.diskSize()}, {len(files)} block "
                      f"files of {sum(os.path.getsize(f) for f in files)} bytes")
    finally:
        sp.unpersist(blocking=True)


def executor_log_lines(sc, needle):
    """BlockHealer's WARN lines containing needle in this application's executor logs (local-cluster workers keep
    them under $SPARK_HOME/work/<app id>/<executor id>/stderr)."""
    found = []
    work = os.path.join(os.environ.get("SPARK_HOME", ""), "work", sc.applicationId)
    for root, _dirs, files in os.walk(work):
        for f in files:
            if f == "stderr":
                with open(os.path.join(root, f), errors="replace") as log:
                    found.extend(line.strip() for line in log
                                 if needle in line and "WARN BlockHealer" in line)
    return found


# What check 5 caches and damages: the small table (DISK_ONLY, one block per executor) or the
# spill table (MEMORY_AND_DISK*, larger than storage memory so that blocks sit in files).
CORRUPT_TABLES = {
    "small": dict(sql=CORRUPT_SQL, view="c", column=CORRUPT_COLUMN,
                  query="SELECT id, s, x FROM c", intact="SELECT sum(id), count(*) FROM c"),
    "spill": dict(sql=SPILL_SQL.format(rows=SIZES["spill_rows"],
                                       partitions=SIZES["spill_partitions"]),
                  view="cs", column=3,
                  query="SELECT count(*), sum(l1 % 1000), min(h), max(h), max(l2) FROM cs",
                  intact="SELECT sum(id), count(*) FROM cs"),
}


def check_corrupt_block(results, spark, local_dir, serializer, level_name, table):
    """Check 5: a flipped payload byte in one block file heals: the reading task drops the block,
    its retry recomputes it (or reads the other replica) and the query returns the right rows."""
    sc = spark.sparkContext
    spec = CORRUPT_TABLES[table]
    label = f"corrupt block ({serializer}, {level_name})"
    c = spark.sql(spec["sql"])
    c.createOrReplaceTempView(spec["view"])
    want = rows(spark.sql(spec["query"]))
    want_intact = rows(spark.sql(spec["intact"]))
    try:
        since = time.time()
        c.persist(getattr(StorageLevel, level_name))
        c.count()
        info = settled_storage_info(sc, fully_cached)
        rdd_id = info.id()
        files = [f for f in block_files(local_dir, rdd_id, since)
                 if MAGIC in open(f, "rb").read()]
        if not results.check(f"{label}: block files with frames found", files,
                             f"rdd {rdd_id} under {local_dir}, memSize {info.memSize()}, "
                             f"diskSize {info.diskSize()}"):
            return
        victim = files[0]
        block = os.path.basename(victim)
        copies = sum(1 for f in files if os.path.basename(f) == block)
        what = corrupt_one_payload_byte(victim, serializer, spec["column"])
        print(f"{label}: {what} ({copies} cop{'y' if copies == 1 else 'ies'} on disk)", flush=True)
        got, error = None, None
        try:
            got = rows(spark.sql(spec["query"]))
        except Exception as e:
            error = str(e)
        results.check(f"{label}: the query succeeded with the uncached rows",
                      error is None and got == want,
                      error[:300] if error else f"expected {len(want)} rows, got {len(got)}")
        dropped = executor_log_lines(sc, f"dropped damaged cached block {block}")
        print(f"{label}: {dropped[0] if dropped else 'no drop logged'}", flush=True)
        # With two copies the task may be served the healthy one (Spark prefers the local copy),
        # and then nothing is damaged from its point of view: no drop is right too.
        drops_allowed = {1} if copies == 1 else {0, 1}
        results.check(f"{label}: the damaged block was dropped (executor WARN)"
                      + ("" if copies == 1 else ", or the healthy replica was read"),
                      len(dropped) in drops_allowed
                      and all("CHECKSUM_MISMATCH" in line for line in dropped),
                      f"{len(dropped)} WARN lines for {block}")
        info = settled_storage_info(sc, fully_cached)
        results.check(f"{label}: the block is cached again", fully_cached(info),
                      f"{info.numCachedPartitions()}/{info.numPartitions()}")
        again = rows(spark.sql(spec["query"]))
        # A replicated block's damaged copy may first be read now (and dropped, once).
        drops_after = len(executor_log_lines(sc, f"dropped damaged cached block {block}"))
        results.check(f"{label}: a later query reads the rebuilt block",
                      again == want
                      and (drops_after == 1 if copies == 1 else drops_after <= 1),
                      f"expected {len(want)} rows, got {len(again)}, {drops_after} drops")
        results.check(f"{label}: a query of intact columns still correct",
                      rows(spark.sql(spec["intact"])) == want_intact)
    finally:
        c.unpersist(blocking=True)


def check_broken_writer(results, spark):
    """Check 6: every frame written is damaged (spark.tablecache.test.corruptFrames), so the
    recomputed block is damaged too: healing stops after one drop per partition and the job
    fails with that error within spark.task.maxFailures, without hanging."""
    label = "broken writer"
    c = spark.sql(CORRUPT_SQL)
    try:
        spark.conf.set("spark.tablecache.test.corruptFrames", "true")
        c.persist(StorageLevel.MEMORY_ONLY)
        c.count()  # row counts only: no column is decoded yet
    finally:
        spark.conf.unset("spark.tablecache.test.corruptFrames")
    try:
        began = time.monotonic()
        [(got, error)] = run_threads(spark, [lambda: c.select("id", "s").collect()])
        took = time.monotonic() - began
        message = str(error or "")
        print(f"{label}: failed after {took:.0f}s: "
              f"{message[message.find('tablecache:'):][:300]!r}", flush=True)
        results.check(f"{label}: the query failed", got is None and error is not None,
                      f"{len(got)} rows" if got is not None else "")
        results.check(f"{label}: not by the suite's timeout", not isinstance(error, TimeoutError),
                      f"{took:.0f}s")
        results.check(f"{label}: error says healing stopped",
                      "not dropping it again" in message and "CHECKSUM_MISMATCH" in message,
                      message[:300])
        results.check(f"{label}: within the task-failure limit", "failed 4 times" in message,
                      message[:200])
    finally:
        c.unpersist(blocking=True)


# ---------------------------------------------------------------------------------------------
# Phases


def start(app_name, local_dir, settings):
    """A new SparkContext (local-cluster, from spark-submit) and session with these settings.

    spark.local.dir is where executors keep block files; Spark fixes it once per JVM, so every
    phase gets the same directory. spark.rdd.compress=false keeps the frame bytes in block files
    as written (a flipped byte in an LZ4-compressed block would be caught by LZ4's own checksum
    before tablecache sees the frame).
    """
    began = time.monotonic()
    conf = SparkConf().setAppName(app_name).set("spark.local.dir", local_dir)
    conf.set("spark.rdd.compress", "false")
    for key, value in settings.items():
        conf.set(key, value)
    sc = SparkContext(conf=conf)
    spark = SparkSession(sc)
    wait_for(lambda: registered_executors(sc) == 2, 180, "two executors")
    print(f"-- {app_name}: {sc.applicationId}, executors up in {time.monotonic() - began:.0f}s",
          flush=True)
    return spark


def guarded(results, name, fn, *args):
    """Runs one check; an unexpected error fails it without hiding the others."""
    began = time.monotonic()
    try:
        fn(results, *args)
    except Exception:
        traceback.print_exc()
        results.check(f"{name}: no error", False)
    print(f"-- {name}: {time.monotonic() - began:.0f}s", flush=True)


def shared_tables(results, spark):
    """Views t (cached here) and u (cached by check 2) and every query's rows before caching.

    Returns (t, u, {query: uncached rows}) for QUERIES and SECOND_QUERIES.
    """
    t = spark.sql(TABLE_SQL.format(rows=SIZES["rows"], partitions=SIZES["partitions"]))
    t.createOrReplaceTempView("t")
    u = spark.sql(SECOND_TABLE_SQL.format(rows=SIZES["rows"], partitions=SIZES["partitions"]))
    u.createOrReplaceTempView("u")
    expected = {q: rows(spark.sql(q)) for q in QUERIES + SECOND_QUERIES}
    results.check("NaN rows exist uncached", any("nan" in r for r in expected[QUERIES[3]]))
    t.cache()
    t.count()
    info = settled_storage_info(spark.sparkContext, fully_cached)
    results.check("t fully cached", fully_cached(info),
                  f"{info.numCachedPartitions()}/{info.numPartitions()}")
    results.check("queries use the cache", all(uses_cache(spark.sql(q)) for q in QUERIES))
    return t, u, expected


def main_phase(results, local_dir):
    """Checks 1, 2, 5 (with Java serialization) and 3 on a default-sized local cluster."""
    spark = start("tablecache-e2e-faults", local_dir, {
        "spark.serializer": "org.apache.spark.serializer.JavaSerializer",
    })
    sc = spark.sparkContext
    try:
        serializer = spark.conf.get("spark.sql.cache.serializer")
        results.check("serializer configured",
                      serializer == "dev.tablecache.spark.NativeCachedBatchSerializer", serializer)
        capability = sc._jvm.dev.tablecache.jni.Capability.current().toString()
        print(f"spark {spark.version}, master {sc.master}, app {sc.applicationId}, "
              f"scale {SCALE}, driver capability {capability}", flush=True)
        results.check("native library on the driver", capability == "V4", capability)

        t, u, expected = shared_tables(results, spark)
        guarded(results, "concurrent queries", check_concurrent_queries, spark, expected)
        guarded(results, "build while reading", check_cache_built_while_reading, spark, u,
                expected)
        t.unpersist(blocking=True)
        guarded(results, "corrupt block (java, DISK_ONLY)", check_corrupt_block, spark, local_dir,
                "java", "DISK_ONLY", "small")
        guarded(results, "broken writer", check_broken_writer, spark)
        guarded(results, "kill", check_executor_killed, spark)
    finally:
        spark.stop()


def spill_phase(results, local_dir):
    """Check 4 with storage memory of a few MB per executor, and check 5 with Kryo."""
    spark = start("tablecache-e2e-faults-spill", local_dir, {
        "spark.executor.memory": "512m",
        "spark.memory.fraction": SIZES["spill_memory_fraction"],
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
        "spark.kryo.registrationRequired": "true",
        "spark.kryo.registrator": "dev.tablecache.spark.TableCacheKryoRegistrator",
    })
    try:
        guarded(results, "spill", check_spill, spark, local_dir)
        for level, table in (("DISK_ONLY", "small"), ("MEMORY_AND_DISK", "spill"),
                             ("MEMORY_AND_DISK_2", "spill")):
            guarded(results, f"corrupt block (kryo, {level})", check_corrupt_block, spark,
                    local_dir, "kryo", level, table)
    finally:
        spark.stop()


def spill_java_phase(results, local_dir):
    """Check 5 on a spilled MEMORY_AND_DISK block with Java serialization (tiny storage memory)."""
    spark = start("tablecache-e2e-faults-spill-java", local_dir, {
        "spark.executor.memory": "512m",
        "spark.memory.fraction": SIZES["spill_memory_fraction"],
        "spark.serializer": "org.apache.spark.serializer.JavaSerializer",
    })
    try:
        guarded(results, "corrupt block (java, MEMORY_AND_DISK)", check_corrupt_block, spark,
                local_dir, "java", "MEMORY_AND_DISK", "spill")
    finally:
        spark.stop()


def main():
    results = Results(echo_passes=True)
    began = time.monotonic()
    local_dir = tempfile.mkdtemp(prefix="tablecache-faults-")
    try:
        for name, phase in (("main", main_phase), ("spill", spill_phase),
                            ("spill-java", spill_java_phase)):
            try:
                phase(results, local_dir)
            except Exception:
                traceback.print_exc()
                results.check(f"phase {name}: no error", False)
    finally:
        shutil.rmtree(local_dir, ignore_errors=True)
    print(f"e2e-faults: scale {SCALE}, {time.monotonic() - began:.0f}s", flush=True)
    print(results.summary("e2e-faults"), flush=True)
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
