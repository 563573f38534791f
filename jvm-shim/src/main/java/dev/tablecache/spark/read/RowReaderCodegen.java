package dev.tablecache.spark.read;

import dev.tablecache.spark.compat.SparkCompat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.ByteCodeStats;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeAndComment;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeFormatter;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.EmptyBlock$;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.codegen.GeneratedClass;
import org.apache.spark.sql.catalyst.expressions.codegen.JavaCode;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.NullType;
import scala.Tuple2;

/**
 * Generates, compiles (Spark's {@code CodeGenerator}, janino) and caches one {@link
 * GeneratedRowReader} class per projected-type signature, as Spark caches its generated
 * classes.
 *
 * <p>The generated {@code next()} reads each column of the current row with the typed accessor
 * of the column's vector class (the cast makes it monomorphic: {@code NativeColumnVector} is
 * final), as {@code ColumnarToRowExec}'s whole-stage code does, and hands the values to Spark's
 * own {@code GenerateUnsafeProjection.createCode} as the current variables, the way whole-stage
 * code builds an {@code UnsafeRow} from column variables. So the row bytes are exactly those
 * Spark's {@code UnsafeProjection} writes, for every type (nested, intervals and wide decimals
 * included), and every value is copied into the writer's buffer: no row points into a decoded
 * batch.
 *
 * <p>Two flat reads skip an object per value: a binary value is read as a {@code UTF8String}
 * over the native bytes (written by the same byte copy as a {@code byte[]}), and a decimal of at
 * most 18 digits as its unscaled long (what {@code UnsafeRowWriter} stores for it).
 */
final class RowReaderCodegen {

  private RowReaderCodegen() {}

  /**
   * HotSpot does not JIT-compile a method of more bytecode than this ({@code HugeMethodLimit}):
   * a wider projection reads through {@link ProjectedRows}, whose projection Spark splits.
   */
  static final int HUGE_METHOD_LIMIT = 8000;

  /** Signatures kept (Spark keeps 100 generated classes by default). */
  private static final int CACHE_SIZE = 100;

  /** A compiled reader class, or none when its per-row method is too big to be JIT-compiled. */
  private static final class Compiled {
    final GeneratedClass generated;
    final Object[] references;

    Compiled(GeneratedClass generated, Object[] references) {
      this.generated = generated;
      this.references = references;
    }
  }

