package dev.tablecache.spark.stats;

import static dev.tablecache.spark.stats.StatsPredicatesTest.attr;
import static dev.tablecache.spark.stats.StatsPredicatesTest.keeps;
import static dev.tablecache.spark.stats.StatsPredicatesTest.lit;
import static dev.tablecache.spark.stats.StatsPredicatesTest.stats;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Pruning rules for collated strings, which only Spark 4 has (see {@link StatsPredicatesTest}). */
class CollationStatsPredicatesTest {

  @Test
  void collatedStringsAreNotPrunedOnBounds() {
    StringType lcase = StringType.apply("UTF8_LCASE");
    AttributeReference s = attr("s", lcase);
    Literal k = lit(UTF8String.fromString("k1"), lcase);
    assertNull(new StatsPredicates(List.of(s)).translate(new EqualTo(s, k)));
    assertTrue(keeps(s, new IsNull(s), stats(null, null, 1, 2)));
  }
}
