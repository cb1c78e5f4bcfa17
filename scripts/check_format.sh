#!/usr/bin/env bash
# CI: every tracked C++ file is formatted as .clang-format says. A deviation fails the run and names its file, so
# formatting drift shows up in the commit that made it instead of piling up. Fix with:
#   git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${MFU_CLANG_FORMAT:-clang-format-14}
if ! command -v "$fmt" >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get install -y -qq --no-install-recommends clang-format-14 >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends clang-format-14 >/dev/null; }
  fi
  command -v "$fmt" >/dev/null || { echo "check_format: $fmt not found (apt-get install clang-format-14)"; exit 1; }
fi
# The formatting rules differ between clang-format releases; CI pins the one Debian 12 ships.
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if ! out=$("$fmt" --dry-run --Werror "${files[@]}" 2>&1); then
  echo "$out" | grep -E '^[^ ].*: (error|warning):' | cut -d: -f1 | sort -u | sed 's/^/check_format: not formatted: /'
  echo "check_format: run  git ls-files '*.cpp' '*.h' | xargs $fmt -i"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted as .clang-format says"
