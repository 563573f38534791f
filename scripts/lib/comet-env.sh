# Apache DataFusion Comet for Spark 4.1 (sourced, not executed).
#
#   comet_jar   prints the path of the Comet jar in the local Maven repository, resolving it
#               from Maven Central first (mvn dependency:get, no transitive dependencies) when
#               it is missing

COMET_VERSION=1.2.0

comet_jar() {
  local artifact="comet-spark-spark4.1_2.13"
  local jar="$HOME/.m2/repository/org/apache/datafusion/$artifact/$COMET_VERSION/$artifact-$COMET_VERSION.jar"
  if [[ ! -f "$jar" ]]; then
    echo "resolving Comet $COMET_VERSION (mvn dependency:get)" >&2
    mvn -q dependency:get -Dartifact="org.apache.datafusion:$artifact:$COMET_VERSION" \
      -Dtransitive=false >&2 || return 1
  fi
  if [[ ! -f "$jar" ]]; then
    echo "Comet $COMET_VERSION not found at $jar after mvn dependency:get" >&2
    return 1
  fi
  echo "$jar"
}
