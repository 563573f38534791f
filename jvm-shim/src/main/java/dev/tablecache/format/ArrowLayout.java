package dev.tablecache.format;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * How one node of an Arrow type lies in a column body and in the native decoder's descriptor
 * (FORMAT.md section 3): which buffers it owns, in Arrow IPC order, and their element width. The
 * JVM's one table of layouts, the mirror of the native {@code layout} module ({@code Layout::of}):
 * the importer counts a column's nodes and buffers with it ({@link #counts}), and the column
 * vector that reads decoded columns by address takes a flat column's value or offset width from
 * it. {@code ArrowLayoutTest} holds it to the native table, node by node, through what the native
 * decoder hands over.
 *
 * <p>Types, not encodings: how a V4 body encodes its buffers is the native reader's alone, and a
 * new encoding changes nothing here.
 */
public final class ArrowLayout {

  /** What a node holds, as the variants of the native {@code Layout}. */
  public enum Shape {
    /** No buffers at all (not even validity). */
    NULL(0),
    /** Validity and a bitmap of values. */
    BOOLEAN(2),
    /** Validity and values of {@link #width()} bytes. */
    FIXED(2),
    /** Validity, offsets of {@link #width()} bytes, value bytes. */
    VARIABLE(3),
    /** Validity and offsets of {@link #width()} bytes; one child. */
    LIST(2),
    /** Validity only; one child. */
    FIXED_SIZE_LIST(1),
    /** Validity only; one child per field. */
    STRUCT(1);

    final int buffers;

    Shape(int buffers) {
      this.buffers = buffers;
    }
  }

  // The layouts of most nodes, shared: the importer and the column vector ask per column of
  // every decoded batch.
  private static final ArrowLayout NULL = new ArrowLayout(Shape.NULL, 0);
  private static final ArrowLayout BOOLEAN = new ArrowLayout(Shape.BOOLEAN, 0);
  /** Fixed-width layouts by width, up to Decimal256's 32 bytes. */
  private static final ArrowLayout[] FIXED = new ArrowLayout[33];

  static {
    for (int width = 0; width < FIXED.length; width++) {
      FIXED[width] = new ArrowLayout(Shape.FIXED, width);
    }
  }

  private static final ArrowLayout VARIABLE_32 = new ArrowLayout(Shape.VARIABLE, 4);
  private static final ArrowLayout VARIABLE_64 = new ArrowLayout(Shape.VARIABLE, 8);
  private static final ArrowLayout LIST_32 = new ArrowLayout(Shape.LIST, 4);
  private static final ArrowLayout LIST_64 = new ArrowLayout(Shape.LIST, 8);
  private static final ArrowLayout FIXED_SIZE_LIST = new ArrowLayout(Shape.FIXED_SIZE_LIST, 0);
  private static final ArrowLayout STRUCT = new ArrowLayout(Shape.STRUCT, 0);

  private final Shape shape;
  private final int width;

  private ArrowLayout(Shape shape, int width) {
    this.shape = shape;
    this.width = width;
  }

  public Shape shape() {
    return shape;
  }

  /**
   * Bytes per value ({@link Shape#FIXED}) or per offset ({@link Shape#VARIABLE}, {@link
   * Shape#LIST}); 0 for the other shapes.
   */
  public int width() {
    return width;
  }

  /** The buffers the node itself owns (its children's not included). */
  public int buffers() {
    return shape.buffers;
  }

  /**
   * The layout of a node of {@code type}.
   *
   * @throws TableCacheException UNSUPPORTED_TYPE for a type no frame carries (unions, views,
   *     run-end encoding), as the native table refuses it
   */
  public static ArrowLayout of(ArrowType type) {
    switch (type.getTypeID()) {
      case Null:
        return NULL;
      case Bool:
        return BOOLEAN;
      case Int:
        return fixedBits(((ArrowType.Int) type).getBitWidth(), type);
      case FloatingPoint:
        switch (((ArrowType.FloatingPoint) type).getPrecision()) {
          case HALF:
            return FIXED[2];
          case SINGLE:
            return FIXED[4];
          default:
            return FIXED[8];
        }
      case Decimal:
        return fixedBits(((ArrowType.Decimal) type).getBitWidth(), type);
      case Date:
        return ((ArrowType.Date) type).getUnit() == DateUnit.DAY ? FIXED[4] : FIXED[8];
      case Time:
        return fixedBits(((ArrowType.Time) type).getBitWidth(), type);
      case Timestamp:
      case Duration:
        return FIXED[8];
      case Interval:
        switch (((ArrowType.Interval) type).getUnit()) {
          case YEAR_MONTH:
            return FIXED[4];
          case DAY_TIME:
            return FIXED[8];
          default:
            return FIXED[16]; // MONTH_DAY_NANO
        }
      case FixedSizeBinary:
        return fixed(((ArrowType.FixedSizeBinary) type).getByteWidth(), type);
      case Utf8:
      case Binary:
        return VARIABLE_32;
      case LargeUtf8:
      case LargeBinary:
        return VARIABLE_64;
      case List:
      case Map:
        return LIST_32;
      case LargeList:
        return LIST_64;
      case FixedSizeList:
        return FIXED_SIZE_LIST;
      case Struct:
        return STRUCT;
      default:
        throw unsupported(type);
    }
  }

  private static ArrowLayout fixedBits(int bits, ArrowType type) {
    if (bits <= 0 || bits % 8 != 0) {
      throw unsupported(type);
    }
    return fixed(bits / 8, type);
  }

  private static ArrowLayout fixed(int bytes, ArrowType type) {
    if (bytes < 0) {
      throw unsupported(type);
    }
    return bytes < FIXED.length ? FIXED[bytes] : new ArrowLayout(Shape.FIXED, bytes);
  }

  private static TableCacheException unsupported(ArrowType type) {
    return new TableCacheException(
        Kind.UNSUPPORTED_TYPE, "no frame carries Arrow type " + ErrorText.text(type.toString()));
  }

  /**
   * {@code {nodes, buffers}} of a column of {@code field}: one node per field of its tree,
   * {@link #buffers()} per node.
   *
   * @throws TableCacheException UNSUPPORTED_TYPE for a dictionary-encoded field anywhere in the
   *     tree (Arrow Java vectors cannot be imported for those), as {@link #of} for a type no
   *     frame carries
   */
  public static int[] counts(Field field) {
    int[] counts = new int[2];
    add(field, counts);
    return counts;
  }

  private static void add(Field field, int[] counts) {
    if (field.getDictionary() != null) {
      throw new TableCacheException(
          Kind.UNSUPPORTED_TYPE,
          "dictionary-encoded column '"
              + ErrorText.name(field.getName())
              + "' cannot be decoded into Java vectors");
    }
    counts[0]++;
    counts[1] += of(field.getType()).buffers();
    for (Field child : field.getChildren()) {
      add(child, counts);
    }
  }

  @Override
  public String toString() {
    return width == 0 ? shape.toString() : shape + "(" + width + ")";
  }
}
