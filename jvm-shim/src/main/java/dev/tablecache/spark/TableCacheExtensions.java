package dev.tablecache.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.execution.ColumnarRule;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * The optional Spark session extension of tablecache: {@code
 * spark.sql.extensions=dev.tablecache.spark.TableCacheExtensions}, next to {@code
 * spark.sql.cache.serializer}. It installs {@link ColumnarCacheReadRule}, which lets
 * whole-stage code generation read our cached column vectors directly instead of going through
 * Spark's row conversion. Without it every query still works, through the row path.
 */
public final class TableCacheExtensions
    extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectColumnar(new RuleBuilder());
    return BoxedUnit.UNIT;
  }

  /** Spark calls this once per session to build the session's columnar rule. */
  private static final class RuleBuilder extends AbstractFunction1<SparkSession, ColumnarRule> {
    @Override
    public ColumnarRule apply(SparkSession session) {
      return new ColumnarRule() {
        @Override
        public ColumnarCacheReadRule postColumnarTransitions() {
          return new ColumnarCacheReadRule();
        }
      };
    }
  }
}
