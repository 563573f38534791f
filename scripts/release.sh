#!/usr/bin/env bash
# Stages a release the way Spark users install plugins: a local Maven repository with one
# artifact per Spark line, and the wheel beside it.
#
#   scripts/release.sh [MAVEN_REPO_DIR [PYTHON_DIR]]
#     MAVEN_REPO_DIR  default target/release/maven
#     PYTHON_DIR      default target/release/python
#
# From the jars and the wheel scripts/build.sh produced (it runs build.sh first when they are
# missing or older than the sources), for each Spark line:
#   dev.tablecache:tablecache-spark4_2.13:<version>    Spark 4.x   (jvm-shim -Pspark-4)
#   dev.tablecache:tablecache-spark3.5_2.12:<version>  Spark 3.5.x (jvm-shim -Pspark-3.5)
# it lays out MAVEN_REPO_DIR/dev/tablecache/<artifactId>/<version>/<artifactId>-<version>
#   .jar          the jar build.sh built (classes, both native libraries, their build ids)
#   -sources.jar  maven-source-plugin (jvm-shim/pom.xml; bound to no phase, run here)
#   -javadoc.jar  maven-javadoc-plugin, at the line's --release (8 for 3.5, 17 for 4)
#   .pom          a consumer POM: coordinates, name, description, url, licence, scm, developers,
#                 issue tracker (copied from jvm-shim/pom.xml) and no dependencies: the jar needs
#                 only what Spark's own classpath has (checked below with jdeps)
# each with .md5, .sha1, .sha256 and .sha512, and MAVEN_REPO_DIR/dev/tablecache/<artifactId>/
# maven-metadata.xml (every version staged there) with its checksums. PYTHON_DIR gets the wheel,
# its SHA256SUMS and a PEP 503 simple index (PYTHON_DIR/simple/), so either of
#   pip install --no-index --find-links PYTHON_DIR tablecache
#   pip install --index-url file://PYTHON_DIR/simple tablecache
# installs it. Then Maven itself resolves every staged artifact back (strict checksums, a
# throwaway local repository) and must get the same bytes and nothing more. One version number throughout (scripts/lib/versions.sh: Cargo, the native
# library's handshake, the pom, the wheel); the script fails, naming each, when they disagree.
# Publishing (signing, uploading to a remote repository or index) is not done here.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
. scripts/lib/versions.sh
version="$(tablecache_version)" || exit 1
maven_dir="${1:-target/release/maven}"
python_dir="${2:-target/release/python}"
mkdir -p "$maven_dir" "$python_dir"
maven_dir="$(cd "$maven_dir" && pwd)"
python_dir="$(cd "$python_dir" && pwd)"
group=dev.tablecache
lines=("4 2.13" "3.5 2.12")

jar_of() { echo "$root/jvm-shim/target/spark-$1/tablecache-$version-spark$1_$2.jar"; }
wheel="$root/target/python/tablecache-$version-py3-none-any.whl"

# The jars and the wheel, rebuilt when missing or older than what goes into them.
rebuild=""
for entry in "${lines[@]}"; do
  set -- $entry
  jar="$(jar_of "$1" "$2")"
  if [[ ! -f "$jar" ]]; then
    rebuild="missing $jar"
  elif [[ -n "$(find native/format/src native/jni/src native/format/Cargo.toml native/jni/Cargo.toml \
                  native/jni/build.rs Cargo.toml Cargo.lock jvm-shim/src/main jvm-shim/pom.xml \
                  -newer "$jar" -print -quit)" ]]; then
    rebuild="$jar is older than the sources"
  fi
done
if [[ -z "$rebuild" ]]; then
  if [[ ! -f "$wheel" ]]; then
    rebuild="missing $wheel"
  elif [[ -n "$(find python/src python/pyproject.toml python/README.md python/LICENSE \
                  "$(jar_of 4 2.13)" "$(jar_of 3.5 2.12)" -type f -newer "$wheel" -print -quit)" ]]; then
    rebuild="$wheel is older than its sources"
  fi
fi
if [[ -n "$rebuild" ]]; then
  echo "release: $rebuild; running scripts/build.sh" >&2
  scripts/build.sh >&2
