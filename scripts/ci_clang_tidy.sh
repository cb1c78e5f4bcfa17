#!/usr/bin/env bash
# CI's clang-tidy stage: scripts/clang_tidy.sh (.clang-tidy's bugprone-* and performance-* checks, warnings as errors)
# over the .cpp files of core/ and app/cli/ that this branch changes against main, with the dev tree's compile
# commands. Why not all of them: clang-tidy takes about 5 CPU-seconds a file here, and core/ + app/cli/ are 151
# files, some 6 minutes on the CI machine's two cores (measured November 2026 on a sample of 11 files: 55 s of CPU);
# core/ alone is 136 files, still over 5 minutes. This branch's 20 changed files took 125 s (82 s of CPU) with the
# machine shared by two other builds. `bash scripts/clang_tidy.sh` with no argument checks them all;
# MFU_TIDY_ALL=1 makes this stage do that too. A header's change is checked through the changed .cpp files only.
# Installs clang-tidy when it is missing and it can (root, apt); otherwise says so and skips the stage.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v "${MFU_CLANG_TIDY:-clang-tidy}" >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    (apt-get install -y -qq --no-install-recommends clang-tidy >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends clang-tidy >/dev/null 2>&1; }) \
      || true
  fi
  if ! command -v "${MFU_CLANG_TIDY:-clang-tidy}" >/dev/null; then
    echo "ci_clang_tidy: clang-tidy is not installed and could not be installed (apt-get install clang-tidy); stage skipped"
    exit 0
  fi
fi
if [ "${MFU_TIDY_ALL:-0}" = 1 ]; then
  exec bash scripts/clang_tidy.sh
fi
base=""
for ref in "${MFU_TIDY_BASE:-main}" origin/main; do
  base=$(git merge-base HEAD "$ref" 2>/dev/null) && break || base=""
done
if [ -z "$base" ]; then
  echo "ci_clang_tidy: no main branch to compare with (a shallow or single-branch clone); stage skipped"
  exit 0
fi
mapfile -t files < <(git diff --name-only --diff-filter=d "$base" HEAD -- 'core/*.cpp' 'app/cli/*.cpp')
if [ ${#files[@]} -eq 0 ]; then
  echo "ci_clang_tidy: no .cpp of core/ or app/cli/ changed against main ($(git rev-parse --short "$base"))"
  exit 0
fi
echo "ci_clang_tidy: ${#files[@]} files changed against main ($(git rev-parse --short "$base"))"
bash scripts/clang_tidy.sh "${files[@]}"
