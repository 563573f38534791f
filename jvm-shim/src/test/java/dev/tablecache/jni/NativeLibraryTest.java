package dev.tablecache.jni;

import static dev.tablecache.Assertions2.assertKind;
import static org.junit.jupiter.api.Assertions.*;

import dev.tablecache.Java8;
import dev.tablecache.TableCacheException;
import dev.tablecache.TableCacheException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader's handshakes ({@link LibraryHandshake}), resource naming ({@link Platforms}),
 * extraction and workdir checks ({@link LibraryExtraction}) and stale-file cleanup ({@link
 * StaleLibraries}), checked without loading the library (NativeLoaderTest loads it, in fresh
 * class loaders).
 */
class NativeLibraryTest {

  @TempDir Path tmp;

  @Test
  void versionHandshakeRefusesMismatches() {
    LibraryHandshake.checkVersion("0.1.0", "0.1.0", "test");
    TableCacheException e =
        assertKind(Kind.NATIVE_UNAVAILABLE, () -> LibraryHandshake.checkVersion("0.1.0", "0.0.9", "/x/libtablecache.so"));
    assertTrue(e.getMessage().contains("0.1.0") && e.getMessage().contains("0.0.9"), e.getMessage());
    assertKind(Kind.NATIVE_UNAVAILABLE, () -> LibraryHandshake.checkVersion("0.1.0", null, "x"));
  }

  @Test
  void jarVersionIsFiltered() {
    String v = NativeLibrary.jarVersion();
    assertFalse(v.contains("$"), v);
    assertEquals(System.getProperty("tablecache.expected.version", v), v);
  }

  @Test
  void resourcePathNamesOsAndArch() {
    String p = NativeLibrary.resourcePath();
    assertTrue(p.matches("/[a-z0-9]+/[a-z0-9_]+/.*tablecache.*"), p);
    if (System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64")) {
      assertEquals("/linux/amd64/libtablecache.so", p);
    }
  }

  @Test
  void linuxArchesMapToTheJarDirectories() {
    assertEquals("/linux/amd64/libtablecache.so", linuxOnly("Linux", "amd64"));
    assertEquals("/linux/amd64/libtablecache.so", linuxOnly("Linux", "x86_64"));
    assertEquals("/linux/aarch64/libtablecache.so", linuxOnly("Linux", "aarch64"));
    assertEquals("/linux/aarch64/libtablecache.so", linuxOnly("Linux", "arm64"));
    assertTrue(Platforms.isSupported("Linux", "aarch64"));
    assertTrue(Platforms.isSupported("Linux", "amd64"));
    assertEquals("darwin/aarch64", Platforms.platform("Mac OS X", "aarch64"));
    assertEquals("linux/ppc64le", Platforms.platform("Linux", "ppc64le"));
    assertFalse(Platforms.isSupported("Mac OS X", "aarch64"));
    assertFalse(Platforms.isSupported("Linux", "ppc64le"));
    assertFalse(Platforms.isSupported("Windows 11", "amd64"));
  }

  @Test
  void unsupportedPlatformMessageNamesItAndTheSupportedOnes() {
    String m = Platforms.missingLibraryMessage("Mac OS X", "arm64");
    assertTrue(m.startsWith("tablecache has no native library for darwin/aarch64"), m);
    assertTrue(m.contains("os.name=Mac OS X, os.arch=arm64"), m);
    assertTrue(m.contains("supported platforms: linux/amd64, linux/aarch64"), m);
    assertTrue(m.contains("-D" + NativeLibrary.PATH_PROPERTY), m);
    assertTrue(
        Platforms.missingLibraryMessage("Linux", "s390x")
            .startsWith("tablecache has no native library for linux/s390x"));
  }

  @Test
  void supportedPlatformWithoutItsLibrarySaysTheJarLacksIt() {
    String m = Platforms.missingLibraryMessage("Linux", "aarch64");
    assertTrue(m.startsWith("this jar was built without the linux/aarch64 native library"), m);
    assertTrue(m.contains("/linux/aarch64/libtablecache.so"), m);
    assertTrue(m.contains("supported platforms: linux/amd64, linux/aarch64"), m);
  }

  @Test
  void theJarCarriesTheLibraryOfEverySupportedPlatformItWasBuiltWith() {
    // The amd64 library is always required by the build; aarch64 only when Maven was told to
    // require it (-Dtablecache.requireAarch64=true, which CI sets through scripts/build.sh).
    assertNotNull(NativeLibrary.class.getResource("/linux/amd64/libtablecache.so"));
    if (Boolean.getBoolean("tablecache.requireAarch64")) {
      assertNotNull(NativeLibrary.class.getResource("/linux/aarch64/libtablecache.so"));
    }
  }

