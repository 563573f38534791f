package dev.tablecache.spark.engine.foreign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tablecache.TableCacheException;
import dev.tablecache.spark.TableCacheConf;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

/** {@link ForeignBatchGuard}'s decisions on conf values and hand-built batches (no session). */
class ForeignBatchGuardTest {

  private static final StructType SCHEMA =
      new StructType().add("id", DataTypes.LongType).add("x", DataTypes.DoubleType);
  private static final int ROWS = 10;

  private static ForeignBatchGuard.Engine engine(String... classLists) {
    return ForeignBatchGuard.engineNamedIn(Arrays.asList(classLists), ForeignBatchGuard.ENGINES);
  }

  @Test
  void recognizesGlutenByItsPluginOrExtensions() {
    assertEquals("Apache Gluten", engine("org.apache.gluten.GlutenPlugin").name);
    assertEquals("Apache Gluten", engine("io.glutenproject.GlutenPlugin").name);
    assertEquals(
        "Apache Gluten",
        engine(
                "",
                " dev.tablecache.spark.TableCacheExtensions ,"
                    + " org.apache.gluten.extension.GlutenSessionExtensions")
            .name);
    assertEquals("Apache Gluten", engine("io.glutenproject.GlutenSessionExtensions").name);
    assertNull(engine("dev.tablecache.spark.TableCachePlugin", "", null));
    assertNull(engine("org.apache.spark.sql.SomeExtensions,com.example.gluten.Plugin"));
  }

  @Test
  void takesRowsWhenAnEngineIsEnabledOrTheSwitchIsOff() {
    SQLConf conf = new SQLConf();
    assertTrue(ForeignBatchGuard.takesColumnarInput(conf));
    conf.setConfString(TableCacheConf.COLUMNAR_INPUT, "false");
    assertFalse(ForeignBatchGuard.takesColumnarInput(conf));
    conf.setConfString(TableCacheConf.COLUMNAR_INPUT, "true");
    conf.setConfString("spark.plugins", "org.apache.gluten.GlutenPlugin");
    assertFalse(ForeignBatchGuard.takesColumnarInput(conf));
    SQLConf bad = new SQLConf();
    bad.setConfString(TableCacheConf.COLUMNAR_INPUT, "maybe");
    assertThrows(IllegalArgumentException.class, () -> ForeignBatchGuard.takesColumnarInput(bad));
  }

  private static ColumnVector[] plain() {
    OnHeapColumnVector id = new OnHeapColumnVector(ROWS, DataTypes.LongType);
    OnHeapColumnVector x = new OnHeapColumnVector(ROWS, DataTypes.DoubleType);
    for (int r = 0; r < ROWS; r++) {
      id.putLong(r, r);
      x.putDouble(r, r / 2.0);
    }
    return new ColumnVector[] {id, x};
  }

  private static ColumnarBatch foreign(ForeignColumnVector.Mode mode) {
    ColumnVector[] cols = plain();
    return new ColumnarBatch(
        new ColumnVector[] {
          cols[0], // a Spark vector beside the foreign one
          new ForeignColumnVector(cols[1], mode, ROWS)
        },
        ROWS);
  }

  private static void assertUnreadable(TableCacheException e, String why) {
    assertEquals(TableCacheException.Kind.UNREADABLE_INPUT, e.kind());
    String m = e.getMessage();
    assertTrue(m.contains("column 1 (x double)"), m);
    assertTrue(m.contains(ForeignColumnVector.class.getName()), m);
    assertTrue(m.contains("spark.tablecache.columnarInput=false"), m);
    assertTrue(m.contains(why), m);
  }

  @Test
  void sparkVectorsAreNotProbed() {
    try (ColumnarBatch b = new ColumnarBatch(plain(), ROWS)) {
      assertFalse(ForeignBatchGuard.checkReadable(b, SCHEMA));
    }
  }

  @Test
  void readableForeignVectorsPass() {
    try (ColumnarBatch b = foreign(ForeignColumnVector.Mode.READABLE)) {
      assertTrue(ForeignBatchGuard.checkReadable(b, SCHEMA));
    }
  }