fi

# Packages a jar may use without declaring a dependency: every one is on Spark's own classpath
# (the JDK, Scala, Spark, and jars in Spark's jars/ on 3.5 and 4.x: Arrow Java and its
# flatbuffers-java, slf4j-api, kryo-shaded, metrics-core, janino, hadoop-client-api, Jackson,
# Guava).
provided='^(java|javax|jdk|sun|scala|org\.apache\.spark|org\.apache\.arrow|com\.google\.flatbuffers|org\.slf4j|com\.esotericsoftware|com\.codahale\.metrics|org\.codehaus\.janino|org\.codehaus\.commons|org\.apache\.hadoop|com\.fasterxml\.jackson|com\.google\.common)(\.|$)'

for entry in "${lines[@]}"; do
  set -- $entry
  line="$1" scala="$2"
  artifact="tablecache-spark${line}_$scala"
  jar="$(jar_of "$line" "$scala")"
  build_dir="$root/jvm-shim/target/spark-$line"
  echo "release: $group:$artifact:$version from $jar"

  # The jar is the one this version's build made: the version its handshake answers, a native
  # library with its build id for each platform it carries, and the entry points.
  listing="$(unzip -Z1 "$jar")"
  jar_version="$(unzip -p "$jar" dev/tablecache/version.properties | sed -n 's/^version=//p')"
  [[ "$jar_version" == "$version" ]] || {
    echo "release: $jar says version '$jar_version' (dev/tablecache/version.properties), not $version" >&2
    exit 1
  }
  for class in NativeCachedBatchSerializer NativeCachedBatch TableCacheExtensions TableCachePlugin \
               TableCacheKryoRegistrator; do
    grep -qx "dev/tablecache/spark/$class.class" <<<"$listing" \
      || { echo "release: $jar lacks dev.tablecache.spark.$class" >&2; exit 1; }
  done
  platforms=()
  for platform in linux/amd64 linux/aarch64; do
    if grep -qx "$platform/libtablecache.so" <<<"$listing"; then
      grep -qx "$platform/libtablecache.build-id" <<<"$listing" \
        || { echo "release: $jar has $platform/libtablecache.so without its build id" >&2; exit 1; }
      platforms+=("$platform")
    fi
  done
  [[ " ${platforms[*]} " == *" linux/amd64 "* ]] \
    || { echo "release: $jar carries no linux/amd64 library" >&2; exit 1; }
  echo "release:   native libraries: ${platforms[*]}"

  # No dependency to declare: every package the jar's classes use outside the jar is provided.
  foreign="$(jdeps -verbose:package "$jar" 2>/dev/null \
    | sed -n 's/^ *dev\.tablecache[^ ]* *-> *\([^ ]*\).*/\1/p' | grep -v '^dev\.tablecache' | sort -u)"
  [[ -n "$foreign" ]] || { echo "release: jdeps found no dependencies of $jar (jdeps failed?)" >&2; exit 1; }
  undeclared="$(grep -Ev "$provided" <<<"$foreign" || true)"
  if [[ -n "$undeclared" ]]; then
    printf 'release: %s uses packages Spark does not provide; the POM would need dependencies for:\n%s\n' \
      "$jar" "$undeclared" >&2
    exit 1
  fi
  echo "release:   uses $(wc -l <<<"$foreign") packages outside the jar, all on Spark's classpath:" \
    "$(grep -Ev '^(java|javax|jdk|sun)\.' <<<"$foreign" | grep -Eo '^[a-z]+\.[a-z]+' | sort -u | paste -sd ' ')"

  # Sources and javadoc (the plugins in jvm-shim/pom.xml; javadoc at the line's --release).
  rm -f "$build_dir"/tablecache-"$version"-spark"${line}_$scala"-{sources,javadoc}.jar
  (cd jvm-shim && mvn -B -q -Dstyle.color=never -Pspark-"$line" -Dtablecache.skipNative=true \
    generate-sources source:jar-no-fork javadoc:jar)

  dir="$maven_dir/${group//.//}/$artifact/$version"
  rm -rf "$dir" && mkdir -p "$dir"
  base="$dir/$artifact-$version"
  cp "$jar" "$base.jar"
  mv "$build_dir/tablecache-$version-spark${line}_$scala-sources.jar" "$base-sources.jar"
  mv "$build_dir/tablecache-$version-spark${line}_$scala-javadoc.jar" "$base-javadoc.jar"
  for kind in sources javadoc; do
    # The listing is read whole before grep: 'unzip | grep -q' under pipefail fails whenever grep
    # exits on its match before unzip's last write (SIGPIPE), which is how stop 34 and 35's CI failed.
    listing="$(unzip -Z1 "$base-$kind.jar")"
    grep -q 'dev/tablecache/spark/NativeCachedBatchSerializer\.\(java\|html\)$' <<<"$listing" \
      || { echo "release: $base-$kind.jar does not document NativeCachedBatchSerializer" >&2; exit 1; }
  done

  # The consumer POM: what a resolver reads. No <dependencies>, no build, no profiles.
  python3 - "$root/jvm-shim/pom.xml" "$base.pom" "$group" "$artifact" "$version" "$line" "$scala" \
    "${platforms[*]}" <<'EOF'
