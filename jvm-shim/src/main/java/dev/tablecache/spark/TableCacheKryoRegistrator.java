package dev.tablecache.spark;

import com.esotericsoftware.kryo.Kryo;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers tablecache's classes with Kryo, for {@code spark.kryo.registrationRequired=true}:
 * {@code spark.kryo.registrator=dev.tablecache.spark.TableCacheKryoRegistrator} (or list
 * {@code dev.tablecache.spark.NativeCachedBatch} in {@code spark.kryo.classesToRegister}).
 */
public final class TableCacheKryoRegistrator implements KryoRegistrator {
  @Override
  public void registerClasses(Kryo kryo) {
    kryo.register(NativeCachedBatch.class);
  }
}
