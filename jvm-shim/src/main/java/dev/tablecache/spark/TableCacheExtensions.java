package dev.tablecache.spark;

import dev.tablecache.spark.engine.comet.CometCacheScanRule;
import dev.tablecache.spark.engine.comet.CometReadDefaults;
import dev.tablecache.spark.plan.CachedAggregateRule;
import dev.tablecache.spark.plan.ColumnarCacheReadRule;
import dev.tablecache.spark.plan.ScanMetricsRule;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.SparkPlan;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * tablecache's Spark session extension: it installs {@link ColumnarCacheReadRule}, which lets
 * whole-stage code generation read our cached column vectors directly instead of going through
 * Spark's row conversion, and {@link CometReadDefaults}, which under Apache DataFusion Comet
 * hands our caches to Comet's native operators.
 *
 * <p>It loads by itself: the jar registers it as a {@code SparkSessionExtensionsProvider} in
 * {@code META-INF/services}, which Spark (3.2+) reads with {@link java.util.ServiceLoader} when
 * it builds a session, so the jar on the classpath plus {@code spark.sql.cache.serializer} is
 * the whole set-up. Naming it in {@code spark.sql.extensions} as well is harmless: Spark then
 * applies it twice to the same {@link SparkSessionExtensions}, and the second application is a
 * no-op. The rule leaves other serializers' caches alone and honours {@code
 * spark.tablecache.columnarRead=false}.
 */
public final class TableCacheExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit>
    implements SparkSessionExtensionsProvider {

  /**
   * Extension registries this class has already been applied to. Weak keys: a registry lives as
   * long as its sessions; identity is what matters, and SparkSessionExtensions does not override
   * equals.
   */
  private static final Map<SparkSessionExtensions, Boolean> APPLIED =
      Collections.synchronizedMap(new WeakHashMap<>());

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    if (APPLIED.putIfAbsent(extensions, Boolean.TRUE) == null) {
      extensions.injectColumnar(new RuleBuilder());
      extensions.injectOptimizerRule(new CometDefaultsBuilder());
    }
    return BoxedUnit.UNIT;
  }

  /** Spark calls this once per session to build the session's columnar rule. */
  private static final class RuleBuilder extends AbstractFunction1<SparkSession, ColumnarRule> {
    @Override
    public ColumnarRule apply(SparkSession session) {
      return new CacheReadColumnarRule(session);
    }
  }

  /** Spark calls this once per session to build the session's Comet read defaults. */
  private static final class CometDefaultsBuilder
      extends AbstractFunction1<SparkSession, Rule<LogicalPlan>> {
    @Override
    public Rule<LogicalPlan> apply(SparkSession session) {
      return new CometReadDefaults();
    }
  }

  /** The session's columnar rule: ours runs after Spark's own transitions. */
  static final class CacheReadColumnarRule extends ColumnarRule {
    private final SparkSession session;

    CacheReadColumnarRule(SparkSession session) {
      this.session = session;
    }

    @Override
    public Rule<SparkPlan> postColumnarTransitions() {
      return new PostTransitions(session);
    }
  }

  /**
   * Aggregates answered from stats first (they remove scans), then Comet's conversions of our
   * scans, then Spark's row consumers of the rest, then every scan's SQL metrics node.
   */
  static final class PostTransitions extends Rule<SparkPlan> {
    private final CachedAggregateRule aggregates;
    private final CometCacheScanRule comet;
    private final ColumnarCacheReadRule rows = new ColumnarCacheReadRule();
    private final ScanMetricsRule metrics;

    PostTransitions(SparkSession session) {
      this.aggregates = new CachedAggregateRule(session);
      this.comet = new CometCacheScanRule(session);
      this.metrics = new ScanMetricsRule(session);
    }

    @Override
    public SparkPlan apply(SparkPlan plan) {
      return metrics.apply(rows.apply(comet.apply(aggregates.apply(plan))));
    }
  }
}
