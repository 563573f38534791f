# Apache DataFusion Comet for the Comet e2e suite and the Comet benchmark modes.
# Source it; `comet_jar` prints the path of the Comet jar for Spark 4.1 / Scala 2.13, resolving it
# from Maven Central into ~/.m2 the first time (one ~99 MB jar, no transitive dependencies: it
# bundles what it needs, libcomet for linux amd64/aarch64 included).
COMET_VERSION="${COMET_VERSION:-1.2.0}"

comet_jar() {
  local artifact="org.apache.datafusion:comet-spark-spark4.1_2.13:$COMET_VERSION"
  local repo="${MAVEN_REPO:-$HOME/.m2/repository}"
  local jar="$repo/org/apache/datafusion/comet-spark-spark4.1_2.13/$COMET_VERSION/comet-spark-spark4.1_2.13-$COMET_VERSION.jar"
  if [[ ! -s "$jar" ]]; then
    echo "comet-env: resolving $artifact from Maven Central" >&2
    mvn -q -B dependency:get -Dartifact="$artifact" -Dtransitive=false >&2 || return 1
  fi
  if [[ ! -s "$jar" ]]; then
    echo "comet-env: $artifact not found at $jar" >&2
    return 1
  fi
  echo "$jar"
}
