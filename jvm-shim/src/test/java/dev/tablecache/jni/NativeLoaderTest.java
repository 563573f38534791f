package dev.tablecache.jni;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tablecache.Java8;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader end to end, with the real library: each test loads it through fresh class loaders
 * over this build's classes (target/classes, the jar's content), so each starts from an unloaded
 * {@link NativeLibrary}, and a class loader's library copy and latched failure stay its own. A
 * resource overlay (a directory searched before the classes) stands in for a jar whose library
 * or build id differs. Runs in its own JVM (surefire execution {@code loader}) because it sets
 * {@value NativeLibrary#WORKDIR_PROPERTY} and {@value NativeLibrary#PATH_PROPERTY}.
 */
@Tag("loader")
class NativeLoaderTest {

  @TempDir Path tmp;

  private final List<URLClassLoader> loaders = new ArrayList<>();
  private final List<Path> mounts = new ArrayList<>();

  @AfterEach
  void restore() throws Exception {
    System.clearProperty(NativeLibrary.WORKDIR_PROPERTY);
    System.clearProperty(NativeLibrary.PATH_PROPERTY);
    for (URLClassLoader l : loaders) {
      l.close();
    }
    for (Path m : mounts) {
      // Lazily: after a failed load from a noexec mount glibc keeps a read-only mapping of the
      // (deleted) file until the process exits, which keeps the mount busy.
      Result r = run("umount", "-l", m.toString());
      assertEquals(0, r.exit, () -> "umount -l " + m + ": " + r.output);
    }
  }

  /** This build's classes and resources: what the jar is made of. */
  private static Path classes() throws Exception {
    return Paths.get(NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static Path jarResource(String resource) throws Exception {
    return classes().resolve(resource.substring(1));
  }

  private static String jarBuildId() throws Exception {
    return new String(Files.readAllBytes(jarResource(NativeLibrary.buildIdResourcePath())), StandardCharsets.UTF_8).trim();
  }

  /** A class loader of its own over the classes, with {@code overlay} (or nothing) first. */
  private URLClassLoader freshLoader(Path overlay) throws Exception {
    List<URL> urls = new ArrayList<>();
    if (overlay != null) {
      urls.add(overlay.toUri().toURL());
    }
    urls.add(classes().toUri().toURL());
    // The system class loader's parent: the platform class loader on Java 9 and later, the
    // extension class loader on Java 8. Either way not the classpath this test runs from.
    URLClassLoader l = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getSystemClassLoader().getParent());
    loaders.add(l);
    return l;
  }

  private static Object call(ClassLoader l, String cls, String method) throws Throwable {
    Method m = Class.forName("dev.tablecache.jni." + cls, true, l).getMethod(method);
    try {
      return m.invoke(null);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Loads the library in {@code l}; null when it loaded, else the NATIVE_UNAVAILABLE message. */
  private static String load(ClassLoader l) throws Throwable {
    try {
      call(l, "NativeLibrary", "ensureLoaded");
      return null;
    } catch (RuntimeException e) {
      // That loader's own TableCacheException class, so compared by name.
      assertEquals("dev.tablecache.TableCacheException", e.getClass().getName(), e::toString);
      assertEquals("NATIVE_UNAVAILABLE", e.getClass().getMethod("kind").invoke(e).toString());
      String m = e.getMessage();
      System.out.println("NativeLoaderTest: the fallback cause reads: " + m);
      assertFalse(m.contains("\n"), "the fallback warning shows it on one line: " + m);
      // The capability probe (whose cause the serializer's fallback warning prints) says the same.
      assertEquals("UNAVAILABLE", call(l, "Capability", "current").toString());
      Object cause = ((java.util.Optional<?>) call(l, "Capability", "unavailableCause")).get();
      assertEquals(m, ((Throwable) cause).getMessage());
      return m;
    }
  }

  private static void assertEmpty(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> left = s.collect(Collectors.toList());
      assertTrue(left.isEmpty(), "left behind in " + dir + ": " + left);
    }
  }

  private static void assertWorks(ClassLoader l) throws Throwable {
    assertEquals(NativeLibrary.jarVersion(), call(l, "NativeCodec", "version"));
    assertEquals(jarBuildId(), call(l, "NativeCodec", "buildId"));
    assertEquals(4, call(l, "NativeCodec", "capabilities"));
  }

  @Test
  void theWorkdirPropertyIsWhereTheLibraryIsExtractedAndRemovedFrom() throws Throwable {
    Path wd = Files.createDirectory(tmp.resolve("wd"));
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    URLClassLoader l = freshLoader(null);
    List<String> created = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    try (WatchService watch = FileSystems.getDefault().newWatchService()) {
      wd.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
      assertNull(load(l));
      // inotify reports both; wait for them without a deadline (a lost event would hang here,
      // not pass).
      while (created.isEmpty() || deleted.isEmpty()) {
        WatchKey key = watch.take();
        for (WatchEvent<?> e : key.pollEvents()) {
          assertNotEquals(StandardWatchEventKinds.OVERFLOW, e.kind());
          (e.kind() == StandardWatchEventKinds.ENTRY_CREATE ? created : deleted).add(e.context().toString());
        }
        key.reset();
      }
    }
    assertEquals(created, deleted);
    assertEquals(1, created.size(), created::toString);
    assertTrue(created.get(0).matches("libtablecache-" + LibraryExtraction.currentPid() + "-\\d+\\.so"), created::toString);
    assertEmpty(wd);
    assertWorks(l);
  }

  @Test
  void aMissingWorkdirFallsBackWithAMessageNamingItAndTheProperty() throws Throwable {
    Path wd = tmp.resolve("no-such-dir");
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    String m = load(freshLoader(null));
    assertTrue(m.contains("workdir " + wd + " (from -Dtablecache.native.workdir) does not exist"), m);
    assertFalse(Files.exists(wd));
  }

  @Test
  void aReadOnlyWorkdirFallsBackWithAMessageNamingItAndTheProperty() throws Throwable {
    Path wd = Files.createDirectory(tmp.resolve("ro"));
    Files.setPosixFilePermissions(wd, PosixFilePermissions.fromString("r-xr-xr-x"));
    if (Files.isWritable(wd)) {
      // root writes through permissions; a read-only mount stops it.
      mountTmpfs(wd, "ro");
    }
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    String m = load(freshLoader(null));
    assertTrue(m.contains("workdir " + wd + " (from -Dtablecache.native.workdir) is not writable"), m);
    assertEmpty(wd);
  }

  /** The case of Docker's default tmpfs and of hardened hosts: /tmp mounted noexec. */
  @Test
  void aNoexecWorkdirFallsBackWithAMessageSayingSoAndLeavesNothing() throws Throwable {
    Path wd = Files.createDirectory(tmp.resolve("noexec"));
    mountTmpfs(wd, "noexec");
    assertEquals(wd.toRealPath().toString(), LibraryExtraction.noexecMount(wd));
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    String m = load(freshLoader(null));
    assertTrue(m.contains("System.load of the native library extracted to " + wd + "/libtablecache-"), m);
    assertTrue(m.toLowerCase(java.util.Locale.ROOT).contains("failed to map segment from shared object")
        || m.toLowerCase(java.util.Locale.ROOT).contains("operation not permitted"), m);
    assertTrue(m.contains("The workdir " + wd + " (from -Dtablecache.native.workdir) is on a file system mounted noexec (mount point " + wd + ")"), m);
    assertTrue(m.contains("set -Dtablecache.native.workdir to a writable directory on a file system that allows executing"), m);
    assertEmpty(wd);
  }

  @Test
  void aDamagedLibraryFailsAndLeavesNothingBehind() throws Throwable {
    Path overlay = tmp.resolve("overlay");
    Path lib = overlay.resolve(NativeLibrary.resourcePath().substring(1));
    Files.createDirectories(lib.getParent());
    Files.write(lib, "not an ELF file".getBytes(StandardCharsets.US_ASCII));
    Files.copy(jarResource(NativeLibrary.buildIdResourcePath()), overlay.resolve(NativeLibrary.buildIdResourcePath().substring(1)));
    Path wd = Files.createDirectory(tmp.resolve("wd"));
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    String m = load(freshLoader(overlay));
    assertTrue(m.contains("System.load of the native library extracted to " + wd), m);
    assertTrue(m.contains("(a damaged or foreign library file?)"), m);
    assertEmpty(wd);
  }

  @Test
  void aLibraryOfAnotherBuildIsRefusedNamingBothIdsAndLeavesNothingBehind() throws Throwable {
    String other = "x86_64-unknown-linux-gnu-release-00000000000000000000000000000000";
    Path overlay = tmp.resolve("overlay");
    Path id = overlay.resolve(NativeLibrary.buildIdResourcePath().substring(1));
    Files.createDirectories(id.getParent());
    Files.write(id, (other + "\n").getBytes(StandardCharsets.UTF_8));
    Path wd = Files.createDirectory(tmp.resolve("wd"));
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    String m = load(freshLoader(overlay));
    assertTrue(m.contains("build id mismatch: the jar carries native build " + other), m);
    assertTrue(m.contains("but the native library extracted from jar resource " + NativeLibrary.resourcePath() + " to " + wd), m);
    assertTrue(m.contains(" is build " + jarBuildId()), m);
    assertEmpty(wd);
  }

  @Test
  void aLibraryFromThePathPropertyIsComparedWithTheJarBuildId() throws Throwable {
    // A copy of its own: one file can be loaded by one class loader only.
    Path lib = tmp.resolve("libtablecache.so");
    Files.copy(jarResource(NativeLibrary.resourcePath()), lib);
    System.setProperty(NativeLibrary.PATH_PROPERTY, lib.toString());
    URLClassLoader same = freshLoader(null);
    assertNull(load(same));
    assertWorks(same);

    Path other = tmp.resolve("libtablecache-other.so");
    Files.copy(lib, other);
    System.setProperty(NativeLibrary.PATH_PROPERTY, other.toString());
    Path overlay = tmp.resolve("overlay");
    Path id = overlay.resolve(NativeLibrary.buildIdResourcePath().substring(1));
    Files.createDirectories(id.getParent());
    Files.write(id, "stale-build\n".getBytes(StandardCharsets.UTF_8));
    String m = load(freshLoader(overlay));
    assertTrue(m.contains("the jar carries native build stale-build"), m);
    assertTrue(m.contains("native library " + other + " (from -Dtablecache.native.path) is build " + jarBuildId()), m);
  }

  @Test
  void staleFilesOfDeadProcessesAreDeletedAtLoadThoseOfLiveOnesKept() throws Throwable {
    assumeTrue(Files.isDirectory(Paths.get("/proc/self")), "needs Linux /proc to tell live processes");
    Path wd = Files.createDirectory(tmp.resolve("wd"));
    Process exited = new ProcessBuilder("true").start();
    exited.waitFor();
    long dead = Java8.pid(exited);
    assumeTrue(!Files.exists(Paths.get("/proc/" + dead)), "pid " + dead + " was reused at once");
    Process alive = new ProcessBuilder("sleep", "3600").start();
    try {
      FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 2 * StaleLibraries.STALE_AFTER_MILLIS);
      Path deadFile = wd.resolve("libtablecache-" + dead + "-42.so");
      Path liveFile = wd.resolve("libtablecache-" + Java8.pid(alive) + "-42.so");
      Path ownFile = wd.resolve("libtablecache-" + LibraryExtraction.currentPid() + "-42.so");
      for (Path p : Arrays.asList(deadFile, liveFile, ownFile)) {
        Files.write(p, new byte[] {1});
        Files.setLastModifiedTime(p, old);
      }
      System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
      URLClassLoader l = freshLoader(null);
      assertNull(load(l));
      assertWorks(l);
      assertFalse(Files.exists(deadFile), "a dead process's file is deleted");
      assertTrue(Files.exists(liveFile), "a live process's file is kept");
      assertTrue(Files.exists(ownFile), "this process's files are kept");
      try (Stream<Path> s = Files.list(wd)) {
        assertEquals(2, s.count(), "and the load's own file is gone");
      }
    } finally {
      alive.destroy();
      alive.waitFor();
    }
  }

  @Test
  void twoClassLoadersLoadingAtOnceBothSucceed() throws Throwable {
    Path wd = Files.createDirectory(tmp.resolve("wd"));
    System.setProperty(NativeLibrary.WORKDIR_PROPERTY, wd.toString());
    URLClassLoader a = freshLoader(null);
    URLClassLoader b = freshLoader(null);
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (URLClassLoader l : Arrays.asList(a, b)) {
        Class.forName("dev.tablecache.jni.NativeLibrary", true, l); // class init outside the race
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    return load(l);
                  } catch (Throwable t) {
                    throw new AssertionError(t);
                  }
                }));
      }
      for (Future<String> f : results) {
        assertNull(f.get());
      }
    } finally {
      pool.shutdown();
    }
    assertNotSame(
        Class.forName("dev.tablecache.jni.NativeCodec", false, a),
        Class.forName("dev.tablecache.jni.NativeCodec", false, b));
    assertWorks(a);
    assertWorks(b);
    assertEmpty(wd);
  }

  /** Mounts a small tmpfs with {@code options} on {@code dir}, or skips saying why it cannot. */
  private void mountTmpfs(Path dir, String options) throws Exception {
    String why;
    try {
      Result r = run("mount", "-t", "tmpfs", "-o", options + ",size=16m,mode=0755", "tmpfs", dir.toString());
      if (r.exit == 0) {
        mounts.add(dir);
        return;
      }
      why = "mount -t tmpfs -o " + options + " failed (exit " + r.exit + "): " + r.output.trim();
    } catch (IOException e) {
      why = "cannot run mount: " + e;
    }
    String message = "SKIPPED: cannot test a " + options + " workdir here: " + why + " (needs root)";
    System.out.println(getClass().getSimpleName() + ": " + message);
    assumeTrue(false, message);
  }

  private static final class Result {
    final int exit;
    final String output;

    Result(int exit, String output) {
      this.exit = exit;
      this.output = output;
    }
  }

  private static Result run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(Java8.readAllBytes(p.getInputStream()), StandardCharsets.UTF_8);
    return new Result(p.waitFor(), out);
  }
}
