package dev.tablecache.format;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** SchemaCodec's caches: bounded by bytes and by count, least recently used first. */
class SchemaCacheBudgetTest {

  /** {@code fields} Int64 columns whose names are {@code nameLen} chars, unique to {@code tag}. */
  static Schema wide(String tag, int fields, int nameLen) {
    List<Field> list = new ArrayList<>();
    for (int i = 0; i < fields; i++) {
      StringBuilder name = new StringBuilder(tag).append("_c").append(i).append('_');
      while (name.length() < nameLen) {
        name.append('x');
      }
      list.add(new Field(name.toString(), FieldType.nullable(new ArrowType.Int(64, true)), null));
    }
    return new Schema(list);
  }

  private static WeightedLru<ByteBuffer, Schema> decodedCache(int capacity, long budget) {
    return new WeightedLru<>(
        capacity, budget, (k, s) -> k.capacity() + SchemaCodec.schemaWeight(s));
  }

  @Test
  void manyLargeDistinctSchemasNeverPushTheRealCachesPastTheirBudget() {
    long budget = SchemaCodec.CACHE_BUDGET_BYTES;
    int n = 120;
    for (int t = 0; t < n; t++) {
      Schema s = wide("big" + t, 2_000, 200);
      byte[] b = SchemaCodec.encode(s);
      assertSame(b, SchemaCodec.encode(s), "a hit");
      Schema back = SchemaCodec.decode(b, 0, b.length);
      assertEquals(s, back);
      assertTrue(SchemaCodec.DECODED.heldBytes() <= budget, "decoded " + SchemaCodec.DECODED.heldBytes());
      assertTrue(SchemaCodec.ENCODED.heldBytes() <= budget, "encoded " + SchemaCodec.ENCODED.heldBytes());
      assertTrue(SchemaCodec.DECODED.size() <= SchemaCodec.CACHE_CAPACITY);
    }
    long one = SchemaCodec.schemaWeight(wide("big0", 2_000, 200));
    assertTrue(one > 500_000, "a 2,000-field schema of 200-char names weighs " + one);
    assertTrue(SchemaCodec.DECODED.size() < n, "the byte budget evicted");
    assertTrue(SchemaCodec.DECODED.size() <= budget / one);
    // The most recent is still cached: a hit returns the same object.
    Schema last = wide("big" + (n - 1), 2_000, 200);
    byte[] b = SchemaCodec.encode(last);
    assertSame(SchemaCodec.decode(b, 0, b.length), SchemaCodec.decode(b.clone(), 0, b.length));
  }

  @Test
  void theCountBoundHoldsAndTheLeastRecentlyUsedGoesFirst() {
    WeightedLru<ByteBuffer, Schema> lru = decodedCache(3, Long.MAX_VALUE);
    List<ByteBuffer> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      keys.add(ByteBuffer.wrap(SchemaCodec.encode(wide("small" + i, 2, 8))));
    }
    Schema s0 = wide("small0", 2, 8);
    lru.put(keys.get(0), s0);
    lru.put(keys.get(1), wide("small1", 2, 8));
    lru.put(keys.get(2), wide("small2", 2, 8));
    assertSame(s0, lru.get(keys.get(0))); // 1 is now the least recently used
    lru.put(keys.get(3), wide("small3", 2, 8));
    assertEquals(3, lru.size());
    assertNull(lru.get(keys.get(1)));
    assertNotNull(lru.get(keys.get(0)));
    assertNotNull(lru.get(keys.get(2)));
    assertNotNull(lru.get(keys.get(3)));
    for (int i = 0; i < 50; i++) {
      lru.put(ByteBuffer.wrap(new byte[] {(byte) i, 1}), wide("small" + i, 2, 8));
      assertTrue(lru.size() <= 3);
    }
    long sum = 0;
    for (int i = 47; i < 50; i++) {
      ByteBuffer k = ByteBuffer.wrap(new byte[] {(byte) i, 1});
      assertNotNull(lru.get(k), "the three most recent stay");
      sum += k.capacity() + SchemaCodec.schemaWeight(lru.get(k));
    }
    assertEquals(sum, lru.heldBytes(), "held bytes are the sum of the cached weights");
  }

  @Test
  void anEntryLargerThanTheBudgetIsNotCachedAndEvictsNothing() {
    long budget = 256 << 10;
    WeightedLru<ByteBuffer, Schema> lru = decodedCache(256, budget);
    ByteBuffer smallKey = ByteBuffer.wrap(new byte[] {1});
    Schema small = wide("s", 2, 8);
    lru.put(smallKey, small);
    long held = lru.heldBytes();
    assertTrue(held > 0 && held < budget);
    Schema huge = wide("huge", 2_000, 200);
    assertTrue(SchemaCodec.schemaWeight(huge) > budget);
    ByteBuffer hugeKey = ByteBuffer.wrap(new byte[] {2});
    lru.put(hugeKey, huge);
    assertNull(lru.get(hugeKey));
    assertEquals(1, lru.size());
    assertEquals(held, lru.heldBytes());
    assertSame(small, lru.get(smallKey));
  }

  @Test
  void manyLargeDistinctSchemasStayWithinASmallBudget() {
    long budget = 4 << 20;
    WeightedLru<ByteBuffer, Schema> lru = decodedCache(256, budget);
    for (int t = 0; t < 40; t++) {
      Schema s = wide("w" + t, 1_000, 200);
      lru.put(ByteBuffer.wrap(SchemaCodec.encode(s)), s);
      assertTrue(lru.heldBytes() <= budget, "held " + lru.heldBytes());
      assertTrue(lru.size() >= 1);
    }
    assertTrue(lru.size() < 40);
  }
}
