"""tests/e2e_cache.py on a given JVM, after checking that every JVM of the run is that JVM.

Run by tests/run_e2e.sh (suite "jvms") through spark-submit on local-cluster[2,1,1024] with
JAVA_HOME set to the JVM under test:

    e2e_jvms.py JAVA_HOME VERSION_PREFIX      (VERSION_PREFIX: "1.8.", "11.", "21.", "25.")

spark-submit starts the driver JVM from JAVA_HOME, and the standalone workers inside it start
each executor JVM from the same JAVA_HOME. A run whose JVMs were not switched must fail here, so
each JVM is asked itself: the driver through the Py4J gateway, each executor in tasks, through
SQL reflect() (evaluated in the executor JVM) and a Python UDF in the same task, whose worker's
nearest CoarseGrainedExecutorBackend ancestor is that executor JVM. For each JVM:

- java.version starts with VERSION_PREFIX and java.home is JAVA_HOME (or JAVA_HOME/jre, Java 8);
- the process's executable (/proc/PID/exe) is JAVA_HOME's bin/java;
- every executor the driver knows (local-cluster: 2) answered, and the executor id its JVM
  reports (sun.java.command) is the one its Python worker found.

Prints "e2e-jvms: N passed, N failed", then runs e2e_cache.main() in the same session (its own
"e2e: N passed, N failed" line) and exits non-zero if either failed.
"""

import os
import re
import sys
import time

import e2e_cache
from harness import Results, session

EXECUTOR_MAIN = b"org.apache.spark.executor.CoarseGrainedExecutorBackend"


def executor_jvm(_):
    """In a task's Python worker: "EXECUTOR_ID|EXE" of the executor JVM that runs it."""
    time.sleep(0.2)  # spread the tasks over both executors
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        if EXECUTOR_MAIN in argv:
            executor = argv[argv.index(b"--executor-id") + 1].decode()
            return f"{executor}|{os.path.realpath(f'/proc/{pid}/exe')}"
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    return "none|no executor JVM among the worker's ancestors"


def check_jvms(spark, results, java_home, prefix):
    from pyspark.sql.functions import col, udf

    check = results.check
    sc = spark.sparkContext
    homes = {os.path.realpath(java_home), os.path.realpath(os.path.join(java_home, "jre"))}
    java = os.path.realpath(os.path.join(java_home, "bin", "java"))

    system = sc._jvm.java.lang.System
    version, home = system.getProperty("java.version"), system.getProperty("java.home")
    print(f"driver JVM: java.version {version}, java.home {home}, vendor "
          f"{system.getProperty('java.vendor')}", flush=True)
    check("driver: java.version", version.startswith(prefix), f"{version}, want {prefix}*")
    check("driver: java.home", os.path.realpath(home) in homes, f"{home}, want {java_home}")
    # spark-submit's JVM starts this Python process.
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
        parent = f.read().split(b"\0")
    exe = os.path.realpath(f"/proc/{os.getppid()}/exe")
    check("driver: the Python driver's parent is the driver JVM",
          b"org.apache.spark.deploy.SparkSubmit" in parent, parent[:3])
    check("driver: executable", exe == java, f"{exe}, want {java}")

    want = int(re.fullmatch(r"local-cluster\[(\d+),.*", sc.master).group(1))
    # The executors register after the session starts: wait for them (bounded), then ask.
    for _ in range(240):
        executors = set(sc._jsc.sc().getExecutorIds().mkString(",").split(",")) - {""}
        if len(executors) == want:
            break
        time.sleep(0.5)
    check("executors registered", len(executors) == want, f"{sorted(executors)}, want {want}")

    where = udf(executor_jvm)
    seen = {}
    for _ in range(10):  # tasks land where slots are free: ask until every executor answered
        got = (spark.range(0, 4 * want, 1, 4 * want)
               .selectExpr("reflect('java.lang.System', 'getProperty', 'java.version') AS version",
                           "reflect('java.lang.System', 'getProperty', 'java.home') AS home",
                           "reflect('java.lang.System', 'getProperty', 'sun.java.command') AS command",
                           "id")
               .withColumn("python", where(col("id")))
               .collect())
        for r in got:
            jvm_id = re.search(r"--executor-id (\S+)", r.command)
            py_id, py_exe = r.python.split("|", 1)
            seen.setdefault(py_id, set()).add(
                (r.version, r.home, jvm_id.group(1) if jvm_id else r.command[:200], py_exe))
        if set(seen) >= executors:
            break
    check("every executor answered", set(seen) == executors,
          f"tasks ran on {sorted(seen)}, executors {sorted(executors)}")
    for executor, answers in sorted(seen.items()):
        for e_version, e_home, jvm_id, e_exe in sorted(answers):
            print(f"executor {executor} JVM: java.version {e_version}, java.home {e_home}, "
                  f"executable {e_exe}", flush=True)
            check(f"executor {executor}: java.version", e_version.startswith(prefix),
                  f"{e_version}, want {prefix}*")
            check(f"executor {executor}: java.home", os.path.realpath(e_home) in homes,
                  f"{e_home}, want {java_home}")
            check(f"executor {executor}: executable", e_exe == java, f"{e_exe}, want {java}")
            check(f"executor {executor}: the task's JVM is the worker's ancestor",
                  jvm_id == executor, jvm_id)


def main():
    java_home, prefix = sys.argv[1], sys.argv[2]
    spark = session("tablecache-e2e-jvms")
    results = Results()
    try:
        check_jvms(spark, results, java_home, prefix)
    except Exception as e:  # the cache suite still runs and reports
        results.check("JVM checks ran", False, repr(e))
    print(results.summary("e2e-jvms"), flush=True)
    cache_failed = e2e_cache.main()
    return 1 if results.failed or cache_failed else 0


if __name__ == "__main__":
    sys.exit(main())
