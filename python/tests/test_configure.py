"""configure() and jar_path() of the installed wheel, against the installed PySpark's real
SparkSession.Builder (no session is started). Run by tests/run_e2e.sh in each PySpark virtualenv
after it installs the wheel: python -m unittest discover -s python/tests
"""

import os
import unittest
import zipfile

import pyspark
from pyspark.sql import SparkSession

import tablecache


def options(builder):
    return dict(getattr(builder, "_options", {}))


class ConfigureTest(unittest.TestCase):

    def test_the_installed_package_is_the_wheel_not_the_source_tree(self):
        self.assertIn("site-packages", tablecache.__file__)

    def test_jar_for_the_installed_pyspark_carries_the_serializer_and_both_libraries(self):
        jar = tablecache.jar_path()
        scala = "2.12" if pyspark.__version__.startswith("3.5") else "2.13"
        self.assertTrue(jar.endswith(f"_{scala}.jar"), jar)
        with zipfile.ZipFile(jar) as z:
            names = set(z.namelist())
        self.assertIn("dev/tablecache/spark/NativeCachedBatchSerializer.class", names)
        self.assertIn("linux/amd64/libtablecache.so", names)

    def test_configure_sets_jar_and_serializer_and_keeps_other_jars(self):
        builder = SparkSession.builder.config("spark.jars", "/opt/other.jar")
        builder = tablecache.configure(builder)
        got = options(builder)
        self.assertEqual(got["spark.sql.cache.serializer"], tablecache.SERIALIZER)
        self.assertEqual(got["spark.jars"].split(","), ["/opt/other.jar", tablecache.jar_path()])
        # Twice is the same as once.
        got = options(tablecache.configure(builder))
        self.assertEqual(got["spark.jars"].split(","), ["/opt/other.jar", tablecache.jar_path()])

    def test_extensions_are_named_only_where_pyspark_skips_the_service_loader(self):
        builder = SparkSession.builder.config("spark.sql.extensions", "com.example.Ext")
        got = options(tablecache.configure(builder))
        if pyspark.__version__.startswith("3.5"):
            self.assertEqual(got["spark.sql.extensions"], "com.example.Ext," + tablecache.EXTENSIONS)
        else:
            self.assertEqual(got["spark.sql.extensions"], "com.example.Ext")

    def test_metrics_adds_the_plugin(self):
        got = options(tablecache.configure(SparkSession.builder, metrics=True))
        self.assertIn(tablecache.PLUGIN, got["spark.plugins"].split(","))

    def test_jar_per_spark_line(self):
        self.assertTrue(os.path.basename(tablecache.jar_path("3.5.9")).endswith("spark3.5_2.12.jar"))
        self.assertTrue(os.path.basename(tablecache.jar_path("4.0.1")).endswith("spark4_2.13.jar"))
        self.assertTrue(os.path.basename(tablecache.jar_path("4.3.0")).endswith("spark4_2.13.jar"))

    def test_unsupported_versions_name_the_supported_ones(self):
        for version in ("3.4.4", "3.3.0", "2.4.8", "5.0.0", "nonsense"):
            with self.assertRaises(tablecache.UnsupportedSparkVersion) as raised:
                tablecache.configure(SparkSession.builder, spark_version=version)
            self.assertIn(tablecache.SUPPORTED_SPARK, str(raised.exception))
            self.assertIn(repr(version), str(raised.exception))


if __name__ == "__main__":
    unittest.main()
