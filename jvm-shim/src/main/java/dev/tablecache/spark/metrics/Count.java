package dev.tablecache.spark.metrics;

import com.codahale.metrics.Counter;

/**
 * A Dropwizard {@link Counter} (a LongAdder inside) under the method names the call sites and
 * tests used when the counters were plain LongAdders. Being a real Counter, it can be registered
 * as it is in Spark's metrics system ({@code TableCachePlugin}), so sinks report it with the
 * counter type.
 */
public final class Count extends Counter {

  public void increment() {
    inc();
  }

  public void decrement() {
    dec();
  }

  public void add(long n) {
    inc(n);
  }

  public long sum() {
    return getCount();
  }
}
