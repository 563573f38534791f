# Shared set-up for scripts that cross-build or test linux/aarch64 (sourced, not executed; by
# scripts/build.sh and scripts/test.sh): how libtablecache is cross-built for linux/aarch64 (Rust
# target aarch64-unknown-linux-gnu) and how its Rust tests run under qemu-user.
#
# Tools (Debian; .ci/run installs them):
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
#   rustup target add aarch64-unknown-linux-gnu

AARCH64_TARGET=aarch64-unknown-linux-gnu
# Debian's multiarch root for aarch64 (libc and the dynamic loader qemu-user needs).
AARCH64_SYSROOT=/usr/aarch64-linux-gnu

# zstd-sys, lz4-sys and tikv-jemalloc-sys compile C code: Debian's cross gcc compiles it and
# links the cdylib and the test binaries.
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
# jemalloc bakes its page size in at configure time, and a cross build would take the build
# machine's 4 KiB. 64 KiB (2^16) pages work on 4 KiB, 16 KiB and 64 KiB aarch64 kernels alike
# (RHEL, Ampere and some Graviton images use 64 KiB). Target-prefixed: the amd64 build keeps
# its own detection.
export AARCH64_UNKNOWN_LINUX_GNU_JEMALLOC_SYS_WITH_LG_PAGE=16

# Prints one line per tool the cross build lacks; prints nothing when it can build.
aarch64_build_missing() {
  command -v aarch64-linux-gnu-gcc >/dev/null ||
    echo "aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
  [ -d "$(rustc --print sysroot)/lib/rustlib/$AARCH64_TARGET/lib" ] ||
    echo "the Rust standard library for $AARCH64_TARGET (rustup target add $AARCH64_TARGET)"
}

# Prints the qemu-user binary that runs aarch64 programs (qemu-user: qemu-aarch64; Debian 12's
# qemu-user-static: qemu-aarch64-static); prints nothing when there is none.
aarch64_qemu() {
  command -v qemu-aarch64 || command -v qemu-aarch64-static || true
}

# Sets cargo's runner for aarch64 binaries (cargo test --target ...) to qemu-user.
aarch64_use_qemu() {
  local qemu
  qemu="$(aarch64_qemu)"
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="$qemu -L $AARCH64_SYSROOT"
}

# Prints the path of an arm64 `java` that runs under qemu-user: Debian's openjdk-17-jre-headless
# and the libraries it loads, downloaded (apt-get download; needs `dpkg --add-architecture
# arm64` and apt-get update, as .ci/run does) and unpacked under DIR, not installed (an arm64
# JRE package would replace the amd64 one). Prints nothing when that is not possible. The path
# ends in bin/java because surefire's <jvm> insists on it; the file is a qemu wrapper.
aarch64_jvm() {
  local dir="$1" qemu
  qemu="$(aarch64_qemu)"
  [ -n "$qemu" ] || return 0
  if [ ! -x "$dir/root/usr/lib/jvm/java-17-openjdk-arm64/bin/java" ]; then
    dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 || return 0
    mkdir -p "$dir/debs" "$dir/root"
    (cd "$dir/debs" && apt-get download -q openjdk-17-jre-headless:arm64 libc6:arm64 \
      zlib1g:arm64 libstdc++6:arm64 libgcc-s1:arm64 >/dev/null 2>&1) || return 0
    for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
  fi
  mkdir -p "$dir/bin"
  printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$qemu" "$dir/root" \
    "$dir/root/usr/lib/jvm/java-17-openjdk-arm64/bin/java" >"$dir/bin/java"
  chmod +x "$dir/bin/java"
  "$dir/bin/java" -version >/dev/null 2>&1 && echo "$dir/bin/java"
}
