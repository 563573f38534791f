package dev.tablecache.format;

/** Test access to the package-private {@link MetadataReads} counters from other packages. */
public final class MetadataReadsAccess {
  private MetadataReadsAccess() {}

  /** Frames parsed in this JVM so far. */
  public static long frames() {
    return MetadataReads.FRAMES.sum();
  }

  /** Stats sections parsed in this JVM so far. */
  public static long stats() {
    return MetadataReads.STATS.sum();
  }

  /** Schemas looked up by their bytes in this JVM so far. */
  public static long schemas() {
    return MetadataReads.SCHEMAS.sum();
  }
}
