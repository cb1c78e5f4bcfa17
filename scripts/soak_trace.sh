#!/usr/bin/env bash
# Soak test (issue 6): open, analyse and close a large trace 50 times through the trace core and check RSS does not
# grow. Builds bench_trace_soak in a Release tree (default build/package, shared with ci_package.sh).
# Usage: scripts/soak_trace.sh [--trace FILE] [--size-mb N] [--rounds N]   (extra arguments go to bench_trace_soak)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MFU_SOAK_BUILD_DIR:-$root/build/package}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMFU_WARNINGS_AS_ERRORS=OFF >/dev/null
cmake --build "$build" --target bench_trace_soak -- -j"${MFU_JOBS:-2}" >/dev/null
"$build/bench/bench_trace_soak" --rules "$root/presets/kernels/kernel_rules.json" "$@"