  @Test
  void vectorsWhoseGettersThrowAreRefused() {
    try (ColumnarBatch b = foreign(ForeignColumnVector.Mode.SEALED)) {
      TableCacheException e =
          assertThrows(TableCacheException.class, () -> ForeignBatchGuard.checkReadable(b, SCHEMA));
      assertUnreadable(e, "UnsupportedOperationException");
      assertTrue(e.getCause() instanceof UnsupportedOperationException);
    }
  }

  /** Gluten's light-batch vectors declare the void type whatever column they stand for. */
  @Test
  void vectorsDeclaringVoidForATypedColumnAreRefused() {
    ColumnVector[] cols = plain();
    try (ColumnarBatch b =
        new ColumnarBatch(
            new ColumnVector[] {
              cols[0],
              new ForeignColumnVector(
                  DataTypes.NullType, cols[1], ForeignColumnVector.Mode.READABLE, ROWS)
            },
            ROWS)) {
      TableCacheException e =
          assertThrows(TableCacheException.class, () -> ForeignBatchGuard.checkReadable(b, SCHEMA));
      assertUnreadable(e, "declares type void");
    }
  }

  /** A vector that passes the probe but throws later is still named, never copied wrong. */
  @Test
  void aLaterFailureOfAForeignVectorIsNamed() {
    try (ColumnarBatch b = foreign(ForeignColumnVector.Mode.EDGES)) {
      assertTrue(ForeignBatchGuard.checkReadable(b, SCHEMA));
      Iterator<InternalRow> rows = b.rowIterator();
      rows.next();
      InternalRow second = rows.next();
      RuntimeException thrown = assertThrows(RuntimeException.class, () -> second.getDouble(1));
      RuntimeException e = ForeignBatchGuard.failedRead(b, SCHEMA, thrown);
      assertUnreadable((TableCacheException) e, "getter threw");
      assertSame(thrown, e.getCause());
      // a failure the foreign vectors did not throw is passed on unchanged
      IllegalStateException other = new IllegalStateException("writer");
      assertSame(other, ForeignBatchGuard.failedRead(b, SCHEMA, other));
    }
  }

  @Test
  void anEmptyEngineTableKnowsNoEngine() {
    List<ForeignBatchGuard.Engine> none = Collections.emptyList();
    assertNull(
        ForeignBatchGuard.engineNamedIn(Arrays.asList("org.apache.gluten.GlutenPlugin"), none));
  }

  /**
   * A vector of Gluten's light-batch package is refused without a probe, even one whose getters
   * would answer: those classes keep their values native. (A subclass of the test vector compiled
   * into that package; Gluten is not on the class path.)
   */
  @Test
  void glutensLightBatchVectorsAreRefusedByName() throws Exception {
    Class<?> c =
        ForeignEngineExtensions.compile(
            "package org.apache.gluten.columnarbatch;\n"
                + "public class PlaceholderVector extends"
                + " dev.tablecache.spark.engine.foreign.ForeignColumnVector {\n"
                + "  public PlaceholderVector(org.apache.spark.sql.vectorized.ColumnVector inner,"
                + " int rows) {\n"
                + "    super(inner,"
                + " dev.tablecache.spark.engine.foreign.ForeignColumnVector.Mode.READABLE, rows);\n"
                + "  }\n"
                + "}\n",
            "org.apache.gluten.columnarbatch.PlaceholderVector");
    ColumnVector[] cols = plain();
    ColumnVector light =
        (ColumnVector) c.getConstructor(ColumnVector.class, int.class).newInstance(cols[1], ROWS);
    try (ColumnarBatch b = new ColumnarBatch(new ColumnVector[] {cols[0], light}, ROWS)) {
      TableCacheException e =
          assertThrows(TableCacheException.class, () -> ForeignBatchGuard.checkReadable(b, SCHEMA));
      assertEquals(TableCacheException.Kind.UNREADABLE_INPUT, e.kind());
      String m = e.getMessage();
      assertTrue(m.contains("org.apache.gluten.columnarbatch.PlaceholderVector"), m);
      assertTrue(m.contains("Apache Gluten's"), m);
      assertTrue(m.contains("spark.gluten.sql.columnar.tableCache=false"), m);
      assertTrue(m.contains("spark.tablecache.columnarInput=false"), m);
    }
  }
}
