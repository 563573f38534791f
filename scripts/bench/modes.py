"""The serializer modes the benchmark compares, keyed by name, in display order."""

DEFAULT = "org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer"
ARROW = "org.apache.spark.sql.execution.columnar.ArrowCachedBatchSerializer"
OURS = "dev.tablecache.spark.NativeCachedBatchSerializer"
EXTENSIONS = "dev.tablecache.spark.TableCacheExtensions"


def _ours(label, fmt, stats, codec):
    return {
        "label": label,
        "conf": {
            "spark.sql.cache.serializer": OURS,
            # The README's recommended set-up: columnar cache reads.
            "spark.sql.extensions": EXTENSIONS,
            "spark.tablecache.format": fmt,
            "spark.tablecache.stats": "true" if stats else "false",
            "spark.tablecache.codec": codec,
        },
    }


MODES = {
    "spark-default": {"label": "Spark default", "conf": {"spark.sql.cache.serializer": DEFAULT}},
    "spark-arrow": {
        "label": "Spark Arrow",
        "needs_arrow": True,
        "conf": {
            "spark.sql.cache.serializer": ARROW,
            "spark.sql.execution.arrow.compression.codec": "none",
        },
    },
    "spark-arrow-zstd": {
        "label": "Spark Arrow zstd",
        "needs_arrow": True,
        "conf": {
            "spark.sql.cache.serializer": ARROW,
            "spark.sql.execution.arrow.compression.codec": "zstd",
        },
    },
    "tc-legacy-lz4": _ours("ours legacy lz4", "legacy", False, "lz4"),
    "tc-v2-lz4": _ours("ours V2 lz4", "v2", False, "lz4"),
    "tc-v2-stats-lz4": _ours("ours V2+stats lz4", "v2", True, "lz4"),
    "tc-v3-lz4": _ours("ours V3 lz4", "v3", False, "lz4"),
    "tc-v3-stats-lz4": _ours("ours V3+stats lz4", "v3", True, "lz4"),
    "tc-v3-stats-zstd": _ours("ours V3+stats zstd", "v3", True, "zstd"),
    # Not in "all": the headline mode read through Spark's row path, to measure the extension.
    "tc-v3-stats-lz4-rowread": dict(
        _ours("ours V3+stats lz4, row path", "v3", True, "lz4"),
        conf={**_ours("", "v3", True, "lz4")["conf"], "spark.tablecache.columnarRead": "false"},
        extra=True,
    ),
    # Not in "all": the headline mode without BYTE_STREAM_SPLIT, to measure the encoding.
    "tc-v3-stats-lz4-plain": dict(
        _ours("ours V3+stats lz4, plain", "v3", True, "lz4"),
        conf={**_ours("", "v3", True, "lz4")["conf"], "spark.tablecache.encoding": "plain"},
        extra=True,
    ),
}

# The mode the targets are stated for, and the reference every ratio divides by.
HEADLINE = "tc-v3-stats-lz4"
HEADLINE_ZSTD = "tc-v3-stats-zstd"
BASELINE = "spark-default"
