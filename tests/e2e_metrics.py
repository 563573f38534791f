"""tablecache's executor metrics, read the way an operator reads them: through a real sink.

Run by tests/run_e2e.sh with spark-submit on local-cluster[1,1,1024] (one executor JVM), with
  spark.plugins=dev.tablecache.spark.TableCachePlugin
  spark.metrics.conf.executor.sink.jmx.class=org.apache.spark.metrics.sink.JmxSink
and the executor's JMX agent on 127.0.0.1:PORT (the first argument). The driver connects to it
over JMX remoting, as jconsole would, and reads the MBeans the JmxSink registered. JMX rather than
the CSV sink: its values are read when asked, so no check waits for a reporting period.

The cached data makes every count known in advance: range(0, P*B*R) in P partitions with R rows
per batch gives P*B batches, batch i holding ids [i*R, (i+1)*R) and so disjoint ranges; a filter
id < k*R can keep exactly k of them. Each step checks how much every counter moved.
Prints "e2e-metrics: N passed, N failed" last.
"""

import sys
import traceback


from harness import Results, session

P, B, R = 4, 3, 200  # partitions, batches per partition, rows per batch
BATCHES = P * B
ROWS = BATCHES * R
KEEP = 2  # batches a filter id < KEEP*R keeps
PLUGIN = ".plugin.dev.tablecache.spark.TableCachePlugin."
# One long column: an UnsafeRow is an 8-byte null bitset plus the 8-byte value.
UNSAFE_ROW_BYTES = 16
# One BigIntVector of R values: 8 bytes per value plus a validity bitmap of ceil(R / 8) bytes.
ARROW_BATCH_BYTES = 8 * R + (R + 7) // 8


class JmxMetrics:
    """The executor's tablecache metrics, from its MBean server over JMX remoting."""

    def __init__(self, jvm, port):
        self.jvm = jvm
        url = jvm.javax.management.remote.JMXServiceURL(
            f"service:jmx:rmi:///jndi/rmi://127.0.0.1:{port}/jmxrmi")
        self.connector = jvm.javax.management.remote.JMXConnectorFactory.connect(url)
        self.server = self.connector.getMBeanServerConnection()

    def read(self):
        """{metric name: value} of every tablecache metric the sink exposes."""
        pattern = self.jvm.javax.management.ObjectName("metrics:*")
        values = {}
        for name in self.server.queryNames(pattern, None):
            full = name.getKeyProperty("name")
            if full is None or PLUGIN not in full:
                continue
            short = full.split(PLUGIN, 1)[1]
            # Dropwizard's JmxReporter: counters expose Count, gauges Value.
            attribute = "Count" if name.getKeyProperty("type") == "counters" else "Value"
            values[short] = int(self.server.getAttribute(name, attribute))
        return values

    def close(self):
        self.connector.close()


def main():
    port = int(sys.argv[1])
    spark = session("tablecache-e2e-metrics")
    results = Results()
    check = results.check

    metrics = None
    try:
        spark.conf.set("spark.tablecache.batchRows", str(R))
        # Starts the executor; its plugin registered the metrics before it ran a task.
        spark.sparkContext.parallelize([1], 1).count()
        metrics = JmxMetrics(spark._jvm, port)
        before = metrics.read()
        check("plugin metrics in the JMX sink", "read.batchesPruned" in before, sorted(before))

        def step(name, action, expected, positive=(), zero=()):
            """Runs action; every expected counter must move by exactly its value."""
            start = metrics.read()
            action()
            end = metrics.read()
            moved = {k: end.get(k, 0) - start.get(k, 0) for k in end}
            for key, want in expected.items():
                check(f"{name}: {key} moved by {want}", moved.get(key) == want,
                      f"moved {moved.get(key)}; all moved: {moved}")
            for key in positive:
                check(f"{name}: {key} grew", moved.get(key, 0) > 0, f"moved {moved.get(key)}")
            for key in zero:
                check(f"{name}: {key} is 0 after", end.get(key) == 0, f"is {end.get(key)}")
            return moved

        rows_input = spark.range(0, ROWS, 1, P)
        table = rows_input.cache()
        # count() selects no column: every batch is served from its row count, none decoded.
        # V4 is the default format.
        moved = step("cache v4 from rows", lambda: table.count(),
                     {"framesWritten.v4": BATCHES, "framesWritten.v3": 0, "framesWritten.v2": 0,
                      "framesWritten.legacy": 0, "framesWritten.unsafeRows": BATCHES,
                      "write.unsafeRowInputBytes": UNSAFE_ROW_BYTES * ROWS,
                      "write.arrowInputBytes": 0, "read.batchesRowsOnly": BATCHES,
                      "read.batchesDecoded": 0},
                     positive=("write.storedBytes", "write.encodeNanos"))
        stored = moved.get("write.storedBytes", 0)
        # Consecutive longs: a delta encoding stores them in far fewer bytes.
        check("stored bytes below input bytes", 0 < stored < UNSAFE_ROW_BYTES * ROWS, stored)

        pruned = []
        step("filter keeps exactly the batches that may match",
             lambda: pruned.append(table.filter(f"id < {KEEP * R}").count()),
             {"read.batchesKept": KEEP, "read.batchesPruned": BATCHES - KEEP,
              "read.batchesDecoded": KEEP, "framesWritten.v4": 0},
             positive=("read.decodeNanos",),
             zero=("read.liveDecodedBatches", "native.liveHandles", "native.liveBytes",
                   "allocatorLeaks", "blocksDropped", "blocksDamagedAgain"))
        check("filtered count", pruned == [KEEP * R], pruned)

        spark.conf.set("spark.tablecache.format", "v2")
        spark.conf.set("spark.tablecache.unsafeRowInput", "false")
        # Other ids than the first table's, so the plan cannot match that cache.
        arrow_table = spark.range(ROWS, 2 * ROWS, 1, P).cache()
        step("cache v2 through Arrow vectors", lambda: arrow_table.count(),
             {"framesWritten.v2": BATCHES, "framesWritten.v4": 0,
              "framesWritten.unsafeRows": 0, "write.unsafeRowInputBytes": 0,
              "write.arrowInputBytes": ARROW_BATCH_BYTES * BATCHES},
             positive=("write.storedBytes",))

        step("unpersist closes every batch", lambda: table.unpersist(blocking=True),
             {"batchesClosed": BATCHES})

        after = metrics.read()
        allocated = after.get("native.allocatedBytes")
        check("jemalloc figures reported (or -1 without jemalloc)",
              allocated == -1 or (allocated or 0) > 0, allocated)
        check("every metric named in README is published",
              set(before) == set(after) and len(after) == 31, sorted(after))
    except Exception:  # noqa: BLE001 - a crash is one failure, reported with its trace
        traceback.print_exc()
        check("no error", False)
    finally:
        if metrics is not None:
            metrics.close()
    print(results.summary("e2e-metrics"), flush=True)
    spark.stop()
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
