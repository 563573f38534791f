package dev.tablecache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.BaseRepeatedValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The canonical JSON of golden/README.md for Arrow Java vectors, and the same canonical form for
 * manifest values, so both compare with {@link JsonNode#equals}. Integers become long (or big)
 * integer nodes, floats the string {@link Double#toString} gives (bit-exact, "-0.0", "NaN"),
 * decimals their plain string with the column's scale, binary lowercase hex.
 */
public final class Canonical {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private Canonical() {}

  /** {"name": [values...], ...} for a whole root, in field order. */
  public static ObjectNode root(VectorSchemaRoot root) {
    ObjectNode out = F.objectNode();
    for (FieldVector v : root.getFieldVectors()) {
      out.set(v.getName(), column(v));
    }
    return out;
  }

  static ArrayNode column(FieldVector v) {
    ArrayNode out = F.arrayNode();
    for (int i = 0; i < v.getValueCount(); i++) {
      out.add(value(v, i));
    }
    return out;
  }

  static JsonNode value(FieldVector v, int i) {
    ArrowType t = v.getField().getType();
    if (t.getTypeID() == ArrowType.ArrowTypeID.Null || v.isNull(i)) {
      return F.nullNode();
    }
    switch (t.getTypeID()) {
      case Bool:
        return F.booleanNode(((BitVector) v).get(i) == 1);
      case Int: {
        ArrowType.Int it = (ArrowType.Int) t;
        return integer(rawInt(v.getDataBuffer(), i, it.getBitWidth() / 8, it.getIsSigned()));
      }
      case Date:
      case Time:
      case Timestamp:
      case Duration: {
        int width = widthOf(t);
        return integer(rawInt(v.getDataBuffer(), i, width, true));
      }
      case FloatingPoint:
        if (v instanceof Float4Vector) {
          return F.textNode(Double.toString((double) ((Float4Vector) v).get(i)));
        }
        return F.textNode(Double.toString(((Float8Vector) v).get(i)));
      case Decimal:
        if (v instanceof DecimalVector) {
          return F.textNode(((DecimalVector) v).getObject(i).toPlainString());
        }
        return F.textNode(((Decimal256Vector) v).getObject(i).toPlainString());
      case Utf8:
        return F.textNode(new String(((VarCharVector) v).get(i), StandardCharsets.UTF_8));
      case LargeUtf8:
        return F.textNode(new String(((LargeVarCharVector) v).get(i), StandardCharsets.UTF_8));
      case Binary:
        return F.textNode(hex(((VarBinaryVector) v).get(i)));
      case LargeBinary:
        return F.textNode(hex(((LargeVarBinaryVector) v).get(i)));
      case FixedSizeBinary:
        return F.textNode(hex(((FixedSizeBinaryVector) v).get(i)));
      case Map: {
        MapVector m = (MapVector) v;
        StructVector entries = (StructVector) m.getDataVector();
        FieldVector key = (FieldVector) entries.getChildByOrdinal(0);
        FieldVector val = (FieldVector) entries.getChildByOrdinal(1);
        ArrayNode out = F.arrayNode();
        for (int j = m.getElementStartIndex(i); j < m.getElementEndIndex(i); j++) {
          out.add(F.arrayNode().add(value(key, j)).add(value(val, j)));
        }
        return out;
      }
      case List: {
        ListVector l = (ListVector) v;
        return range((FieldVector) l.getDataVector(), l.getElementStartIndex(i), l.getElementEndIndex(i));
      }
      case LargeList: {
        LargeListVector l = (LargeListVector) v;
        return range(
            (FieldVector) l.getDataVector(),
            (int) l.getElementStartIndex(i),
            (int) l.getElementEndIndex(i));
      }
      case FixedSizeList: {
        FixedSizeListVector l = (FixedSizeListVector) v;
        int n = l.getListSize();
        return range((FieldVector) l.getDataVector(), i * n, i * n + n);
      }
      case Struct: {
        StructVector s = (StructVector) v;
        ObjectNode out = F.objectNode();
        for (FieldVector child : s.getChildrenFromFields()) {
          out.set(child.getName(), value(child, i));
        }
        return out;
      }
      default:
        throw new IllegalArgumentException("no canonical JSON for " + t);
    }
  }

  private static ArrayNode range(FieldVector child, int start, int end) {
    ArrayNode out = F.arrayNode();
    for (int j = start; j < end; j++) {
      out.add(value(child, j));
    }
    return out;
  }

  private static int widthOf(ArrowType t) {
    switch (t.getTypeID()) {
      case Date:
        return ((ArrowType.Date) t).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
      case Time:
        return ((ArrowType.Time) t).getBitWidth() / 8;
      default:
        return 8;
    }
  }

  private static BigInteger rawInt(ArrowBuf buf, int i, int width, boolean signed) {
    long index = (long) i * width;
    long v;
    switch (width) {
      case 1:
        v = buf.getByte(index);
        return big(v, signed, 0xFFL);
      case 2:
        v = buf.getShort(index);
        return big(v, signed, 0xFFFFL);
      case 4:
        v = buf.getInt(index);
        return big(v, signed, 0xFFFF_FFFFL);
      default:
        v = buf.getLong(index);
        return signed || v >= 0 ? BigInteger.valueOf(v) : BigInteger.valueOf(v).add(BigInteger.ONE.shiftLeft(64));
    }
  }

  private static BigInteger big(long v, boolean signed, long mask) {
    return BigInteger.valueOf(signed ? v : v & mask);
  }

  private static JsonNode integer(BigInteger v) {
    return v.bitLength() < 64 ? F.numberNode(v.longValue()) : F.numberNode(v);
  }

  /** A manifest column's values in canonical form, guided by the field's type. */
  static JsonNode normalize(Field field, JsonNode v) {
    if (v == null || v.isNull()) {
      return F.nullNode();
    }
    ArrowType t = field.getType();
    switch (t.getTypeID()) {
      case Null:
        return F.nullNode();
      case Bool:
        return F.booleanNode(v.asBoolean());
      case Int:
      case Date:
      case Time:
      case Timestamp:
      case Duration:
        return integer(v.bigIntegerValue());
      case FloatingPoint:
        return F.textNode(Double.toString(Double.parseDouble(v.asText())));
      case Decimal:
        return F.textNode(v.asText());
      case Utf8:
      case LargeUtf8:
      case Binary:
      case LargeBinary:
      case FixedSizeBinary:
        return F.textNode(v.asText());
      case List:
      case LargeList:
      case FixedSizeList: {
        Field child = field.getChildren().get(0);
        ArrayNode out = F.arrayNode();
        v.forEach(e -> out.add(normalize(child, e)));
        return out;
      }
      case Map: {
        List<Field> kv = field.getChildren().get(0).getChildren();
        ArrayNode out = F.arrayNode();
        v.forEach(
            pair -> out.add(F.arrayNode().add(normalize(kv.get(0), pair.get(0))).add(normalize(kv.get(1), pair.get(1)))));
        return out;
      }
      case Struct: {
        ObjectNode out = F.objectNode();
        for (Field child : field.getChildren()) {
          out.set(child.getName(), normalize(child, v.get(child.getName())));
        }
        return out;
      }
      default:
        throw new IllegalArgumentException("no canonical JSON for " + t);
    }
  }

  static ArrayNode normalizeColumn(Field field, JsonNode values) {
    ArrayNode out = F.arrayNode();
    values.forEach(v -> out.add(normalize(field, v)));
    return out;
  }

  /** A float bound or value from its manifest string. */
  static double parseFloat(String s) {
    return Double.parseDouble(s);
  }

  static BigDecimal decimal(String s) {
    return new BigDecimal(s);
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Lowercase hex of {@code b} (java.util.HexFormat is Java 17; the 3.5 line's tests run on 8). */
  private static String hex(byte[] b) {
    char[] out = new char[2 * b.length];
    for (int i = 0; i < b.length; i++) {
      out[2 * i] = HEX[(b[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[b[i] & 0xF];
    }
    return new String(out);
  }
}
