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

/** Spark 4 calls that have no Spark 3.5 counterpart (src/main/spark-3.5 holds that line's). */
public final class SparkLine {

  private SparkLine() {}

  /**
   * Whether string bounds (compared as unsigned bytes) order this string type's values the way
   * Spark's predicates do. False for non-binary collations (UTF8_LCASE, ICU, trim collations),
   * where byte-wise bounds would prune wrongly.
   */
  public static boolean hasBinaryStringOrdering(DataType t) {
    return t instanceof StringType && ((StringType) t).supportsBinaryOrdering();
  }

  /**
   * The unsigned byte order of two strings, Spark's binary ordering. Not {@code compareTo}: since
   * Spark 4.0 that first asks {@code SparkEnvUtils.isTesting()}, a {@code System.getenv} lookup,
   * on every call (it was most of a full scan's CPU in the partial aggregates of strings).
   */
  public static int compareBytes(UTF8String a, UTF8String b) {
    return a.binaryCompare(b);
  }

  /**
   * A leaf plan whose output is {@code rows} (Spark's {@code RDDScanExec}, whose constructor
   * differs between the lines), with no partitioning or ordering promised.
   */
  public static SparkPlan rddScan(
      scala.collection.immutable.Seq<Attribute> output, RDD<InternalRow> rows, String name) {
    return new RDDScanExec(output, rows, name, new UnknownPartitioning(0), emptyOrdering(), scala.Option.empty());
  }

  @SuppressWarnings("unchecked")
  private static scala.collection.immutable.Seq<SortOrder> emptyOrdering() {
    return (scala.collection.immutable.Seq<SortOrder>) (Object) scala.collection.immutable.Nil$.MODULE$;
  }
}
