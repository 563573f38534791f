package dev.tablecache.jni;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Deletes the extracted library files that processes which no longer exist left in a workdir (a
 * JVM killed between extraction and load leaves its file).
 */
final class StaleLibraries {

  /** Extracted files: {@code libtablecache-<pid>-<random digits>.<ext>} (createTempFile). */
  private static final Pattern EXTRACTED =
      Pattern.compile(
          "lib"
              + Platforms.LIBRARY_NAME
              + "-(\\d{1,19})-\\d+"
              + Pattern.quote(LibraryExtraction.extractedSuffix()));
  /**
   * Files of a dead pid younger than this are left alone: a live process of another pid
   * namespace sharing the directory (containers) may have the same pid number, and its file
   * exists only between extraction and load, which takes milliseconds.
   */
  static final long STALE_AFTER_MILLIS = TimeUnit.MINUTES.toMillis(1);

  private StaleLibraries() {}

  /**
   * Deletes the extracted files ({@code libtablecache-<pid>-<random>.<ext>}) of processes that
   * no longer exist from {@code dir}. Never touches this process's files (another class loader
   * may be loading one), those of a live process, or any younger than {@link
   * #STALE_AFTER_MILLIS}. Best effort: errors are ignored.
   *
   * @param alive whether a pid is a live process; null when that cannot be told (then nothing
   *     is deleted)
   * @return the files deleted
   */
  static List<Path> deleteStale(Path dir, long ownPid, LongPredicate alive, long nowMillis) {
    if (alive == null) {
      return Collections.emptyList();
    }
    List<Path> deleted = new ArrayList<>();
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(dir, "lib" + Platforms.LIBRARY_NAME + "-*")) {
      for (Path f : files) {
        Matcher m = EXTRACTED.matcher(f.getFileName().toString());
        if (!m.matches()) {
          continue;
        }
        long pid;
        try {
          pid = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
          continue;
        }
        try {
          if (pid <= 0
              || pid == ownPid
              || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
              || nowMillis - Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS).toMillis()
                  < STALE_AFTER_MILLIS
              || alive.test(pid)) {
            continue;
          }
          Files.delete(f);
          deleted.add(f);
        } catch (IOException | SecurityException e) {
          // gone already, another user's, or unreadable: not ours to worry about
        }
      }
    } catch (IOException | SecurityException | DirectoryIteratorException e) {
      // an unlistable workdir shows up as a clear error when the library is extracted
    }
    return deleted;
  }

  /**
   * Whether a pid is a live process, from /proc (Linux); null elsewhere, or when /proc is not
   * mounted, since a missing /proc/&lt;pid&gt; would then mean nothing.
   */
  static LongPredicate liveProcessTest() {
    if (!"linux".equals(Platforms.currentOs()) || !Files.isDirectory(Paths.get("/proc/self"))) {
      return null;
    }
    return pid -> Files.exists(Paths.get("/proc", Long.toString(pid)));
  }
}