  @Test
  void theJarCarriesTheBuildIdOfEveryLibraryItCarries() throws IOException {
    for (String platform : NativeLibrary.SUPPORTED_PLATFORMS) {
      boolean library = NativeLibrary.class.getResource("/" + platform + "/libtablecache.so") != null;
      String idResource = "/" + platform + "/" + Platforms.BUILD_ID_FILE;
      try (InputStream in = NativeLibrary.class.getResourceAsStream(idResource)) {
        assertEquals(library, in != null, "the jar must carry " + idResource + " exactly with its library");
        if (in != null) {
          String id = new String(Java8.readAllBytes(in), java.nio.charset.StandardCharsets.UTF_8).trim();
          String triple = platform.equals("linux/amd64") ? "x86_64-unknown-linux-gnu" : "aarch64-unknown-linux-gnu";
          assertTrue(id.matches(java.util.regex.Pattern.quote(triple) + "-[a-z0-9_-]+-[0-9a-f]{32}"), id);
        }
      }
    }
    assertEquals("/linux/aarch64/libtablecache.build-id", Platforms.buildIdResourcePath("Linux", "arm64"));
  }

  @Test
  void buildIdHandshakeRefusesMismatchesNamingBothIds() {
    LibraryHandshake.checkBuildId("x86_64-unknown-linux-gnu-release-ab", "x86_64-unknown-linux-gnu-release-ab", "test");
    TableCacheException e =
        assertKind(
            Kind.NATIVE_UNAVAILABLE,
            () -> LibraryHandshake.checkBuildId("jar-id-1", "lib-id-2", "/x/libtablecache.so (from -Dtablecache.native.path)"));
    String m = e.getMessage();
    assertTrue(m.contains("jar-id-1") && m.contains("lib-id-2"), m);
    assertTrue(m.contains("/x/libtablecache.so (from -Dtablecache.native.path)"), m);
    assertTrue(m.contains(NativeLibrary.buildIdResourcePath()), m);
    assertKind(Kind.NATIVE_UNAVAILABLE, () -> LibraryHandshake.checkBuildId("jar-id-1", null, "x"));
  }

  /** The extraction step alone: an owner-only file in the workdir, named by pid, before any load. */
  @Test
  void extractedFileIsOwnerOnlyBeforeItIsLoaded() throws IOException {
    LibraryExtraction.Workdir wd = LibraryExtraction.Workdir.resolve(tmp.toString(), "/nonexistent-tmpdir");
    assertEquals(tmp.toAbsolutePath(), wd.dir);
    Path f = LibraryExtraction.extract(NativeLibrary.resourcePath(), wd);
    try {
      assertEquals(tmp.toAbsolutePath(), f.getParent());
      // Whatever the umask: createTempFile made it 0600, and the library was written into it.
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
      assertTrue(
          f.getFileName().toString().matches("libtablecache-" + LibraryExtraction.currentPid() + "-\\d+\\.so"),
          f.toString());
      assertTrue(LibraryExtraction.currentPid() > 0);
      try (InputStream in = NativeLibrary.class.getResourceAsStream(NativeLibrary.resourcePath())) {
        assertArrayEquals(Java8.readAllBytes(in), Files.readAllBytes(f));
      }
    } finally {
      Files.delete(f);
    }
  }

  @Test
  void workdirThatIsMissingOrAFileIsRefusedNamingItAndTheProperty() throws IOException {
    Path missing = tmp.resolve("missing");
    String m = assertKind(Kind.NATIVE_UNAVAILABLE, () -> LibraryExtraction.Workdir.resolve(missing.toString(), "/tmp")).getMessage();
    assertTrue(m.contains(missing + " (from -D" + NativeLibrary.WORKDIR_PROPERTY + ") does not exist"), m);
    Path file = Files.createFile(tmp.resolve("file"));
    m = assertKind(Kind.NATIVE_UNAVAILABLE, () -> LibraryExtraction.Workdir.resolve(file.toString(), "/tmp")).getMessage();
    assertTrue(m.contains(file + " (from -D" + NativeLibrary.WORKDIR_PROPERTY + ") is not a directory"), m);
    // Without the property: java.io.tmpdir, and the message says so.
    m = assertKind(Kind.NATIVE_UNAVAILABLE, () -> LibraryExtraction.Workdir.resolve(" ", missing.toString())).getMessage();
    assertTrue(m.contains(missing + " (from java.io.tmpdir, the default of -D" + NativeLibrary.WORKDIR_PROPERTY + ")"), m);
    assertEquals(tmp.toAbsolutePath(), LibraryExtraction.Workdir.resolve(null, tmp.toString()).dir);
  }

