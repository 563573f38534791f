"""Damage outside the frame: the stored form of cached batches in DISK_ONLY block files.

A cached batch on disk is the batch object serialized by spark.serializer: Java serialization
(NativeCachedBatch.writeExternal) or Kryo (NativeCachedBatch.write) put a row count and a frame
length in front of the frame, and no checksum covers them. This suite edits those fields (and,
as heavy damage, many bytes) in DISK_ONLY block files and checks the one promise: the query
returns the uncached rows (the block healed: dropped, recomputed) or fails with a
TableCacheException; never wrong rows, never an Error, never a dead JVM.

Run by tests/run_e2e.sh through spark-submit. It starts one SparkContext per
(master, spark.serializer, spark.rdd.compress):
  - masters local[2] (no task retries: a damaged block fails its query, names the damage, is
    dropped, and the next query recomputes it) and local-cluster[2,1,1024] (retries: the query
    heals and returns the uncached rows);
  - Java and Kryo serialization;
  - spark.rdd.compress off (Spark's default for Scala and Java applications: the fields are
    raw in the file) and on (PySpark's default: the block is an LZ4 stream; a field edit is
    made in the decompressed stream and compressed again, so LZ4's checksum passes and the
    damage reaches tablecache; heavy damage is also made to the compressed bytes themselves).
Damage kinds, one block each: row count up by 1, row count down by 1, frame length near 2 GiB,
frame length 100 bytes short, heavy damage (64 bytes overwritten inside the frame's envelope),
and for compressed blocks heavy damage to the LZ4 bytes.

    e2e_stored_damage.py [MASTER ...]      (default: local[2] local-cluster[2,1,1024])

Prints one line per case and "e2e-stored-damage: N passed, N failed" last.
"""

import os
import random
import shutil
import struct
import sys
import tempfile
import time
import traceback

from pyspark import SparkConf, SparkContext, StorageLevel
from pyspark.sql import SparkSession

from harness import Results, rows
from e2e_faults import (MAGIC, block_files, frame_length, registered_executors, varint,
                        wait_for)

TABLE_SQL = """
SELECT id, CAST(id % 16 AS INT) AS k, concat('value-', CAST(id AS STRING)) AS s,
       CAST(id AS DOUBLE) / 4 AS x, CAST(id * 0.01 AS DECIMAL(12,2)) AS dec
FROM range(0, 6000, 1, 6)
"""
QUERY = ("SELECT k, count(*), sum(id), max(s), min(s), sum(x), sum(dec) FROM d GROUP BY k")
# The read paths a damaged block can be met on, one per case in turn: columnar (the extension's
# rule, or Comet's native operators when the session runs Comet), Spark's row path, and a global
# aggregate answered from the frames' stats.
PATHS = [
    ("columnar", QUERY, {}),
    ("rows", QUERY, {"spark.tablecache.columnarRead": "false"}),
    ("aggregates from stats", "SELECT count(*), max(id), min(x), max(dec) FROM d", {}),
]
KINDS = ["rows+1", "rows-1", "length huge", "length short", "heavy"]
HUGE = 0x7FFFFFF0
# E2E_DAMAGE_KINDS (comma-separated) runs only those kinds, e.g. to compare an older jar.
ONLY_KINDS = [k for k in os.environ.get("E2E_DAMAGE_KINDS", "").split(",") if k]


# ---------------------------------------------------------------------------------------------
# Where the two fields are in a decoded (uncompressed) block stream


def java_fields(data, magic_at):
    """(offsets of numRows' 4 bytes, offsets of the length's 4 bytes) before the frame at
    magic_at: Java serialization writes them big-endian at the start of the object's first
    block-data chunk (0x77 + u8 length or 0x7A + i32 length), the frame right after."""
    start = magic_at - 8
    if data[start - 2] == 0x77 or data[start - 5] == 0x7A:
        return list(range(start, start + 4)), list(range(start + 4, start + 8))
    raise AssertionError(f"no block-data header before the frame at {magic_at}")


def kryo_fields(data, magic_at):
    """(offsets of numRows, (start, end) of the length, the length's encoding, numRows' byte
    order) before the frame at magic_at: Kryo writes numRows as an int, the length as a varint
    (or a 4-byte int with Spark's unsafe Kryo output), then the frame. Found by the frame's own
    length and row count, so a wrong guess cannot go unnoticed."""
    length = frame_length(data, magic_at)
    header_rows = struct.unpack_from("<I", data, magic_at + 8)[0]
    for encoding, encoded in (("varint", varint(length)), (">i", struct.pack(">i", length)),
                              ("<i", struct.pack("<i", length))):
        start = magic_at - len(encoded)
        if bytes(data[start:magic_at]) != encoded:
            continue
        for order in (">i", "<i"):
            if struct.unpack(order, bytes(data[start - 4:start]))[0] == header_rows:
                return list(range(start - 4, start)), (start, magic_at), encoding, order
    raise AssertionError(f"no frame length {length} and row count {header_rows} before the "
                         f"frame at {magic_at}: {bytes(data[max(0, magic_at - 12):magic_at]).hex()}")