import sys
import xml.etree.ElementTree as ET

src, out, group, artifact, version, line, scala, platforms = sys.argv[1:]
NS = "http://maven.apache.org/POM/4.0.0"
ET.register_namespace("", NS)
ET.register_namespace("xsi", "http://www.w3.org/2001/XMLSchema-instance")
build = ET.parse(src).getroot()


def tag(name):
    return f"{{{NS}}}{name}"


pom = ET.Element(tag("project"))
pom.set("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation",
        f"{NS} https://maven.apache.org/xsd/maven-4.0.0.xsd")
for name, text in [("modelVersion", "4.0.0"), ("groupId", group), ("artifactId", artifact),
                   ("version", version), ("packaging", "jar"),
                   ("name", f"tablecache for Spark {line} (Scala {scala})"),
                   ("description", build.findtext(tag("description")).strip()
                    + f". For Spark {line}.x with Scala {scala}: set spark.sql.cache.serializer="
                    "dev.tablecache.spark.NativeCachedBatchSerializer. Carries its native library"
                    f" for {' and '.join(platforms.split())}; Spark, Scala and Arrow come from"
                    " Spark."),
                   ("url", build.findtext(tag("url")))]:
    ET.SubElement(pom, tag(name)).text = text
for name in ["licenses", "developers", "scm", "issueManagement"]:
    element = build.find(tag(name))
    if element is None:
        sys.exit(f"release: jvm-shim/pom.xml has no <{name}> for the consumer POM")
    pom.append(element)
ET.indent(pom)
ET.ElementTree(pom).write(out, encoding="UTF-8", xml_declaration=True)
EOF

  # maven-metadata.xml: every version staged for this artifact.
  meta_dir="$maven_dir/${group//.//}/$artifact"
  versions="$(find "$meta_dir" -mindepth 2 -maxdepth 2 -name '*.pom' -printf '%h\n' \
    | xargs -n1 basename | sort -V)"
  latest="$(tail -n1 <<<"$versions")"
  {
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n'
    printf '  <groupId>%s</groupId>\n  <artifactId>%s</artifactId>\n  <versioning>\n' "$group" "$artifact"
    printf '    <latest>%s</latest>\n    <release>%s</release>\n    <versions>\n' "$latest" "$latest"
    while read -r v; do printf '      <version>%s</version>\n' "$v"; done <<<"$versions"
    printf '    </versions>\n    <lastUpdated>%s</lastUpdated>\n  </versioning>\n</metadata>\n' \
      "$(date -u +%Y%m%d%H%M%S)"
  } >"$meta_dir/maven-metadata.xml"

  for file in "$base.jar" "$base-sources.jar" "$base-javadoc.jar" "$base.pom" "$meta_dir/maven-metadata.xml"; do
    for sum in md5 sha1 sha256 sha512; do
      "${sum}sum" "$file" | cut -d' ' -f1 >"$file.$sum"
    done
  done
done

