package dev.tablecache.spark.heal;

import dev.tablecache.ErrorText;
import dev.tablecache.TableCacheException;
import dev.tablecache.spark.compat.SparkCompat;
import dev.tablecache.spark.metrics.TableCacheMetrics;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskKilledException;
import org.apache.spark.storage.BlockInfoManager;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockStatus;
import org.apache.spark.storage.RDDBlockId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Heals a damaged cached block: a task whose read of a cached partition fails with a corruption
 * (a frame that fails its checksum, or a stored block that no longer deserializes) drops that
 * partition's block from this executor's block manager, telling the master, and fails with an
 * error saying so. Spark's retry then finds no block here: it reads a healthy replica or
 * recomputes the partition from lineage and caches it again.
 *
 * <p>Healing happens on a task's first attempt only. A later attempt that finds the block damaged
 * again (the recomputed copy is bad too, e.g. a broken native library) fails without dropping it:
 * a bug must fail the job within {@code spark.task.maxFailures}, not hide behind a retry storm.
 */
public final class BlockHealer {

  private static final Logger LOG = LoggerFactory.getLogger(BlockHealer.class);

  /** Read locks by task attempt; Spark offers no public way to ask what the task holds. */
  private static final Field READ_LOCKS = readLocksField();

  /** Heals nothing: for reads that are not of a cached RDD. */
  public static final BlockHealer NONE = new BlockHealer(-1, -1);

  private final int rddId;
  private final int partition;

  /**
   * @param rddId the cached RDD's id, or -1 when it is unknown (no healing then)
   * @param partition the partition being read
   */
  public BlockHealer(int rddId, int partition) {
    this.rddId = rddId;
    this.partition = partition;
  }

  /** Whether a decode failure means the stored bytes are damaged (not a bug or a limit). */
  public static boolean isCorruption(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof TableCacheException) {
        TableCacheException.Kind k = ((TableCacheException) c).kind();
        return k == TableCacheException.Kind.CORRUPT_FRAME
            || k == TableCacheException.Kind.CHECKSUM_MISMATCH;
      }
    }
    return false;
  }

  /**
   * Whether an exception thrown while iterating the stored block may be damage: anything but a
   * JVM error or the task being killed or interrupted.
   */
  public static boolean mayBeDamage(Throwable t) {
    if (!(t instanceof Exception)) {
      return false;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof TaskKilledException || c instanceof InterruptedException) {
        return false;
      }
    }
    return true;
  }

  /**
   * Handles a read failure that {@link #isCorruption} or {@link #mayBeDamage} accepted: drops the
   * block where this task may, and returns the exception the task fails with.
   *
   * @param cause the failure
   * @param kind the error kind to report
   */
  public RuntimeException damaged(Throwable cause, TableCacheException.Kind kind) {
    TaskContext ctx = TaskContext.get();
    SparkEnv env = SparkEnv.get();
    if (rddId < 0 || ctx == null || env == null) {
      return rethrowable(cause, kind);
    }
    RDDBlockId block = new RDDBlockId(rddId, partition);
    String what = block.name() + " (cache of RDD " + rddId + ", partition " + partition + ")";
    String message = String.valueOf(cause.getMessage());
    String why = message.startsWith(kind.name()) ? message : kind + ": " + message;
    if (ctx.attemptNumber() > 0) {
      TableCacheMetrics.BLOCKS_DAMAGED_AGAIN.increment();
      return new TableCacheException(
          kind,
          "tablecache: cached block "
              + what
              + " is damaged on task attempt "
              + ctx.attemptNumber()
              + " too ("
              + why
              + "); not dropping it again: a block that is still damaged after it was dropped and"
              + " recomputed points at a bug (writer or native library), not at storage damage",
          cause);
    }
    BlockManager bm = env.blockManager();
    Option<BlockStatus> status = bm.getStatus(block);
    int held = readLocksHeld(bm.blockInfoManager(), ctx.taskAttemptId(), block);
    if (status.isEmpty() || held <= 0) {
      // Not stored here (read from another executor, or computed but not cacheable): there is
      // no local copy to drop, and dropping every copy could discard a healthy replica.
      return new TableCacheException(
          kind,
          "tablecache: reading cached block "
              + what
              + " failed ("
              + why
              + "); this executor holds no copy of it, so none was dropped",
          cause);
    }
    String level = status.get().storageLevel().description();
    // removeBlock waits for the write lock, which this task's own read lock would block forever.
    for (int i = 0; i < held; i++) {
      bm.releaseLock(block, Option.apply(ctx));
    }
    bm.removeBlock(block, true);
    TableCacheMetrics.BLOCKS_DROPPED.increment();
    LOG.warn(
        "tablecache: dropped damaged cached block {} ({}) in task {}: {}; the retry recomputes it"
            + " from lineage or reads a replica",
        what,
        level,
        SparkCompat.taskName(),
        ErrorText.text(why));
    return new TableCacheException(
        kind,
        "tablecache: dropped damaged cached block "
            + what
            + ", storage level "
            + level
            + ", because reading it failed ("
            + why
            + "); the task's retry recomputes it from lineage or reads a healthy replica",
        cause);
  }

  private static RuntimeException rethrowable(Throwable cause, TableCacheException.Kind kind) {
    return cause instanceof RuntimeException
        ? (RuntimeException) cause
        : new TableCacheException(kind, String.valueOf(cause.getMessage()), cause);
  }

  /** How many read locks this task attempt holds on the block; 0 when it cannot tell. */
  static int readLocksHeld(BlockInfoManager infos, long taskAttemptId, RDDBlockId block) {
    if (READ_LOCKS == null) {
      return 0;
    }
    try {
      Object byTask = ((Map<?, ?>) READ_LOCKS.get(infos)).get(taskAttemptId);
      if (byTask == null) {
        return 0;
      }
      Method count = byTask.getClass().getMethod("count", Object.class);
      return (Integer) count.invoke(byTask, block);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("tablecache: cannot read the block manager's read locks", e);
      return 0;
    }
  }

  private static Field readLocksField() {
    try {
      Field f = BlockInfoManager.class.getDeclaredField("readLocksByTask");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LoggerFactory.getLogger(BlockHealer.class)
          .warn("tablecache: damaged cache blocks cannot be dropped on this Spark version", e);
      return null;
    }
  }
}
