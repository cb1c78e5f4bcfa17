#!/usr/bin/env bash
# One entry point for the README's quick start and for CI.
#   scripts/bootstrap.sh run    install what is missing, build (release) and launch the application
#   scripts/bootstrap.sh test   install what is missing, build (dev: debug, warnings as errors) and run every test
#   scripts/bootstrap.sh asan   the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
# Runs as root on Debian 12 (uses sudo when not root). Idempotent: installs only missing packages.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-run}"
shift || true

# pybind11-dev and python3-dev build the Python module (python/), python3-pytest and python3-pandas run its tests.
# ccache and mold only make builds faster (a rebuild from the cache, links in a fraction of GNU ld's time); the
# build works without them.
packages=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-svg-dev libgl-dev libqcustomplot-dev
  nlohmann-json3-dev zlib1g-dev libsqlite3-dev poppler-utils xvfb xauth dpkg-dev file
  pybind11-dev python3-dev python3-pytest python3-pandas ccache mold)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# A compiler cache keyed on paths relative to the checkout: a second build (another clone, a switched branch, CI
# after a local run) recompiles only what changed. The caller's own launcher settings win.
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=1
  # The tests and panels use precompiled headers: ccache caches those compilations only with this sloppiness.
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
fi

jobs=$(nproc)
case "$mode" in
  run)
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$jobs" --target mfu-explorer
    exec ./build/release/app/mfu-explorer "$@"
    ;;
  test)
    cmake --preset dev >/dev/null
    cmake --build --preset dev -j "$jobs"
    ctest --preset dev -j "$jobs" "$@"
    ;;
  asan)
    cmake --preset asan >/dev/null
    cmake --build --preset asan -j "$jobs"
    ctest --preset asan -j "$jobs" "$@"
    ;;
  *)
    echo "usage: scripts/bootstrap.sh run|test|asan" >&2
    exit 2
    ;;
esac
