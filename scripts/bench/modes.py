"""The serializer modes the benchmark compares, keyed by name, in display order.

`--modes all` runs every mode without a "group"; `--modes formats` runs the frame-format
comparison (legacy, V2 ± stats, V3 ± stats, plain bodies); `--modes comet` runs the modes under
Apache DataFusion Comet (`"engine": "comet"`: Spark 4.1.x only, the Comet jar on spark.jars, the
cache built from a Parquet read); any mode can be named explicitly.
"""

DEFAULT = "org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer"
ARROW = "org.apache.spark.sql.execution.columnar.ArrowCachedBatchSerializer"
OURS = "dev.tablecache.spark.NativeCachedBatchSerializer"
EXTENSIONS = "dev.tablecache.spark.TableCacheExtensions"

# What every Comet mode sets: the plugin, native execution and shuffle, and the off-heap memory
# Comet's native side allocates from. The modes differ only in the cache serializer.
COMET_CONF = {
    "spark.plugins": "org.apache.spark.CometPlugin",
    "spark.comet.enabled": "true",
    "spark.comet.exec.enabled": "true",
    "spark.shuffle.manager": "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
    "spark.memory.offHeap.enabled": "true",
    "spark.memory.offHeap.size": "2g",
}


def _comet(label, **conf):
    return {"label": label, "group": "comet", "engine": "comet", "conf": {**COMET_CONF, **conf}}


def _ours(label, fmt, stats, codec, group="formats", **extra_conf):
    """A frame-format mode: everything set explicitly, with the extension."""
    return {
        "label": label,
        "group": group,
        "conf": {
            "spark.sql.cache.serializer": OURS,
            "spark.sql.extensions": EXTENSIONS,
            "spark.tablecache.format": fmt,
            "spark.tablecache.stats": "true" if stats else "false",
            "spark.tablecache.codec": codec,
            **extra_conf,
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
    # The headline: what a user gets from the one setting the README asks for (no
    # spark.sql.extensions; whatever the jar does by itself, e.g. an extension it registers
    # through ServiceLoader).
    "tc": {"label": "ours, one setting", "conf": {"spark.sql.cache.serializer": OURS}},
    # The extension named explicitly (columnar cache reads on any jar that has the extension).
    "tc-ext": {
        "label": "ours + extension",
        "conf": {"spark.sql.cache.serializer": OURS, "spark.sql.extensions": EXTENSIONS},
    },
    # Spark's row path (the extension present but told to leave plans alone).
    "tc-rowread": {
        "label": "ours, row path",
        "conf": {
            "spark.sql.cache.serializer": OURS,
            "spark.sql.extensions": EXTENSIONS,
            "spark.tablecache.columnarRead": "false",
        },
    },
    # One more setting: zstd instead of lz4 (smallest footprint).
    "tc-zstd": {
        "label": "ours zstd",
        "conf": {"spark.sql.cache.serializer": OURS, "spark.tablecache.codec": "zstd"},
    },
    # Frame-format comparison (--modes formats).
    "tc-legacy-lz4": _ours("ours legacy lz4", "legacy", False, "lz4"),
    "tc-v2-lz4": _ours("ours V2 lz4", "v2", False, "lz4"),
    "tc-v2-stats-lz4": _ours("ours V2+stats lz4", "v2", True, "lz4"),
    "tc-v3-lz4": _ours("ours V3 lz4", "v3", False, "lz4"),
    "tc-v3-stats-lz4": _ours("ours V3+stats lz4", "v3", True, "lz4"),
    "tc-v3-stats-zstd": _ours("ours V3+stats zstd", "v3", True, "zstd"),
    # V4 (opt-in): each buffer in the lightweight encoding the writer chooses, under the codec.
    "tc-v4-stats-lz4": _ours("ours V4+stats lz4", "v4", True, "lz4"),
    "tc-v4-stats-zstd": _ours("ours V4+stats zstd", "v4", True, "zstd"),
    # The explicit V3 + stats + lz4 mode read through Spark's row path, and without
    # BYTE_STREAM_SPLIT: for A/B runs only (named explicitly).
    "tc-v3-stats-lz4-rowread": _ours("ours V3+stats lz4, row path", "v3", True, "lz4", group="ab",
                                     **{"spark.tablecache.columnarRead": "false"}),
    "tc-v3-stats-lz4-plain": _ours("ours V3+stats lz4, plain", "v3", True, "lz4", group="ab",
                                   **{"spark.tablecache.encoding": "plain"}),
    # The headline with string dictionaries materialised one value per row on read, as before
    # they were read as keys (spark.tablecache.dictionaryStrings): for A/B runs only.
    "tc-plainstrings": {
        "label": "ours, strings materialised",
        "group": "ab",
        "conf": {
            "spark.sql.cache.serializer": OURS,
            "spark.tablecache.dictionaryStrings": "false",
        },
    },
    # The headline with every string column decoded with its batch, as before columns were
    # decoded on their first read (spark.tablecache.deferStringDecode): for A/B runs only.
    "tc-eagerstrings": {
        "label": "ours, strings decoded eagerly",
        "group": "ab",
        "conf": {
            "spark.sql.cache.serializer": OURS,
            "spark.tablecache.deferStringDecode": "false",
        },
    },
    # Under Comet (--modes comet; Spark 4.1.x): Spark's default cache, Comet's own cache (Comet
    # then sets its ArrowCachedBatchSerializer itself) and ours with only the serializer set.
    "comet-spark-default": _comet("Comet + Spark default cache",
                                  **{"spark.sql.cache.serializer": DEFAULT}),
    "comet-own": _comet("Comet's own cache", **{"spark.comet.exec.inMemoryCache.enabled": "true"}),
    "comet-tc": _comet("Comet + ours", **{"spark.sql.cache.serializer": OURS}),
}

# The mode the targets are stated for, and the reference every ratio divides by.
HEADLINE = "tc"
HEADLINE_ZSTD = "tc-zstd"
BASELINE = "spark-default"

# The Comet modes' references: every Comet ratio is to both (the goal: ours smaller than
# Comet's cache and no slower on any read phase).
COMET_BASELINE = "comet-spark-default"
COMET_OWN = "comet-own"
COMET_HEADLINE = "comet-tc"


def is_comet(mode):
    return MODES.get(mode, {}).get("engine") == "comet"
