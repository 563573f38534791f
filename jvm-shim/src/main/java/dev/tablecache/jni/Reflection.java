package dev.tablecache.jni;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Calls into an engine's classes that tablecache does not compile against (Comet's relocated
 * Arrow Java and its C Data classes), with the callee's own exception rethrown as it is.
 */
public final class Reflection {

  private Reflection() {}

  /**
   * {@code method.invoke(target, args)}; an unchecked exception or error of the callee is
   * rethrown unwrapped, anything else becomes an {@link IllegalStateException} naming the method.
   */
  public static Object call(Method method, Object target, Object... args) {
    try {
      return method.invoke(target, args);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot call " + method, e);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException(method + " failed", cause);
    }
  }
}