  @Test
  void loadFailureMessagesTellNoexecFromADamagedFile() throws IOException {
    LibraryExtraction.Workdir wd = LibraryExtraction.Workdir.resolve(tmp.toString(), "/tmp");
    Path f = tmp.resolve("libtablecache-1-2.so");
    String glibc = f + ": " + f + ": failed to map segment from shared object";
    String m = LibraryExtraction.loadFailure(f, wd, glibc, null);
    assertTrue(m.contains(glibc), m);
    assertTrue(m.contains("probably on a file system mounted noexec"), m);
    assertTrue(m.contains("workdir " + tmp.toAbsolutePath() + " (from -D" + NativeLibrary.WORKDIR_PROPERTY + ")"), m);
    assertTrue(m.contains("set -D" + NativeLibrary.WORKDIR_PROPERTY), m);
    m = LibraryExtraction.loadFailure(f, wd, "Operation not permitted", "/mnt/x");
    assertTrue(m.contains("mounted noexec (mount point /mnt/x)"), m);
    m = LibraryExtraction.loadFailure(f, wd, f + ": invalid ELF header", null);
    assertFalse(m.contains("noexec"), m);
    assertTrue(m.contains("invalid ELF header") && m.contains("damaged"), m);
  }

  /** The cleanup rule alone, with a stated set of live pids (NativeLoaderTest uses /proc). */
  @Test
  void staleFilesOfDeadPidsAreDeletedOthersKept() throws IOException {
    long own = 100, live = 200, dead = 300;
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 2 * StaleLibraries.STALE_AFTER_MILLIS);
    Path deadOld = oldFile("libtablecache-" + dead + "-123.so", old);
    Path deadOld2 = oldFile("libtablecache-" + dead + "-456.so", old);
    Set<Path> kept = new HashSet<>();
    kept.add(oldFile("libtablecache-" + live + "-123.so", old));
    kept.add(oldFile("libtablecache-" + own + "-123.so", old));
    kept.add(Files.createFile(tmp.resolve("libtablecache-" + dead + "-789.so"))); // too young
    kept.add(oldFile("libtablecache-" + dead + "-123.so.partial", old));
    kept.add(oldFile("libtablecache-x-123.so", old));
    kept.add(oldFile("libtablecache-0-123.so", old)); // pid unknown when it was written
    kept.add(oldFile("libtablecache-123-libtablecache.so", old)); // the old naming: no pid
    kept.add(oldFile("other-" + dead + "-123.so", old));
    Path dir = Files.createDirectory(tmp.resolve("libtablecache-" + dead + "-1.so"));
    kept.add(dir);
    Path link = tmp.resolve("libtablecache-" + dead + "-999.so");
    Files.createSymbolicLink(link, kept.iterator().next());
    kept.add(link);

    List<Path> deleted =
        StaleLibraries.deleteStale(tmp, own, pid -> pid == own || pid == live, System.currentTimeMillis());
    assertEquals(new HashSet<>(Arrays.asList(deadOld, deadOld2)), new HashSet<>(deleted));
    assertFalse(Files.exists(deadOld) || Files.exists(deadOld2));
    for (Path p : kept) {
      assertTrue(Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS), "deleted " + p);
    }
    // Where liveness cannot be told, nothing is deleted.
    Path again = oldFile("libtablecache-" + dead + "-1000.so", old);
    assertTrue(StaleLibraries.deleteStale(tmp, own, null, System.currentTimeMillis()).isEmpty());
    assertTrue(Files.exists(again));
  }

  private Path oldFile(String name, FileTime mtime) throws IOException {
    Path p = Files.createFile(tmp.resolve(name));
    Files.setLastModifiedTime(p, mtime);
    return p;
  }

  /** The resource path for a fake os.name/os.arch, file name as on Linux whatever the host. */
  private static String linuxOnly(String os, String arch) {
    return Platforms.resourcePath(os, arch)
        .replace(System.mapLibraryName("tablecache"), "libtablecache.so");
  }
}
