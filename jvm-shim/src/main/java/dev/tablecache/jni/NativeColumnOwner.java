package dev.tablecache.jni;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ForeignAllocation;

/**
 * Owns one decoded column's native memory. All of the column's non-empty buffers share this
 * owner's count; the last one released frees the column with {@link NativeCodec#release} exactly
 * once.
 */
final class NativeColumnOwner {

  private final long handle;
  private final AtomicInteger remaining;
  private final AtomicBoolean freed = new AtomicBoolean();

  /** @param buffers the column's non-empty buffers, each of which will release one unit */
  NativeColumnOwner(long handle, int buffers) {
    this.handle = handle;
    this.remaining = new AtomicInteger(buffers);
  }

  long handle() {
    return handle;
  }

  /** Frees the column now if no buffer holds it (a column with only empty buffers). */
  void releaseIfUnused() {
    if (remaining.get() == 0) {
      freeOnce();
    }
  }

  private void releaseOne() {
    if (remaining.decrementAndGet() == 0) {
      freeOnce();
    }
  }

  private void freeOnce() {
    // Both paths above can see zero; the flag makes the native free happen exactly once.
    if (freed.compareAndSet(false, true)) {
      NativeCodec.release(handle);
    }
  }

  /** One native buffer of this column, handed to Arrow's allocator. */
  Unit unit(long address, long size) {
    return new Unit(this, address, size);
  }

  /**
   * A buffer's share of the owner. Arrow calls {@link #release0()} when the wrapping ArrowBuf's
   * ledger drops to zero; {@link #releaseUnwrapped()} covers a unit whose wrapping failed. Either
   * path counts at most once.
   */
  static final class Unit extends ForeignAllocation {
    private final NativeColumnOwner owner;
    private final AtomicBoolean released = new AtomicBoolean();

    private Unit(NativeColumnOwner owner, long address, long size) {
      super(size, address);
      this.owner = owner;
    }

    @Override
    protected void release0() {
      if (released.compareAndSet(false, true)) {
        owner.releaseOne();
      }
    }

    /** Releases this unit's share if Arrow never took ownership of it. */
    void releaseUnwrapped() {
      release0();
    }
  }
}
