# The one version number (sourced, not executed; by scripts/build.sh and scripts/release.sh).
#
#   tablecache_version   prints the version when every place that carries it agrees, else
#                        prints each place with its version to stderr and returns 1:
#     Cargo.toml [workspace.package] version
#     the tablecache-jni crate (cargo metadata): its CARGO_PKG_VERSION is what the native
#       library answers in the loader's handshake (native/jni/src/exports/probe.rs VERSION)
#     jvm-shim/pom.xml <version>: what the jar answers (Maven-filtered
#       dev/tablecache/version.properties, jni/LibraryHandshake.java)
#     python/pyproject.toml [project] version: the wheel's
# A release bumps the first, the pom and pyproject together; this catches one left behind.

TC_VERSIONS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

tablecache_version() {
  local root="$TC_VERSIONS_ROOT" cargo jni pom py
  cargo="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n1)"
  jni="$(cd "$root" && cargo metadata --no-deps --format-version 1 --offline 2>/dev/null \
    | python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "tablecache-jni"))' \
    2>/dev/null || true)"
  pom="$(python3 -c 'import sys, xml.etree.ElementTree as ET; print(ET.parse(sys.argv[1]).getroot().findtext("{http://maven.apache.org/POM/4.0.0}version"))' \
    "$root/jvm-shim/pom.xml")"
  py="$(sed -n '/^\[project\]/,/^\[/s/^version = "\(.*\)"$/\1/p' "$root/python/pyproject.toml" | head -n1)"
  if [[ -n "$cargo" && "$jni" == "$cargo" && "$pom" == "$cargo" && "$py" == "$cargo" ]]; then
    echo "$cargo"
    return 0
  fi
  {
    echo "tablecache's version numbers disagree; set them all to one version:"
    printf '  %-50s %s\n' "Cargo.toml [workspace.package] version" "${cargo:-<none>}" \
      "tablecache-jni (cargo metadata; native handshake)" "${jni:-<none: cargo metadata failed>}" \
      "jvm-shim/pom.xml <version> (jar handshake)" "${pom:-<none>}" \
      "python/pyproject.toml [project] version (wheel)" "${py:-<none>}"
  } >&2
  return 1
}
