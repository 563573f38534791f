package dev.tablecache.spark.fallback;

import dev.tablecache.TableCacheException;
import dev.tablecache.jni.Capability;
import dev.tablecache.spark.TableCacheConf;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.sql.execution.columnar.DefaultCachedBatchSerializer;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, per call, whether Spark's {@link DefaultCachedBatchSerializer} does the work instead.
 *
 * <p>It does when this JVM's native library is unavailable (the capability probe is latched per
 * JVM, so the decision never flips between writing and reading a cache) and
 * {@code spark.tablecache.onUnavailable=fallback}; with {@code fail} the query fails with the
 * load failure as its cause. It also does, for one cache, when the cache's schema holds a type
 * that Spark cannot map to Arrow: every SPI method sees the full cache schema, so such a cache is
 * written and read by the default serializer consistently. The same holds for a schema beyond
 * what the readers decode ({@link ReadBounds}): its frames would be refused on every read.
 *
 * <p>Only the driver decides. An executor whose library fails to load while the driver's loaded
 * fails its tasks with a NATIVE_UNAVAILABLE error (a deployment problem to fix, not to hide).
 */
public final class Fallback {

  private static final Logger LOG = LoggerFactory.getLogger(Fallback.class);
  private static final AtomicBoolean WARNED_UNAVAILABLE = new AtomicBoolean();
  private static final AtomicBoolean WARNED_SCHEMA = new AtomicBoolean();

  /** Spark's default serializer; stateless, so one instance serves everything. */
  public static final DefaultCachedBatchSerializer DEFAULT = new DefaultCachedBatchSerializer();

  private Fallback() {}

  /** Whether the native library is unusable here (after applying the onUnavailable policy). */
  public static boolean nativeUnavailable(SQLConf conf) {
    if (Capability.current() != Capability.UNAVAILABLE) {
      return false;
    }
    TableCacheException cause = Capability.unavailableCause().orElse(null);
    String why = cause == null ? "unknown cause" : cause.getMessage();
    if (TableCacheConf.failWhenUnavailable(conf)) {
      throw new IllegalStateException(
          "tablecache: the native library is unavailable ("
              + why
              + ") and "
              + TableCacheConf.ON_UNAVAILABLE
              + "=fail",
          cause);
    }
    if (WARNED_UNAVAILABLE.compareAndSet(false, true)) {
      LOG.warn(
          "tablecache: the native library is unavailable, caching with Spark's default"
              + " serializer instead ({}={}). Cause: {}",
          TableCacheConf.ON_UNAVAILABLE,
          "fallback",
          why,
          cause);
    }
    return true;
  }

  /** Whether this cache (given its full schema) is handled by Spark's default serializer. */
  public static boolean useDefault(SQLConf conf, StructType cacheSchema) {
    if (nativeUnavailable(conf)) {
      return true;
    }
    if (!ArrowShapes.canCache(cacheSchema)) {
      if (WARNED_SCHEMA.compareAndSet(false, true)) {
        LOG.warn(
            "tablecache: schema {} has a type without an Arrow mapping; such caches use Spark's"
                + " default serializer",
            cacheSchema.simpleString());
      }
      return true;
    }
    return !ReadBounds.within(cacheSchema, conf.sessionLocalTimeZone());
  }

  /** Whether the one-time unavailability warning was logged (for tests). */
  public static boolean warnedUnavailable() {
    return WARNED_UNAVAILABLE.get();
  }
}
