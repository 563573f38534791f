package dev.tablecache.spark.stats;

import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.compat.SparkLine;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BinaryComparison;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSet;
import org.apache.spark.sql.catalyst.expressions.IsNaN;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Translates scan predicates into one predicate over a batch's stats row that is false only when
 * no row of the batch can satisfy them (batch pruning). Returns null for "cannot tell", which the
 * caller treats as "might match".
 *
 * <p>It follows the rules of Spark's {@code SimpleMetricsCachedBatchSerializer.buildFilter} with
 * three differences that make it safe on this format's stats:
 * <ul>
 *   <li>Every bound test is guarded: {@code If(IsNull(bound), nullCount < count, test)}. A missing
 *       bound on a column that has non-null values (UNSUPPORTED stats, a string maximum without a
 *       finite truncated upper bound, a type whose bound we could not map) means "unbounded" and
 *       keeps the batch; Spark's rewrite evaluates it to null and skips the batch. A column with
 *       no non-null value (all null, or zero rows) still prunes every comparison, as it must.
 *   <li>Bound tests apply only to types whose bounds are ordered exactly as Spark compares
 *       values: numerics, booleans, decimals, dates, timestamps and strings with a binary
 *       collation. Collated strings and intervals are never pruned on bounds (IS NULL still is).
 *   <li>NaN is handled by Spark's own comparison semantics: NaN is the largest double and equal
 *       to itself, and the writer stores NaN as the upper bound whenever a column holds one, so
 *       {@code d = NaN}, {@code d > x} and {@code isnan(d)} keep exactly the batches with NaNs.
 * </ul>
 * IsNull and IsNotNull use the null and row counts, which every column type carries (binary and
 * nested included).
 */
public final class StatsPredicates {

  /** IN lists longer than this are not expanded into per-value range checks. */
  static final int MAX_IN_VALUES = 64;

  private final List<Attribute> cached;

  StatsPredicates(List<Attribute> cachedAttributes) {
    this.cached = cachedAttributes;
  }

  /** The conjunction of every translatable predicate, or null when none is translatable. */
  Expression translateAll(List<Expression> predicates) {
    Expression all = null;
    for (Expression p : predicates) {
      Expression t = translate(p);
      if (t != null) {
        all = all == null ? t : new And(all, t);
      }
    }
    return all;
  }

  /** The stats predicate for {@code e}, or null when {@code e} gives no pruning information. */
  Expression translate(Expression e) {
    if (e instanceof Literal) {
      Literal l = (Literal) e;
      if (l.dataType() instanceof BooleanType && (l.value() == null || Boolean.FALSE.equals(l.value()))) {
        return Literal.FalseLiteral(); // a filter that is never true selects nothing
      }
      return null;
    }
    if (e instanceof And) {
      Expression l = translate(((And) e).left());
      Expression r = translate(((And) e).right());
      if (l == null) {
        return r;
      }
      return r == null ? l : new And(l, r);
    }
    if (e instanceof Or) {
      Expression l = translate(((Or) e).left());
      Expression r = translate(((Or) e).right());
      return l == null || r == null ? null : new Or(l, r);
    }
    if (e instanceof IsNull) {
      Col c = col(((IsNull) e).child());
      return c == null ? null : new GreaterThan(c.nullCount(), Literal.create(0, DataTypes.IntegerType));
    }
    if (e instanceof IsNotNull) {
      Col c = col(((IsNotNull) e).child());
      return c == null ? null : c.hasValue();
    }
    if (e instanceof IsNaN) {
      Col c = col(((IsNaN) e).child());
      if (c == null || !(c.type instanceof DoubleType || c.type instanceof FloatType)) {
        return null;
      }
      return guard(c, c.upper(), new IsNaN(c.upper()));
    }
    if (e instanceof BinaryComparison) {
      return comparison((BinaryComparison) e);
    }
    if (e instanceof In) {
      In in = (In) e;
      Col c = boundedCol(in.value());
      if (c == null) {
        return null;
      }
      List<Object> values = new ArrayList<>();
      for (Expression item : SparkCompat.toJava(in.list())) {
        if (!(item instanceof Literal) || !sameKind(c.type, item.dataType())) {
          return null;
        }
        values.add(((Literal) item).value());
      }
      return anyInRange(c, values);
    }
    if (e instanceof InSet) {
      InSet in = (InSet) e;
      Col c = boundedCol(in.child());
      if (c == null || in.hset().size() > MAX_IN_VALUES) {
        return null;
      }
      List<Object> values = new ArrayList<>(SparkCompat.toJava(in.hset().toList()));
      return anyInRange(c, values);
    }
    if (e instanceof StartsWith) {
      StartsWith sw = (StartsWith) e;
      Col c = boundedCol(sw.left());
      if (c == null
          || !(c.type instanceof StringType)
          || !(sw.right() instanceof Literal)
          || ((Literal) sw.right()).value() == null) {
        return null;
      }
      Literal prefix = (Literal) sw.right();
      int chars = ((UTF8String) prefix.value()).numChars();
      Literal one = Literal.create(1, DataTypes.IntegerType);
      Literal len = Literal.create(chars, DataTypes.IntegerType);
      return new And(
          guard(c, c.lower(), new LessThanOrEqual(new Substring(c.lower(), one, len), prefix)),
          guard(c, c.upper(), new LessThanOrEqual(prefix, new Substring(c.upper(), one, len))));
    }
    return null;
  }

