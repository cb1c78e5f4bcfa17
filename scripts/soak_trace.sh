#!/usr/bin/env bash
# Soak test: open, analyse and close a large trace 50 times through the trace core and check RSS does not
# grow. Builds bench_trace_soak in a Release tree (default build/release, the release preset's tree, which
# ci_package.sh builds in full before this stage runs).
# Usage: scripts/soak_trace.sh [--trace FILE] [--size-mb N] [--rounds N]   (extra arguments go to bench_trace_soak)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MFU_SOAK_BUILD_DIR:-$root/build/release}
if [[ -z "${MFU_SOAK_BUILD_DIR:-}" ]]; then
  (cd "$root" && cmake --preset release >/dev/null)
else
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target bench_trace_soak -- -j"${MFU_JOBS:-2}" >/dev/null
"$build/bench/bench_trace_soak" --rules "$root/presets/kernels/kernel_rules.json" "$@"
