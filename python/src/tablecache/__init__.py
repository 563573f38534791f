"""tablecache for PySpark: one call configures a SparkSession builder to cache with tablecache.

    from pyspark.sql import SparkSession
    import tablecache
    spark = tablecache.configure(SparkSession.builder).getOrCreate()

`jar_path()` gives the jar for `spark-submit --jars`.
"""

import glob
import os
import re
from importlib import metadata

__all__ = ["configure", "jar_path", "UnsupportedSparkVersion", "SERIALIZER", "SUPPORTED_SPARK"]

try:
    __version__ = metadata.version("tablecache")
except metadata.PackageNotFoundError:  # imported from a source tree
    __version__ = "unknown"

SERIALIZER = "dev.tablecache.spark.NativeCachedBatchSerializer"
EXTENSIONS = "dev.tablecache.spark.TableCacheExtensions"
PLUGIN = "dev.tablecache.spark.TableCachePlugin"
SUPPORTED_SPARK = "3.5.x (Scala 2.12) and 4.x (Scala 2.13)"

_JARS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


class UnsupportedSparkVersion(ValueError):
    """The installed (or given) Spark version has no tablecache jar."""


def _spark_line(version):
    """The jar line for a Spark version: "3.5" or "4"."""
    match = re.match(r"^(\d+)\.(\d+)", version or "")
    if match:
        major, minor = int(match.group(1)), int(match.group(2))
        if (major, minor) == (3, 5):
            return "3.5"
        if major == 4:
            return "4"
    raise UnsupportedSparkVersion(
        f"tablecache {__version__} has no jar for Spark {version!r}; supported: {SUPPORTED_SPARK}")


def _installed_spark_version():
    try:
        import pyspark
    except ImportError as e:
        raise UnsupportedSparkVersion(
            f"pyspark is not installed; tablecache supports Spark {SUPPORTED_SPARK}") from e
    return pyspark.__version__


def jar_path(spark_version=None):
    """The tablecache jar for `spark_version` (default: the installed PySpark's version)."""
    version = spark_version or _installed_spark_version()
    line = _spark_line(version)
    scala = "2.12" if line == "3.5" else "2.13"
    pattern = os.path.join(_JARS, f"tablecache-*-spark{line}_{scala}.jar")
    found = sorted(glob.glob(pattern))
    if len(found) != 1:
        raise FileNotFoundError(
            f"expected one jar matching {pattern}, found {len(found)}: this tablecache package "
            f"was not built by scripts/build.sh, which puts one jar per Spark line in the wheel")
    return found[0]


def _append(builder, key, value, separator=","):
    """Adds `value` to a comma-separated setting of the builder, keeping what is there."""
    # Builder options are not readable through a public API; PySpark 3.5 and 4.x keep them in
    # the builder's _options dict.
    existing = str(getattr(builder, "_options", {}).get(key, "") or "")
    items = [item for item in existing.split(separator) if item]
    if value not in items:
        items.append(value)
    return builder.config(key, separator.join(items))


def configure(builder, *, metrics=False, spark_version=None):
    """Configures a `SparkSession.Builder` to cache with tablecache and returns it.

    Adds the jar for the installed PySpark (or `spark_version`) to `spark.jars` and sets
    `spark.sql.cache.serializer`. On Spark 3.5, whose PySpark builds sessions without running
    Spark's session-extension ServiceLoader, it also adds tablecache's extension to
    `spark.sql.extensions` (Spark 4 loads it from the jar by itself). With `metrics=True` it adds
    tablecache's plugin to `spark.plugins`, which publishes its executor metrics.

    Raises UnsupportedSparkVersion for a Spark line without a tablecache jar.
    """
    version = spark_version or _installed_spark_version()
    line = _spark_line(version)
    builder = _append(builder, "spark.jars", jar_path(version))
    builder = builder.config("spark.sql.cache.serializer", SERIALIZER)
    if line == "3.5":
        builder = _append(builder, "spark.sql.extensions", EXTENSIONS)
    if metrics:
        builder = _append(builder, "spark.plugins", PLUGIN)
    return builder