  private Expression comparison(BinaryComparison cmp) {
    boolean attrLeft;
    Col c;
    Literal lit;
    if (cmp.right() instanceof Literal) {
      c = boundedCol(cmp.left());
      lit = (Literal) cmp.right();
      attrLeft = true;
    } else if (cmp.left() instanceof Literal) {
      c = boundedCol(cmp.right());
      lit = (Literal) cmp.left();
      attrLeft = false;
    } else {
      return null;
    }
    if (cmp instanceof EqualNullSafe && lit.value() == null) {
      // a <=> NULL holds exactly for null values, whatever the type
      Col any = col(attrLeft ? cmp.left() : cmp.right());
      return any == null
          ? null
          : new GreaterThan(any.nullCount(), Literal.create(0, DataTypes.IntegerType));
    }
    if (c == null || lit.value() == null || !sameKind(c.type, lit.dataType())) {
      return null;
    }
    if (cmp instanceof EqualTo || cmp instanceof EqualNullSafe) {
      return inRange(c, lit);
    }
    // Normalize to "attribute OP literal".
    boolean lt = cmp instanceof LessThan;
    boolean le = cmp instanceof LessThanOrEqual;
    boolean gt = cmp instanceof GreaterThan;
    boolean ge = cmp instanceof GreaterThanOrEqual;
    if (!attrLeft) {
      boolean t;
      t = lt;
      lt = gt;
      gt = t;
      t = le;
      le = ge;
      ge = t;
    }
    if (lt) {
      return guard(c, c.lower(), new LessThan(c.lower(), lit));
    }
    if (le) {
      return guard(c, c.lower(), new LessThanOrEqual(c.lower(), lit));
    }
    if (gt) {
      return guard(c, c.upper(), new LessThan(lit, c.upper()));
    }
    if (ge) {
      return guard(c, c.upper(), new LessThanOrEqual(lit, c.upper()));
    }
    return null;
  }

  private Expression anyInRange(Col c, List<Object> values) {
    Expression any = null;
    for (Object v : values) {
      if (v == null) {
        continue; // x IN (.., NULL) is never true because of the NULL
      }
      Expression t = inRange(c, new Literal(v, c.type));
      any = any == null ? t : new Or(any, t);
    }
    return any == null ? Literal.FalseLiteral() : any;
  }

  private static Expression inRange(Col c, Literal lit) {
    return new And(
        guard(c, c.lower(), new LessThanOrEqual(c.lower(), lit)),
        guard(c, c.upper(), new LessThanOrEqual(lit, c.upper())));
  }

  /** {@code test} when the bound exists; else whether the column has any non-null value. */
  private static Expression guard(Col c, Expression bound, Expression test) {
    return new If(new IsNull(bound), c.hasValue(), test);
  }

  private Col col(Expression e) {
    if (!(e instanceof AttributeReference)) {
      return null;
    }
    AttributeReference a = (AttributeReference) e;
    for (int i = 0; i < cached.size(); i++) {
      if (cached.get(i).exprId().equals(a.exprId())) {
        return new Col(i, cached.get(i).dataType());
      }
    }
    return null;
  }

  /** The column when its values can be pruned on min/max bounds, else null. */
  private Col boundedCol(Expression e) {
    Col c = col(e);
    return c != null && hasComparableBounds(c.type) ? c : null;
  }

  static boolean hasComparableBounds(DataType t) {
    return t instanceof BooleanType
        || t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof LongType
        || t instanceof FloatType
        || t instanceof DoubleType
        || t instanceof DecimalType
        || t instanceof DateType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType
        || SparkLine.hasBinaryStringOrdering(t);
  }

  private static boolean sameKind(DataType column, DataType literal) {
    return column.getClass() == literal.getClass();
  }

  /** Stats-row references of cached column {@code index}. */
  private static final class Col {
    final int index;
    final DataType type;

    Col(int index, DataType type) {
      this.index = index;
      this.type = type;
    }

    Expression lower() {
      return new BoundReference(StatsRows.FIELDS_PER_COLUMN * index, type, true);
    }

    Expression upper() {
      return new BoundReference(StatsRows.FIELDS_PER_COLUMN * index + 1, type, true);
    }

    Expression nullCount() {
      return new BoundReference(StatsRows.FIELDS_PER_COLUMN * index + 2, DataTypes.IntegerType, true);
    }

    Expression count() {
      return new BoundReference(StatsRows.FIELDS_PER_COLUMN * index + 3, DataTypes.IntegerType, true);
    }

    /** Whether the batch holds a non-null value in this column. */
    Expression hasValue() {
      return new LessThan(nullCount(), count());
    }
  }
}
