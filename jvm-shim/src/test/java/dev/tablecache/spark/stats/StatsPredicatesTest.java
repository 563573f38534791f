package dev.tablecache.spark.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.spark.TestLogging;
import dev.tablecache.spark.compat.SparkCompat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.IsNaN;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The pruning rules on hand-made stats rows, one column at a time, with Spark's interpreted and
 * generated predicate evaluation. "keep" means the batch might match; "skip" that it cannot.
 */
class StatsPredicatesTest {

  static {
    TestLogging.quiet();
  }

  static AttributeReference attr(String name, DataType type) {
    return new AttributeReference(
        name,
        type,
        true,
        Metadata.empty(),
        NamedExpression$.MODULE$.newExprId(),
        SparkCompat.toScala(new ArrayList<String>()));
  }

  /** One column's stats row: lower, upper, nullCount, count, size. */
  static GenericInternalRow stats(Object lower, Object upper, int nulls, int count) {
    return new GenericInternalRow(new Object[] {lower, upper, nulls, count, 100L});
  }

  static boolean keeps(Attribute a, Expression predicate, GenericInternalRow row) {
    Expression p = new StatsPredicates(Collections.singletonList(a)).translate(predicate);
    if (p == null) {
      return true; // untranslatable: never prunes
    }
    BasePredicate compiled = SparkCompat.createPredicate(p);
    boolean generated = compiled.eval(row);
    boolean interpreted =
        org.apache.spark.sql.catalyst.expressions.Predicate$.MODULE$
            .createInterpreted(p)
            .eval(row);
    assertEquals(generated, interpreted, "codegen vs interpreted for " + p);
    return generated;
  }

  static Literal lit(Object v, DataType t) {
    return Literal.create(v, t);
  }

  @Test
  void nanIsTheLargestDoubleAndEqualToItself() {
    AttributeReference d = attr("d", DataTypes.DoubleType);
    Literal nan = lit(Double.NaN, DataTypes.DoubleType);
    GenericInternalRow withNaN = stats(-1.0, Double.NaN, 0, 10);
    GenericInternalRow noNaN = stats(-1.0, 5.0, 0, 10);
    GenericInternalRow onlyNaN = stats(Double.NaN, Double.NaN, 0, 10);
    assertTrue(keeps(d, new EqualTo(d, nan), withNaN));
    assertFalse(keeps(d, new EqualTo(d, nan), noNaN));
    assertTrue(keeps(d, new EqualTo(d, nan), onlyNaN));
    assertTrue(keeps(d, new EqualNullSafe(nan, d), withNaN));
    assertTrue(keeps(d, new IsNaN(d), withNaN));
    assertFalse(keeps(d, new IsNaN(d), noNaN));
    assertTrue(keeps(d, new GreaterThan(d, lit(1e300, DataTypes.DoubleType)), withNaN));
    assertFalse(keeps(d, new GreaterThan(d, lit(1e300, DataTypes.DoubleType)), noNaN));
    assertFalse(keeps(d, new LessThan(d, lit(0.0, DataTypes.DoubleType)), onlyNaN));
    // -0.0 and 0.0 are equal: a zero bound is written as +0.0
    assertTrue(keeps(d, new EqualTo(d, lit(-0.0, DataTypes.DoubleType)), stats(0.0, 3.0, 0, 3)));
    assertFalse(keeps(d, new LessThan(d, lit(-0.0, DataTypes.DoubleType)), stats(0.0, 3.0, 0, 3)));
  }

