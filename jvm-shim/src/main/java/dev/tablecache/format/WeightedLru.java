package dev.tablecache.format;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.ToLongBiFunction;

/**
 * A thread-safe least-recently-used map bounded both by a count and by the bytes its entries
 * hold, as a weigher estimates them. A put evicts least-recently-used entries until the new one
 * fits both bounds; an entry whose weight alone exceeds the budget is not cached. Lookups are
 * O(1) under the map's lock, as with a plain synchronized {@link LinkedHashMap}.
 */
final class WeightedLru<K, V> {

  private static final class Weighed<V> {
    final V value;
    final long weight;

    Weighed(V value, long weight) {
      this.value = value;
      this.weight = weight;
    }
  }

  private final LinkedHashMap<K, Weighed<V>> map = new LinkedHashMap<>(16, 0.75f, true);
  private final int capacity;
  private final long budget;
  private final ToLongBiFunction<K, V> weigher;
  private long held;

  WeightedLru(int capacity, long budget, ToLongBiFunction<K, V> weigher) {
    this.capacity = Math.max(1, capacity);
    this.budget = budget;
    this.weigher = weigher;
  }

  /** The cached value for {@code key}, made the most recent, or null. */
  synchronized V get(K key) {
    Weighed<V> w = map.get(key);
    return w == null ? null : w.value;
  }

  /** Caches {@code value} as the most recent, unless it alone weighs more than the budget. */
  void put(K key, V value) {
    long weight = weigher.applyAsLong(key, value); // outside the lock: it walks the schema
    if (weight > budget) {
      return;
    }
    synchronized (this) {
      Weighed<V> old = map.put(key, new Weighed<>(value, weight));
      if (old != null) {
        held -= old.weight;
      }
      held += weight;
      Iterator<Weighed<V>> eldest = map.values().iterator();
      // The new entry is the most recent and fits alone: the loop stops before it.
      while ((held > budget || map.size() > capacity) && eldest.hasNext()) {
        Weighed<V> e = eldest.next();
        eldest.remove();
        held -= e.weight;
      }
    }
  }

  /** Entries cached. */
  synchronized int size() {
    return map.size();
  }

  /** Bytes the cached entries hold, as the weigher counts them; never above the budget. */
  synchronized long heldBytes() {
    return held;
  }

  long budgetBytes() {
    return budget;
  }

  int capacity() {
    return capacity;
  }
}