# Maven's own resolver reads the staged repository back as a consumer would: a throwaway project
# that depends on each staged jar, sources and javadoc (and, through each POM, on whatever it
# declares: nothing), resolved with strict checksums (-C fails on any mismatch) into a throwaway
# local repository (never ~/.m2, where Spark's --packages would look first), copied out and
# compared byte for byte with the staged files.
verify="$(mktemp -d)"
trap 'rm -rf "$verify"' EXIT
{
  printf '<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n'
  printf '  <groupId>local</groupId><artifactId>verify-release</artifactId><version>0</version>\n'
  printf '  <repositories><repository><id>staged</id><url>file://%s</url></repository></repositories>\n' "$maven_dir"
  printf '  <dependencies>\n'
  for entry in "${lines[@]}"; do
    set -- $entry
    for classifier in "" sources javadoc; do
      printf '    <dependency><groupId>%s</groupId><artifactId>tablecache-spark%s_%s</artifactId><version>%s</version>%s</dependency>\n' \
        "$group" "$1" "$2" "$version" "${classifier:+<classifier>$classifier</classifier>}"
    done
  done
  printf '  </dependencies>\n  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId>'
  printf '<artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin></plugins></build>\n</project>\n'
} >"$verify/pom.xml"
(cd "$verify" && mvn -B -q -C -Dstyle.color=never -Dmaven.repo.local="$verify/m2" \
  dependency:copy-dependencies -DoutputDirectory="$verify/got") \
  || { echo "release: Maven cannot resolve the staged artifacts from $maven_dir" >&2; exit 1; }
for entry in "${lines[@]}"; do
  set -- $entry
  artifact="tablecache-spark$1_$2"
  for suffix in "" -sources -javadoc; do
    cmp "$verify/got/$artifact-$version$suffix.jar" "$maven_dir/${group//.//}/$artifact/$version/$artifact-$version$suffix.jar"
  done
done
[[ "$(ls "$verify/got" | wc -l)" == 6 ]] \
  || { echo "release: resolving the staged artifacts brought in more than they are:" $(ls "$verify/got") >&2; exit 1; }
echo "release: Maven resolves both artifacts (jar, sources, javadoc; no dependencies) with strict checksums"

# The wheel, its checksum and a simple index.
wheel_version="$(unzip -p "$wheel" "tablecache-$version.dist-info/METADATA" | sed -n 's/^Version: //p')"
[[ "$wheel_version" == "$version" ]] || {
  echo "release: $wheel says Version '$wheel_version', not $version" >&2
  exit 1
}
for entry in "${lines[@]}"; do
  set -- $entry
  cmp -s <(unzip -p "$wheel" "tablecache/jars/tablecache-$version-spark$1_$2.jar") "$(jar_of "$1" "$2")" \
    || { echo "release: $wheel's spark$1_$2 jar differs from $(jar_of "$1" "$2")" >&2; exit 1; }
done
rm -f "$python_dir"/tablecache-*.whl
cp "$wheel" "$python_dir/"
wheel_name="$(basename "$wheel")"
(cd "$python_dir" && sha256sum "$wheel_name" >SHA256SUMS)
mkdir -p "$python_dir/simple/tablecache"
printf '<!DOCTYPE html>\n<html><body>\n<a href="tablecache/">tablecache</a>\n</body></html>\n' \
  >"$python_dir/simple/index.html"
printf '<!DOCTYPE html>\n<html><body>\n<a href="../../%s#sha256=%s" data-requires-python="%s">%s</a>\n</body></html>\n' \
  "$wheel_name" "$(sha256sum "$wheel" | cut -d' ' -f1)" \
  "$(unzip -p "$wheel" "tablecache-$version.dist-info/METADATA" | sed -n 's/^Requires-Python: //p' | sed 's/>/\&gt;/g; s/</\&lt;/g')" \
  "$wheel_name" >"$python_dir/simple/tablecache/index.html"

echo "release: tablecache $version staged"
echo "  Maven repository $maven_dir:"
(cd "$maven_dir" && find dev -type f -not -name '*.md5' -not -name '*.sha*' | sort | sed 's/^/    /')
echo "    (each with .md5 .sha1 .sha256 .sha512)"
echo "  wheel $python_dir/$wheel_name (SHA256SUMS; simple index $python_dir/simple/)"
