package dev.tablecache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tablecache.format.MutationTest;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The soak workload: each cycle builds a batch, serializes it, decodes it with a projection and
 * checks the values, closing everything. Cycle {@code i} picks format, codec, stats and projection
 * as digits of a mixed-radix counter, so every 160 cycles cover each combination; one window of
 * 160 in 16 uses the every-type batch (slow to build in Java) instead of the small one.
 */
final class RoundTrips {

  private static final CacheFormat[] FORMATS = CacheFormat.values();
  private static final Codec[] CODECS = Codec.values();

  private final BufferAllocator allocator;
  long checkedValues;

  RoundTrips(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  void cycle(long i) {
    CacheFormat format = FORMATS[(int) (i % 4)];
    Codec codec = CODECS[(int) (i / 4 % 4)];
    boolean stats = i / 16 % 2 == 0;
    int projection = (int) (i / 32 % 5);
    boolean wide = i / 160 % 16 == 1; // every type: one window of 160 cycles in 16
    WriteOptions o = WriteOptions.builder().preferredFormat(format).codec(codec).stats(stats).build();
    try (VectorSchemaRoot in = wide
        ? Batches.allTypes(allocator, (int) (i % 40))
        : Batches.small(allocator, 1 + (int) (i % 300), (int) i)) {
      int[] p = MutationTest.projections(in.getFieldVectors().size()).get(projection);
      byte[] frame = TableCache.serialize(in, o);
      try (VectorSchemaRoot out = TableCache.deserialize(frame, p, allocator)) {
        check(in, out, p, i % 8 == 0, "cycle " + i + " " + o + " projection " + Arrays.toString(p));
      }
    }
  }

  /** Row count and column count always; values of the first column, or of all when {@code full}. */
  private void check(VectorSchemaRoot in, VectorSchemaRoot out, int[] p, boolean full, String at) {
    int[] cols = p != null ? p : java.util.stream.IntStream.range(0, in.getFieldVectors().size()).toArray();
    if (out.getRowCount() != in.getRowCount() || out.getFieldVectors().size() != cols.length) {
      throw new AssertionError(at + ": " + out.getRowCount() + " rows x " + out.getFieldVectors().size()
          + " columns, expected " + in.getRowCount() + " x " + cols.length);
    }
    int upTo = full ? cols.length : Math.min(1, cols.length);
    for (int k = 0; k < upTo; k++) {
      JsonNode want = Canonical.column(in.getVector(cols[k]));
      if (!want.equals(Canonical.column(out.getVector(k)))) {
        throw new AssertionError(at + ": column " + cols[k] + " differs");
      }
      checkedValues += in.getRowCount();
    }
  }
}