  @Test
  void missingBoundsMeanUnboundedUnlessAllNull() {
    AttributeReference s = attr("s", DataTypes.StringType);
    Literal x = lit(UTF8String.fromString("\uDBFF\uDFFF\uDBFF\uDFFFa"), DataTypes.StringType);
    // a maximum of only U+10FFFF characters longer than the bound limit: no upper bound
    GenericInternalRow noUpper = stats(UTF8String.fromString("a"), null, 0, 10);
    assertTrue(keeps(s, new EqualTo(s, x), noUpper));
    assertTrue(keeps(s, new GreaterThan(s, x), noUpper));
    assertTrue(keeps(s, new StartsWith(s, x), noUpper));
    assertFalse(keeps(s, new LessThan(s, lit(UTF8String.fromString("a"), DataTypes.StringType)), noUpper));
    // all null: no comparison can hold, IS NULL can
    GenericInternalRow allNull = stats(null, null, 10, 10);
    assertFalse(keeps(s, new EqualTo(s, x), allNull));
    assertFalse(keeps(s, new IsNotNull(s), allNull));
    assertTrue(keeps(s, new IsNull(s), allNull));
    // zero rows
    GenericInternalRow empty = stats(null, null, 0, 0);
    assertFalse(keeps(s, new IsNull(s), empty));
    assertFalse(keeps(s, new IsNotNull(s), empty));
  }

  @Test
  void unsupportedColumnsPruneOnNullCountsOnly() {
    AttributeReference bin = attr("bin", DataTypes.BinaryType);
    GenericInternalRow someNull = stats(null, null, 2, 10);
    GenericInternalRow noNull = stats(null, null, 0, 10);
    assertTrue(keeps(bin, new IsNull(bin), someNull));
    assertFalse(keeps(bin, new IsNull(bin), noNull));
    assertTrue(keeps(bin, new IsNotNull(bin), noNull));
    assertTrue(keeps(bin, new EqualTo(bin, lit(new byte[] {1}, DataTypes.BinaryType)), noNull));
    AttributeReference ym = attr("ym", DataTypes.createYearMonthIntervalType());
    assertNull(
        new StatsPredicates(Collections.singletonList(ym))
            .translate(new EqualTo(ym, lit(14, DataTypes.createYearMonthIntervalType()))));
  }

  @Test
  void startsWithUsesPrefixesOfTruncatedBounds() {
    AttributeReference s = attr("s", DataTypes.StringType);
    GenericInternalRow b = stats(UTF8String.fromString("k00100"), UTF8String.fromString("k00199"), 0, 100);
    assertTrue(keeps(s, new StartsWith(s, lit(UTF8String.fromString("k001"), DataTypes.StringType)), b));
    assertTrue(keeps(s, new StartsWith(s, lit(UTF8String.fromString("k"), DataTypes.StringType)), b));
    assertFalse(keeps(s, new StartsWith(s, lit(UTF8String.fromString("k002"), DataTypes.StringType)), b));
    // truncated upper bound "zz{" (from "zzz..."), incremented: still covers "zzz" prefixes
    GenericInternalRow t = stats(UTF8String.fromString("zz"), UTF8String.fromString("zz{"), 0, 5);
    assertTrue(keeps(s, new StartsWith(s, lit(UTF8String.fromString("zzzzz"), DataTypes.StringType)), t));
  }

  @Test
  void inListsAndBooleanStructure() {
    AttributeReference i = attr("i", DataTypes.IntegerType);
    GenericInternalRow b = stats(10, 20, 1, 11);
    Expression in = new In(i, SparkCompat.toScala(Arrays.<Expression>asList(lit(1, DataTypes.IntegerType), lit(15, DataTypes.IntegerType))));
    Expression out = new In(i, SparkCompat.toScala(Arrays.<Expression>asList(lit(1, DataTypes.IntegerType), lit(25, DataTypes.IntegerType))));
    Expression onlyNull = new In(i, SparkCompat.toScala(Arrays.<Expression>asList(lit(null, DataTypes.IntegerType))));
    assertTrue(keeps(i, in, b));
    assertFalse(keeps(i, out, b));
    assertFalse(keeps(i, onlyNull, b));
    Expression opaque = new GreaterThan(new org.apache.spark.sql.catalyst.expressions.Abs(i, false), lit(100, DataTypes.IntegerType));
    // AND keeps the prunable side; OR needs both sides
    assertFalse(keeps(i, new And(out, opaque), b));
    assertTrue(keeps(i, new Or(out, opaque), b));
    assertTrue(keeps(i, new EqualNullSafe(i, lit(null, DataTypes.IntegerType)), b));
    assertFalse(keeps(i, new EqualNullSafe(i, lit(null, DataTypes.IntegerType)), stats(10, 20, 0, 11)));
  }
}
