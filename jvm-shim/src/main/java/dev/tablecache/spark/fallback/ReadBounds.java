package dev.tablecache.spark.fallback;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.format.SchemaBounds;
import dev.tablecache.format.SchemaCodec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the frames of a cache with this schema could be read back: its Arrow schema within
 * the readers' bounds ({@link SchemaBounds}, FORMAT.md "Schema bounds"), checked on the very
 * message a reader would check. A cache beyond them (a nesting deeper than the readers decode, a
 * name longer than they accept) goes to Spark's default serializer as a whole, so the writer
 * never writes frames that every later read would refuse.
 */
public final class ReadBounds {

  private static final Logger LOG = LoggerFactory.getLogger(ReadBounds.class);
  /** Schemas already reported, so each such cache logs one INFO line, not one per SPI call. */
  private static final Set<Integer> REPORTED =
      Collections.synchronizedSet(
          Collections.newSetFromMap(
              new LinkedHashMap<Integer, Boolean>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Boolean> eldest) {
                  return size() > 256;
                }
              }));

  private ReadBounds() {}

  /**
   * Why a cache of {@code schema} would be unreadable, or empty when it is within the bounds (or
   * has no Arrow mapping, which {@link Fallback} reports itself).
   */
  public static Optional<String> exceeded(StructType schema, String timeZoneId) {
    Schema arrow = ArrowShapes.arrowSchemaOrNull(schema, timeZoneId);
    if (arrow == null) {
      return Optional.empty();
    }
    try {
      byte[] message = SchemaCodec.encode(arrow);
      SchemaBounds.check(message, 0, message.length);
      return Optional.empty();
    } catch (TableCacheException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** Whether {@code schema} is within the bounds; logs one INFO line per schema beyond them. */
  static boolean within(StructType schema, String timeZoneId) {
    Optional<String> why = exceeded(schema, timeZoneId);
    if (why.isPresent() && REPORTED.add(schema.hashCode())) {
      LOG.info(
          "tablecache: a cache of {} columns is beyond what the readers decode ({}); Spark's"
              + " default serializer caches it",
          schema.length(),
          ErrorText.text(why.get()));
    }
    return !why.isPresent();
  }
}
