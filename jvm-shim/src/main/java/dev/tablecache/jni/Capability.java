package dev.tablecache.jni;

import dev.tablecache.CacheFormat;
import dev.tablecache.TableCacheException.Kind;
import dev.tablecache.TableCacheException;
import java.util.Locale;
import java.util.Optional;

/**
 * What this JVM can write, probed once per JVM. One latch holds the whole answer (format and
 * cause together) so the capability can never be half-known.
 *
 * <p>The system property {@value #CAP_PROPERTY} (V4, V3, V2, LEGACY or UNAVAILABLE) caps the
 * probed value, to simulate an older library in tests.
 */
public enum Capability {
  /** Not probed yet; {@link #current()} never returns it. */
  UNKNOWN(0),
  /** Writes V4, V3, V2 and legacy. */
  V4(4),
  /** Writes V3, V2 and legacy. */
  V3(3),
  /** Writes V2 and legacy. */
  V2(2),
  /** Writes legacy only. */
  LEGACY(1),
  /** No usable native library: nothing can be written or decoded. */
  UNAVAILABLE(0);

  /** Ordering of write capability: higher writes more formats. */
  private final int rank;

  Capability(int rank) {
    this.rank = rank;
  }

  /** System property capping the capability. */
  public static final String CAP_PROPERTY = "tablecache.capability.max";

  /** The probed capability and, when UNAVAILABLE, why (package-private for CapabilityTest). */
  static final class Probe {
    final Capability capability;
    final TableCacheException cause;

    Probe(Capability capability, TableCacheException cause) {
      this.capability = capability;
      this.cause = cause;
    }
  }

  private static final Object LOCK = new Object();
  private static volatile Probe probe;

  /** The capability of this JVM; probes on first use (never {@link #UNKNOWN}). */
  public static Capability current() {
    return probed().capability;
  }

  /** The capability if already probed, else {@link #UNKNOWN}; never probes. */
  public static Capability peek() {
    Probe p = probe;
    return p == null ? UNKNOWN : p.capability;
  }

  /** Why the capability is {@link #UNAVAILABLE}; empty otherwise. Probes on first use. */
  public static Optional<TableCacheException> unavailableCause() {
    return Optional.ofNullable(probed().cause);
  }

  /**
   * Throws the unavailability cause as a NATIVE_UNAVAILABLE exception when nothing native can be
   * used; the facade calls it before any JNI call so users never see UnsatisfiedLinkError.
   */
  public static void requireAvailable() {
    Probe p = probed();
    if (p.capability == UNAVAILABLE) {
      TableCacheException c = p.cause;
      throw new TableCacheException(
          Kind.NATIVE_UNAVAILABLE,
          "tablecache native library unavailable: " + (c == null ? "unknown cause" : c.getMessage()),
          c);
    }
  }

  /** Whether a JVM with this capability can write {@code format}. */
  public boolean canWrite(CacheFormat format) {
    if (format == null) {
      return false;
    }
    switch (this) {
      case V4:
        return true;
      case V3:
        return format != CacheFormat.V4;
      case V2:
        return format == CacheFormat.V2 || format == CacheFormat.LEGACY;
      case LEGACY:
        return format == CacheFormat.LEGACY;
      default:
        return false;
    }
  }

  private static Probe probed() {
    Probe p = probe;
    if (p == null) {
      synchronized (LOCK) {
        p = probe;
        if (p == null) {
          p = runProbe();
          probe = p;
        }
      }
    }
    return p;
  }

  private static Probe runProbe() {
    Probe cap;
    try {
      cap = parseCap(System.getProperty(CAP_PROPERTY));
    } catch (TableCacheException e) {
      return new Probe(UNAVAILABLE, e);
    }
    if (cap != null && cap.capability == UNAVAILABLE) {
      return cap; // simulate a missing library without touching it
    }
    try {
      NativeLibrary.ensureLoaded();
    } catch (TableCacheException e) {
      return new Probe(UNAVAILABLE, e);
    }
    Probe nativeProbe;
    try {
      nativeProbe = fromNative(NativeCodec.capabilities());
    } catch (RuntimeException | LinkageError e) {
      return new Probe(
          UNAVAILABLE,
          new TableCacheException(
              Kind.NATIVE_UNAVAILABLE, "capabilities() failed: " + e, e));
    }
    if (cap != null && nativeProbe.capability != UNAVAILABLE
        && cap.capability.rank < nativeProbe.capability.rank) {
      return cap;
    }
    return nativeProbe;
  }

  static Probe fromNative(int value) {
    switch (value) {
      case 4:
        return new Probe(V4, null);
      case 3:
        return new Probe(V3, null);
      case 2:
        return new Probe(V2, null);
      case 1:
        return new Probe(LEGACY, null);
      default:
        return new Probe(
            UNAVAILABLE,
            new TableCacheException(
                Kind.NATIVE_UNAVAILABLE,
                "native library reports unknown capability " + value + " (expected 1, 2, 3 or 4)"));
    }
  }

  /** Parses the cap property; null when unset. */
  static Probe parseCap(String value) {
    if (value == null || value.trim().isEmpty()) {
      return null;
    }
    String v = value.trim().toUpperCase(Locale.ROOT);
    switch (v) {
      case "V4":
        return new Probe(V4, null);
      case "V3":
        return new Probe(V3, null);
      case "V2":
        return new Probe(V2, null);
      case "LEGACY":
        return new Probe(LEGACY, null);
      case "UNAVAILABLE":
        return new Probe(
            UNAVAILABLE,
            new TableCacheException(
                Kind.NATIVE_UNAVAILABLE, "capability capped to UNAVAILABLE by -D" + CAP_PROPERTY));
      default:
        throw new TableCacheException(
            Kind.NATIVE_UNAVAILABLE,
            "invalid -D"
                + CAP_PROPERTY
                + "="
                + value
                + " (expected V4, V3, V2, LEGACY or UNAVAILABLE)");
    }
  }
}