def encode_length(encoding, value):
    return varint(value) if encoding == "varint" else struct.pack(encoding, value)


def damage(data, serializer, kind, seed):
    """Applies one kind of damage to the first stored batch of a decoded block stream."""
    data = bytearray(data)
    magic_at = data.find(MAGIC)
    if magic_at < 0:
        raise AssertionError("no frame in the block")
    if serializer == "java":
        rows_at, len_at = java_fields(data, magic_at)
        get = lambda at: struct.unpack(">i", bytes(data[at[0]:at[-1] + 1]))[0]
        rows_value, len_value = get(rows_at), get(len_at)

        def put_len(v):
            data[len_at[0]:len_at[-1] + 1] = struct.pack(">i", v)
    else:
        rows_at, (vs, ve), encoding, order = kryo_fields(data, magic_at)
        rows_value = struct.unpack(order, bytes(data[rows_at[0]:rows_at[-1] + 1]))[0]
        len_value = frame_length(data, magic_at)

        def put_len(v):  # a varint may change size: the stream shifts, as a real edit would
            data[vs:ve] = encode_length(encoding, v)
    byte_order = ">i" if serializer == "java" else order
    if kind == "rows+1":
        data[rows_at[0]:rows_at[-1] + 1] = struct.pack(byte_order, rows_value + 1)
    elif kind == "rows-1":
        data[rows_at[0]:rows_at[-1] + 1] = struct.pack(byte_order, rows_value - 1)
    elif kind == "length huge":
        put_len(HUGE)
    elif kind == "length short":
        put_len(len_value - 100)
    elif kind == "heavy":
        rng = random.Random(seed)
        at = max(0, rows_at[0] - 16)
        for i in range(at, min(len(data), at + 64)):
            data[i] = rng.randrange(256)
    else:
        raise ValueError(kind)
    return bytes(data)


# ---------------------------------------------------------------------------------------------
# Block files, decompressed and compressed again with Spark's own codec (spark.rdd.compress)


class BlockCodec:
    def __init__(self, sc, compressed):
        self.jvm = sc._jvm
        self.compressed = compressed
        self.codec = (self.jvm.org.apache.spark.io.CompressionCodec.createCodec(sc._jsc.sc().conf())
                      if compressed else None)

    def decode(self, raw):
        if not self.compressed:
            return raw
        stream = self.codec.compressedInputStream(self.jvm.java.io.ByteArrayInputStream(raw))
        try:
            return bytes(stream.readAllBytes())
        finally:
            stream.close()

    def encode(self, data):
        if not self.compressed:
            return data
        out = self.jvm.java.io.ByteArrayOutputStream()
        stream = self.codec.compressedOutputStream(out)
        stream.write(bytearray(data))
        stream.close()
        return bytes(out.toByteArray())


def rewrite(path, data):
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(data)


# ---------------------------------------------------------------------------------------------


def start(master, serializer, compress, local_dir):
    conf = (SparkConf().setMaster(master)
            .setAppName(f"tablecache-e2e-stored-damage {master} {serializer} compress={compress}")
            .set("spark.local.dir", local_dir)
            .set("spark.rdd.compress", "true" if compress else "false"))
    if serializer == "kryo":
        conf.set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        conf.set("spark.kryo.registrationRequired", "true")
        conf.set("spark.kryo.registrator", "dev.tablecache.spark.TableCacheKryoRegistrator")
    else:
        conf.set("spark.serializer", "org.apache.spark.serializer.JavaSerializer")
    sc = SparkContext(conf=conf)
    if master.startswith("local-cluster"):
        wait_for(lambda: registered_executors(sc) == 2, 180, "two executors")
    return SparkSession(sc)


