package dev.tablecache.spark.read;

import dev.tablecache.TableCacheException;
import dev.tablecache.spark.heal.BlockHealer;
import dev.tablecache.spark.metrics.ScanMetrics;
import java.util.NoSuchElementException;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;

/**
 * Columnar output: one {@link ColumnarBatch} of {@code ArrowColumnVector}s per cached batch. A
 * batch stays valid until the next one is requested (or the input ends); then its native memory
 * is freed, as Spark's contract for reused column vectors allows.
 *
 * <p>A read that fails because the stored block is damaged (the block no longer deserializes, or
 * a frame fails its checksum) goes to the {@link BlockHealer}, which drops the block so that the
 * task's retry recomputes it.
 */
public final class FramesToColumnar extends AbstractIterator<ColumnarBatch> {

  private final Iterator<CachedBatch> in;
  private final BatchDecoder decoder;
  private final BlockHealer healer;
  /** The SQL metrics of the scan node this iterator was built for. */
  private final ScanMetrics scan = ScanMetrics.current();

  public FramesToColumnar(
      Iterator<CachedBatch> in, int[] projection, DataType[] outputTypes, BlockHealer healer) {
    this(in, new FrameDecoder(projection, outputTypes), healer);
  }

  public FramesToColumnar(Iterator<CachedBatch> in, BatchDecoder decoder, BlockHealer healer) {
    this.in = in;
    this.decoder = decoder;
    this.healer = healer;
    decoder.failuresThrough(this::decodeFailed);
  }

  @Override
  public boolean hasNext() {
    boolean more = inHasNext();
    if (!more) {
      decoder.close();
    }
    return more;
  }

  @Override
  public ColumnarBatch next() {
    if (!inHasNext()) {
      throw new NoSuchElementException();
    }
    CachedBatch batch;
    try {
      batch = in.next();
    } catch (Exception e) { // checked ones too: Scala iterators throw IOExceptions undeclared
      throw storedBlockFailed(e);
    }
    scan.batchRead();
    try {
      return decoder.decode(batch);
    } catch (RuntimeException e) {
      throw decodeFailed(e);
    }
  }

  /**
   * What a failed decode throws: a damaged frame heals (the block is dropped, so that the
   * task's retry recomputes it); anything else stays as it is.
   */
  private RuntimeException decodeFailed(RuntimeException e) {
    if (BlockHealer.isCorruption(e)) {
      return healer.damaged(e, ((TableCacheException) rootKind(e)).kind());
    }
    return e;
  }

  private boolean inHasNext() {
    try {
      return in.hasNext();
    } catch (Exception e) { // checked ones too: Scala iterators throw IOExceptions undeclared
      throw storedBlockFailed(e);
    }
  }

  /**
   * The input iterates the stored block, deserializing it (Spark's decompression and
   * deserialization streams: {@code IOException}s from LZ4, zstd, Snappy or Java serialization,
   * {@code KryoException}s, our own {@code CORRUPT_FRAME}s): its failure, other than a kill,
   * may be damage.
   */
  private RuntimeException storedBlockFailed(Exception e) {
    if (!BlockHealer.mayBeDamage(e)) {
      throw FramesToColumnar.<RuntimeException>rethrow(e); // a kill stays what it is
    }
    Throwable kind = rootKind(e);
    return healer.damaged(
        e,
        kind instanceof TableCacheException
            ? ((TableCacheException) kind).kind()
            : TableCacheException.Kind.CORRUPT_FRAME);
  }

  /** Throws {@code e} as it is, checked or not (what the Scala iterator did). */
  @SuppressWarnings("unchecked")
  private static <E extends Exception> E rethrow(Exception e) throws E {
    throw (E) e;
  }

  /** The first TableCacheException in the cause chain, else {@code e}. */
  private static Throwable rootKind(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof TableCacheException) {
        return c;
      }
    }
    return e;
  }
}
