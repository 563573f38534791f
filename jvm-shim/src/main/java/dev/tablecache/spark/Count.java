package dev.tablecache.spark;

import com.codahale.metrics.Counter;

/**
 * A Dropwizard {@link Counter} (a LongAdder inside) under the method names the call sites and
 * tests used when the counters were plain LongAdders. Being a real Counter, it can be registered
 * as it is in Spark's metrics system ({@link TableCachePlugin}), so sinks report it with the
 * counter type.
 */
final class Count extends Counter {

  void increment() {
    inc();
  }

  void decrement() {
    dec();
  }

  void add(long n) {
    inc(n);
  }

  long sum() {
    return getCount();
  }
}