def run_context(results, table_rows, master, serializer, compress, local_dir):
    label = f"{master} {serializer} compress={'on' if compress else 'off'}"
    spark = start(master, serializer, compress, local_dir)
    sc = spark.sparkContext
    retries = master.startswith("local-cluster")
    try:
        d = spark.sql(TABLE_SQL)
        d.createOrReplaceTempView("d")
        want = rows(spark.sql(QUERY))
        expected = {path: rows(spark.sql(q)) for path, q, _ in PATHS}
        since = time.time()
        d.persist(StorageLevel.DISK_ONLY)
        d.count()
        rdd_id = [i for i in sc._jsc.sc().getRDDStorageInfo() if i.isCached()][0].id()
        files = [f for f in block_files(local_dir, rdd_id, since)]
        codec = BlockCodec(sc, compress)
        results.check(f"{label}: six DISK_ONLY block files", len(files) == 6, files)
        kinds = [k for k in list(KINDS) + (["heavy (LZ4 bytes)"] if compress else [])
                 if k in ONLY_KINDS or not ONLY_KINDS]
        for i, kind in enumerate(kinds):
            block = files[i % len(files)]
            with open(block, "rb") as f:
                raw = f.read()
            if kind == "heavy (LZ4 bytes)":
                rng = random.Random(i)
                damaged = bytearray(raw)
                for j in range(len(raw) // 3, len(raw) // 3 + 64):
                    damaged[j] = rng.randrange(256)
                damaged = bytes(damaged)
            else:
                damaged = codec.encode(damage(codec.decode(raw), serializer, kind, seed=i))
            rewrite(block, damaged)
            path, query, confs = PATHS[i % len(PATHS)]
            case = f"{label}: {kind} ({path})"
            want_here = expected[path]
            for key, value in confs.items():
                spark.conf.set(key, value)
            got, error = None, None
            try:
                got = rows(spark.sql(query))
            except Exception as e:  # Py4JJavaError
                error = str(e)
            finally:
                for key in confs:
                    spark.conf.unset(key)
            if got is not None:
                outcome = "healed: uncached rows" if got == want_here else "WRONG ROWS"
                ok = got == want_here
            else:
                named = "TableCacheException" in error
                # Damage that breaks the block's compression or serialization stream before
                # its first batch fails inside Spark's block manager (getLocalValues), before
                # any tablecache code runs; Spark then drops the block itself (an IO-related
                # failure) and the next query recomputes it, which is checked below.
                spark_dropped = ("java.io.IOException" in error
                                 and "BlockManager.getLocalValues" in error)
                is_error = any(f"java.lang.{e}" in error for e in (
                    "OutOfMemoryError", "StackOverflowError", "InternalError", "Error:"))
                ok = (named or spark_dropped) and not is_error and not retries
                at = error.find("dev.tablecache.TableCacheException: ") if named else -1
                first = (error[at + len("dev.tablecache.TableCacheException: "):] if at >= 0
                         else error[error.find("Exception: ") + len("Exception: "):])
                first = first.split("\n")[0][:200]
                outcome = ("TableCacheException: " if named else
                           "Spark's block manager: " if spark_dropped else "OTHER ERROR: ") + first
            results.check(f"{case}: uncached rows or a TableCacheException"
                          + (" (healed, with retries)" if retries else ""), ok, outcome)
            # The JVM lives and the cache is right again (the damaged block was dropped).
            alive = not sc._jsc.sc().isStopped()
            try:
                again = rows(spark.sql(QUERY)) if alive else None
            except Exception as e:  # Py4JJavaError: the damaged block is still there
                again = f"error: {str(e)[:200]}"
            results.check(f"{case}: the JVM lives and the next query is right",
                          alive and again == want, str(again)[:300])
            print(f"case {label} | {kind} | {path} | {outcome}", flush=True)
            table_rows.append((label, kind, path, outcome))
            if alive and again != want:
                # Start the next case from a clean cache.
                d.unpersist(blocking=True)
                since = time.time()
                d.persist(StorageLevel.DISK_ONLY)
                d.count()
                rdd_id = [i for i in sc._jsc.sc().getRDDStorageInfo() if i.isCached()][0].id()
                files = block_files(local_dir, rdd_id, since)
        d.unpersist(blocking=True)
    finally:
        spark.stop()


def main():
    masters = sys.argv[1:] or ["local[2]", "local-cluster[2,1,1024]"]
    serializers = os.environ.get("E2E_DAMAGE_SERIALIZERS", "java,kryo").split(",")
    results = Results()
    table_rows = []
    local_dir = tempfile.mkdtemp(prefix="tablecache-stored-damage-")
    began = time.monotonic()
    try:
        for master in masters:
            for serializer in serializers:
                for compress in (False, True):
                    try:
                        run_context(results, table_rows, master, serializer, compress, local_dir)
                    except Exception:
                        traceback.print_exc()
                        results.check(f"{master} {serializer} compress={compress}: no error",
                                      False)
    finally:
        shutil.rmtree(local_dir, ignore_errors=True)
    print(f"e2e-stored-damage: {time.monotonic() - began:.0f}s", flush=True)
    print(results.summary("e2e-stored-damage"), flush=True)
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
