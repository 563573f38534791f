package dev.tablecache.spark.engine.comet;

import dev.tablecache.jni.NativeLibrary;
import dev.tablecache.spark.TableCacheConf;
import dev.tablecache.spark.plan.PhysicalPlans;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Under Apache DataFusion Comet, replaces Comet's conversion of our cache scan ({@code
 * CometSparkToColumnarExec}, which copies each value out of our column vectors into Comet's
 * Arrow) with {@link CometScanAdapter}'s, whose batches already are Comet's Arrow. Comet's
 * native operators above it do not change. Runs after Comet's physical rules (our columnar
 * rule's post-transition phase, Comet's are pre-transition); a no-op without Comet, for other
 * serializers' caches and with {@value #SWITCH}{@code =false}.
 */
public final class CometCacheScanRule extends Rule<SparkPlan> {

  /** true | false (default true): read our caches into Comet's vectors without a copy. */
  static final String SWITCH = TableCacheConf.PREFIX + "comet.zeroCopyRead";

  private final SparkSession session;

  /** @param session whose conf decides (adaptive stages may be planned on other threads) */
  public CometCacheScanRule(SparkSession session) {
    this.session = session;
  }

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SQLConf conf = session.sessionState().conf();
    if (!Boolean.parseBoolean(conf.getConfString(SWITCH, "true"))
        || !CometReadDefaults.cometExecutes(conf)
        || !NativeLibrary.isAvailable()) {
      return plan;
    }
    return PhysicalPlans.replaceTopDown(plan, CometScanAdapter::replace);
  }
}