  private static final Map<List<DataType>, Compiled> CACHE =
      new LinkedHashMap<List<DataType>, Compiled>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<List<DataType>, Compiled> eldest) {
          return size() > CACHE_SIZE;
        }
      };

  private static final AtomicLong COMPILATIONS = new AtomicLong();

  /** Classes compiled so far in this JVM (tests check that a signature compiles once). */
  static long compilations() {
    return COMPILATIONS.get();
  }

  /**
   * A new reader for rows of these column types, or null when the generated per-row method
   * would be too big for the JIT. Throws when the code does not compile.
   */
  static GeneratedRowReader newReader(DataType[] types) {
    Compiled c = compiled(Arrays.asList(types.clone()));
    return c.generated == null ? null : (GeneratedRowReader) c.generated.generate(c.references);
  }

  private static Compiled compiled(List<DataType> signature) {
    synchronized (CACHE) {
      Compiled c = CACHE.get(signature);
      if (c != null) {
        return c;
      }
    }
    // Compiled outside the lock; two tasks may race on a new signature, and Spark's own
    // compile cache (keyed by source) makes the loser cheap.
    Compiled c = compile(signature);
    synchronized (CACHE) {
      Compiled raced = CACHE.get(signature);
      if (raced != null) {
        return raced;
      }
      CACHE.put(signature, c);
      return c;
    }
  }

  private static Compiled compile(List<DataType> types) {
    Source source = generate(types);
    Tuple2<GeneratedClass, ByteCodeStats> compiled = CodeGenerator.compile(source.code);
    COMPILATIONS.incrementAndGet();
    if (compiled._2().maxMethodCodeSize() > HUGE_METHOD_LIMIT) {
      return new Compiled(null, null);
    }
    return new Compiled(compiled._1(), source.references);
  }

  /** The generated source for a signature, formatted (for tests and debugging). */
  static String sourceOf(DataType... types) {
    return CodeFormatter.format(generate(Arrays.asList(types)).code, -1);
  }

  /** Generated source and the objects it references. */
  private static final class Source {
    final CodeAndComment code;
    final Object[] references;

    Source(CodeAndComment code, Object[] references) {
      this.code = code;
      this.references = references;
    }
  }

  private static Source generate(List<DataType> types) {
    CodegenContext ctx = new CodegenContext();
    String rowId = ctx.freshName("rowId");
    StringBuilder fields = new StringBuilder();
    StringBuilder bind = new StringBuilder();
    StringBuilder reads = new StringBuilder();
    List<ExprCode> columns = new ArrayList<>();
    List<Expression> output = new ArrayList<>();
    for (int k = 0; k < types.size(); k++) {
      DataType type = types.get(k);
      String vectorClass = FrameDecoder.vectorClassOf(type);
      String column = "column" + k;
      fields.append("private ").append(vectorClass).append(' ').append(column).append(";\n");
      bind.append(column).append(" = (").append(vectorClass).append(") batch.column(")
          .append(k).append(");\n");
      Read read = Read.of(type, vectorClass, column, rowId);
      String isNull = ctx.freshName("isNull");
      String value = ctx.freshName("value");
      String javaType = CodeGenerator.javaType(read.writtenAs);
      if (read.value == null) {
        reads.append("boolean ").append(isNull).append(" = true;\n");
        reads.append(javaType).append(' ').append(value).append(" = null;\n");
      } else {
        reads.append("boolean ").append(isNull).append(" = ").append(column)
            .append(".isNullAt(").append(rowId).append(");\n");
        reads.append(javaType).append(' ').append(value).append(" = ").append(isNull)
            .append(" ? ").append(CodeGenerator.defaultValue(read.writtenAs, false))
            .append(" : (").append(read.value).append(");\n");
      }
      columns.add(
          new ExprCode(
              EmptyBlock$.MODULE$,
              JavaCode.isNullVariable(isNull),
              JavaCode.variable(value, read.writtenAs)));
      output.add(new BoundReference(k, read.writtenAs, true));
    }
    // As whole-stage code does: the column values are the current variables, no input row.
    ctx.INPUT_ROW_$eq(null);
    ctx.currentVars_$eq(SparkCompat.toScala(columns));
    ExprCode row = GenerateUnsafeProjection.createCode(ctx, SparkCompat.toScala(output), false);
    String base = GeneratedRowReader.class.getName();
    String batch = "org.apache.spark.sql.vectorized.ColumnarBatch";
    String body =
        "public java.lang.Object generate(Object[] references) {\n"
            + "  return new SpecificRowReader(references);\n"
            + "}\n"
            + "final class SpecificRowReader extends " + base + " {\n"
            + "private Object[] references;\n"
            + fields
            + ctx.declareMutableStates() + "\n"
            + "public SpecificRowReader(Object[] references) {\n"
            + "  this.references = references;\n"
            + ctx.initMutableStates() + "\n"
            + "}\n"
            + "protected void bind(" + batch + " batch) {\n"
            + bind
            + "}\n"
            + "public InternalRow next() {\n"
            + "  int " + rowId + " = nextRowId();\n"
            + reads
            + row.code() + "\n"
            + "  return " + row.value() + ";\n"
            + "}\n"
            + ctx.declareAddedFunctions() + "\n"
            + "}\n";
    CodeAndComment code =
        CodeFormatter.stripOverlappingComments(
            new CodeAndComment(body, ctx.getPlaceHolderToComments()));
    return new Source(
        code, (Object[]) ctx.references().toArray(SparkCompat.classTag(Object.class)));
  }

  /** How a column's value is read, and the type it is written to the row as. */
  private static final class Read {
    /** Java expression of the value at the row (null: the column is always null). */
    final String value;
    /** The type whose {@code UnsafeRow} encoding the value gets: the column's, or same bytes'. */
    final DataType writtenAs;

    private Read(String value, DataType writtenAs) {
      this.value = value;
      this.writtenAs = writtenAs;
    }

    static Read of(DataType type, String vectorClass, String column, String rowId) {
      if (type instanceof NullType) {
        return new Read(null, type);
      }
      if (vectorClass.equals(NativeColumnVector.class.getName())) {
        if (type instanceof BinaryType) {
          // The same bytes UnsafeRowWriter.write(int, byte[]) copies, without the byte[].
          return new Read(column + ".getUTF8String(" + rowId + ")", DataTypes.StringType);
        }
        if (type instanceof DecimalType
            && ((DecimalType) type).precision() <= Decimal.MAX_LONG_DIGITS()) {
          // UnsafeRowWriter stores such a decimal as its unscaled long.
          return new Read(
              column + ".getCompactDecimalUnscaled(" + rowId + ")", DataTypes.LongType);
        }
      }
      return new Read(CodeGenerator.getValueFromVector(column, type, rowId), type);
    }
  }
}
