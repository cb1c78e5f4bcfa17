#!/usr/bin/env bash
# CI: build every libFuzzer target in fuzz/ with clang + ASan + UBSan (own tree build/fuzz), then run each from its
# seed corpus (fuzz/corpus/<name>/) for a bounded time. Any crash, sanitizer report, leak or escaped exception fails
# the script and leaves the reproducer in build/fuzz/findings/<name>/.
# Usage: scripts/ci_fuzz.sh [SECONDS_PER_TARGET]   (env MFU_FUZZ_TARGETS="hf_config presets" to pick)
# Without SECONDS_PER_TARGET the run shares a budget of MFU_FUZZ_BUDGET seconds (default 140) among the targets, at
# least 10 s each: adding a target does not lengthen CI.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/fuzz"
seconds=${1:-}
cc=${MFU_FUZZ_CC:-clang-14}
cxx=${MFU_FUZZ_CXX:-clang++-14}

# A fresh Debian 12 machine may lack clang and its libFuzzer runtime: install them (as bootstrap.sh does the rest).
if [[ -z "${MFU_FUZZ_CC:-}" ]]; then
  missing=()
  for p in clang-14 libclang-rt-14-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "ci_fuzz: installing ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMFU_BUILD_FUZZERS=ON
fi
cmake --build "$build" -- -j"${MFU_JOBS:-2}"

targets=${MFU_FUZZ_TARGETS:-$(cd "$root/fuzz" && ls fuzz_*.cpp | sed 's/^fuzz_//; s/\.cpp$//')}
if [[ -z "$seconds" ]]; then
  count=$(wc -w <<<"$targets")
  seconds=$(( ${MFU_FUZZ_BUDGET:-140} / (count > 0 ? count : 1) ))
  (( seconds >= 10 )) || seconds=10
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for name in $targets; do
  seeds="$root/fuzz/corpus/$name"
  [[ -d "$seeds" ]] || { echo "ci_fuzz: FAIL: fuzz_$name has no seed corpus $seeds" >&2; failed+=("$name"); continue; }
  work="$build/corpus/$name" # grows across runs; the committed seeds stay as they are
  findings="$build/findings/$name"
  mkdir -p "$work" "$findings"
  # Regression inputs (earlier findings, fixed) replay first: a crash there fails before any new fuzzing.
  regress=()
  [[ -d "$root/fuzz/regressions/$name" ]] && regress=("$root/fuzz/regressions/$name"/*)
  if ((${#regress[@]})); then
    "$build/fuzz/fuzz_$name" "${regress[@]}" >"$findings/regressions.log" 2>&1 \
      || { echo "ci_fuzz: FAIL: fuzz_$name crashes on a regression input (see $findings/regressions.log)" >&2
           failed+=("$name"); continue; }
  fi
  if "$build/fuzz/fuzz_$name" "$work" "$seeds" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
      -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1 >"$findings/run.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$findings/run.log")
    cov=$(grep -o 'cov: [0-9]*' "$findings/run.log" | tail -1)
    echo "ci_fuzz: fuzz_$name OK (${seconds}s, ${runs:-?} inputs, $cov, ${#regress[@]} regression inputs)"
  else
    echo "ci_fuzz: FAIL: fuzz_$name found a crash; reproducer and log in $findings/" >&2
    grep -E 'ERROR|SUMMARY|runtime error|terminate|uncaught' "$findings/run.log" | head -5 >&2 || true
    failed+=("$name")
  fi
done
if ((${#failed[@]})); then
  echo "ci_fuzz: FAIL: ${failed[*]}" >&2
  exit 1
fi
echo "ci_fuzz: OK"
