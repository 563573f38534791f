"""The benchmark tables' rows as Arrow IPC files, and the report of which encoding the writer
chooses for each of their columns (native/format/examples/encoding_report.rs).

    scripts/bench/column_encodings.sh [--rows N] [--out DIR] [TABLE...]

Each table is generated exactly as the benchmark caches it (Spark SQL over `spark.range` with 16
partitions, so every partition is a contiguous run of ids, cut into cached batches of 10,000
rows), collected with `DataFrame.toArrow()` and written to DIR/TABLE.arrow.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tables import TABLES  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=160_000,
                        help="rows per table (a multiple of 16 x 10,000 keeps batches whole)")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--out", default="target/encodings")
    parser.add_argument("tables", nargs="*", default=["standard", "strings", "timeseries", "logs"])
    args = parser.parse_args()

    import pyarrow as pa
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("tablecache-encodings")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "4g").getOrCreate())
    os.makedirs(args.out, exist_ok=True)
    for table in args.tables:
        df = spark.range(0, args.rows, 1, args.partitions).selectExpr(*TABLES[table]["columns"])
        arrow = df.toArrow()
        path = os.path.join(args.out, f"{table}.arrow")
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, arrow.schema) as writer:
            writer.write_table(arrow)
        print(path, flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
