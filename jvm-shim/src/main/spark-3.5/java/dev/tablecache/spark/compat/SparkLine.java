package dev.tablecache.spark.compat;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.execution.RDDScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

/** Spark 3.5 versions of calls that differ from Spark 4 (src/main/spark-4 holds that line's). */
public final class SparkLine {

  private SparkLine() {}

  /**
   * Whether string bounds (compared as unsigned bytes) order this string type's values the way
   * Spark's predicates do. Spark 3.5 has no collations: every string compares as UTF-8 bytes.
   */
  public static boolean hasBinaryStringOrdering(DataType t) {
    return t instanceof StringType;
  }

  /**
   * The unsigned byte order of two strings, Spark's binary ordering: in Spark 3.5 {@code
   * compareTo} is that comparison (Spark 4's has a per-call check and a new name).
   */
  public static int compareBytes(UTF8String a, UTF8String b) {
    return a.compareTo(b);
  }

  /**
   * A leaf plan whose output is {@code rows} (Spark's {@code RDDScanExec}, whose constructor
   * differs between the lines), with no partitioning or ordering promised.
   */
  public static SparkPlan rddScan(
      scala.collection.Seq<Attribute> output, RDD<InternalRow> rows, String name) {
    return new RDDScanExec(output, rows, name, new UnknownPartitioning(0), emptyOrdering());
  }

  @SuppressWarnings("unchecked")
  private static scala.collection.Seq<SortOrder> emptyOrdering() {
    return (scala.collection.Seq<SortOrder>) (Object) scala.collection.immutable.Nil$.MODULE$;
  }
}
