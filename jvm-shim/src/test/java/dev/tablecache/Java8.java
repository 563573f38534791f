package dev.tablecache;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;

/**
 * The few methods of Java 9 to 11 the suites use, written against the Java 8 API: the Spark 3.5
 * line's tests compile at release 8 and run on Java 8, 11 and 17 (the Spark 4 line's at 17).
 * Each behaves as the JDK method it stands for.
 */
public final class Java8 {

  private static final MethodHandle ON_SPIN_WAIT = onSpinWaitHandle();

  private Java8() {}

  /** {@code s.repeat(count)} (Java 11). */
  public static String repeat(String s, int count) {
    StringBuilder b = new StringBuilder(s.length() * count);
    for (int i = 0; i < count; i++) {
      b.append(s);
    }
    return b.toString();
  }

  /** {@code s.isBlank()} (Java 11): empty or only white space code points. */
  public static boolean isBlank(String s) {
    return s.codePoints().allMatch(Character::isWhitespace);
  }

  /** {@code in.readAllBytes()} (Java 9): the rest of the stream; does not close it. */
  public static byte[] readAllBytes(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    for (int n; (n = in.read(buf)) >= 0; ) {
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  /** {@code out.writeBytes(b)} (Java 11). */
  public static void writeBytes(ByteArrayOutputStream out, byte[] b) {
    out.write(b, 0, b.length);
  }

  /**
   * {@code p.pid()} (Java 9). On Java 8 the only way is the private field of its one Process
   * class on Unix, java.lang.UNIXProcess.
   */
  public static long pid(Process p) {
    try {
      return (Long) Process.class.getMethod("pid").invoke(p);
    } catch (NoSuchMethodException e) {
      try {
        Field f = p.getClass().getDeclaredField("pid");
        f.setAccessible(true);
        return f.getInt(p);
      } catch (ReflectiveOperationException x) {
        throw new IllegalStateException("no pid for " + p.getClass(), x);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code Thread.onSpinWait()} (Java 9) where the runtime has it; on Java 8 a no-op, as a hint may be. */
  public static void onSpinWait() {
    if (ON_SPIN_WAIT != null) {
      try {
        ON_SPIN_WAIT.invokeExact();
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  }

  private static MethodHandle onSpinWaitHandle() {
    try {
      return MethodHandles.publicLookup()
          .findStatic(Thread.class, "onSpinWait", MethodType.methodType(void.class));
    } catch (ReflectiveOperationException e) {
      return null; // Java 8
    }
  }
}
