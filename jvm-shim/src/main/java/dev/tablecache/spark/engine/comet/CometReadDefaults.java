package dev.tablecache.spark.engine.comet;

import dev.tablecache.spark.NativeCachedBatchSerializer;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.internal.SQLConf;
import scala.runtime.AbstractFunction1;

/**
 * Under Apache DataFusion Comet, routes our caches into Comet's native operators by default.
 *
 * <p>Comet's native cache scan reads only its own cache format; every other cache is read by
 * Spark's operators unless {@value #CONVERT} is true, in which case Comet converts the cache
 * scan's columnar batches to Arrow and runs the operators above it natively. Our scan is
 * columnar, so that conversion is a column-wise copy, and the operators above it are Comet's
 * instead of Spark's row operators: on the benchmark's all-columns aggregate, several times
 * faster. This rule turns that setting on for the session when the session runs Comet, the query
 * reads one of our caches, and the user has not set the key (an explicit value, true or false,
 * always wins). It runs in the optimizer, before Comet's physical rules read the setting, and
 * returns the plan unchanged.
 */
public final class CometReadDefaults extends Rule<LogicalPlan> {

  /** Comet's switch for converting caches it does not read natively (Comet 1.2+). */
  static final String CONVERT = "spark.comet.convert.inMemoryCache.enabled";

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    SQLConf conf = SQLConf.get();
    if (cometExecutes(conf) && !conf.contains(CONVERT) && readsOurCache(plan)) {
      conf.setConfString(CONVERT, "true");
    }
    return plan;
  }

  /** Whether the session runs Comet's native operators (its plugin, enabled and exec on). */
  static boolean cometExecutes(SQLConf conf) {
    return conf.getConfString("spark.plugins", "").contains("org.apache.spark.CometPlugin")
        && Boolean.parseBoolean(conf.getConfString("spark.comet.enabled", "false"))
        && Boolean.parseBoolean(conf.getConfString("spark.comet.exec.enabled", "true"));
  }

  private static boolean readsOurCache(LogicalPlan plan) {
    return plan.find(new AbstractFunction1<LogicalPlan, Object>() {
          @Override
          public Object apply(LogicalPlan node) {
            return node instanceof InMemoryRelation
                && ((InMemoryRelation) node).cacheBuilder().serializer()
                    instanceof NativeCachedBatchSerializer;
          }
        })
        .isDefined();
  }
}
