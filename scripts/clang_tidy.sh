#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy's bugprone-* and performance-* checks, warnings as errors) over the given files, or
# over every .cpp of core/ and app/cli/ by default, with the dev tree's compile commands. Exit status 1 on a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
tidy=${MFU_CLANG_TIDY:-clang-tidy}
db=${MFU_COMPILE_DB:-build/dev}
[ -f "$db/compile_commands.json" ] || { echo "clang_tidy: no $db/compile_commands.json (cmake --preset dev first)"; exit 1; }
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files 'core/*.cpp' 'app/cli/*.cpp'); fi
# The tree is built by GCC with precompiled headers: clang reads neither GCC's .gch nor its -Werror=<gcc-only>
# options, so a copy of the compile commands without them is what clang-tidy gets.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$db/compile_commands.json" "$tmp/compile_commands.json" <<'PY'
import json, re, shlex, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    words = shlex.split(e.pop("command")) if "command" in e else e.pop("arguments")
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w == "-include" or w == "-Xclang":
            skip = True  # its argument is the precompiled header
            continue
        if "cmake_pch" in w or w == "-Winvalid-pch" or w.startswith("-fpch"):
            continue
        out.append(w)
    e["arguments"] = out + ["-Wno-unknown-warning-option"]
json.dump(entries, open(sys.argv[2], "w"))
PY
db=$tmp
# Two at a time on the CI machine's two cores; each file's findings print together.
printf '%s\n' "${files[@]}" | xargs -P "${MFU_TIDY_JOBS:-2}" -n 4 "$tidy" -p "$db" --quiet >"$tmp/findings" 2>&1 || true
if grep -qE '(warning|error):' "$tmp/findings"; then
  grep -E -A3 '(warning|error):' "$tmp/findings"
  echo "clang_tidy: $(grep -cE '(warning|error):' "$tmp/findings") findings in ${#files[@]} files"
  exit 1
fi
echo "clang_tidy: ${#files[@]} files clean"
