#!/usr/bin/env bash
# CI: build the release preset's application, Python module and benchmarks (warnings as errors, so the README's
# optimised build cannot rot; the tests are compiled with the same warnings by the dev and ASan stages, so they are not
# built a third time here, which keeps CI under its time budget), make the Debian package from that tree with CPack,
# check its control data declares the runtime libraries, install it with apt, run the installed binary (--version and
# a headless subcommand) and the installed Python module from Debian's python3, remove it.
# Needs root (apt-get install) on Debian 12 with the build dependencies and dpkg-dev (for dpkg-shlibdeps).
# Usage: scripts/ci_package.sh [--keep]   (--keep leaves the package installed)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/release" # the release preset's tree (CMakePresets.json)
keep=0
[[ "${1:-}" == "--keep" ]] && keep=1
fail() { echo "ci_package: FAIL: $*" >&2; exit 1; }

command -v dpkg-shlibdeps >/dev/null || fail "dpkg-shlibdeps not found (apt-get install dpkg-dev)"

# Reuse an existing tree: incremental builds keep CI fast. The release preset treats warnings as errors like dev and
# asan; the few GCC 12 optimiser false positives inside libstdc++ stay warnings (CMakeLists.txt, mfu_set_warnings).
# CPack's install step would otherwise build "all" (the tests too) first; what it installs (the application and
# the rendered icons, cmake/Install.cmake) is built explicitly below.
(cd "$root" && cmake --preset release -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null)
(cd "$root" && cmake --build --preset release -j"${MFU_JOBS:-2}" --target mfu-explorer mfu_icons benchmarks \
  mfu_explorer_python) || fail "the release preset does not build (the Python module needs pybind11-dev, python3-dev)"

# Metadata files are checked before packaging so a broken one fails here with the validator's message.
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net --pedantic "$root/resources/io.github.mfu_explorer.metainfo.xml"
fi
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$root/resources/mfu-explorer.desktop"
fi

rm -f "$build"/mfu-explorer_*.deb
# cpack runs the install step itself; tests and benchmarks have no install rules, so the package holds the application.
(cd "$build" && cpack -G DEB -D CPACK_CMAKE_GENERATOR=Ninja >/dev/null) || fail "cpack failed"
deb=$(ls "$build"/mfu-explorer_*.deb)
echo "ci_package: built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

version=$(sed -n 's/^project(mfu-explorer VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[[ "$(dpkg-deb -f "$deb" Version)" == "$version" ]] || fail "package version is not the project version $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "ci_package: Depends: $depends"
declared=" $(tr ',' '\n' <<<"$depends" | sed 's/(.*)//; s/^ *//; s/ *$//' | tr '\n' ' ')"
for lib in libqt6widgets6 libqt6gui6 libqt6core6 libqt6svg6 libqcustomplot2.1-qt6 zlib1g libsqlite3-0 libstdc++6; do
  [[ "$declared" == *" $lib "* ]] || fail "Depends does not declare $lib"
done

contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/mfu-explorer ./usr/share/applications/mfu-explorer.desktop \
  ./usr/share/mime/packages/mfu-explorer.xml ./usr/share/metainfo/io.github.mfu_explorer.metainfo.xml \
  ./usr/share/icons/hicolor/scalable/apps/mfu-explorer.svg ./usr/share/icons/hicolor/16x16/apps/mfu-explorer.png \
  ./usr/share/icons/hicolor/256x256/apps/mfu-explorer.png; do
  grep -q " $path\$" <<<"$contents" || fail "package lacks $path"
done
grep -q " ./usr/lib/python3/dist-packages/mfu_explorer\.cpython-.*\.so\$" <<<"$contents" \
  || fail "package lacks the Python module in /usr/lib/python3/dist-packages"

export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "$deb" >/dev/null || fail "apt-get install $deb failed"
installed_version=$(/usr/bin/mfu-explorer --version)
echo "ci_package: installed binary says: $installed_version"
[[ "$installed_version" == "mfu-explorer $version" ]] || fail "--version printed '$installed_version'"
/usr/bin/mfu-explorer presets --json >"$build/presets.json" || fail "installed 'mfu-explorer presets --json' failed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d, 'empty'" "$build/presets.json" \
  || fail "installed 'presets --json' printed no JSON"
/usr/bin/mfu-explorer calc --model llama-3.1-8b --gpu h100-sxm --gpus 8 --seq 8192 --tokens-per-sec 100000 --json \
  >"$build/calc.json" || fail "installed 'mfu-explorer calc' failed"
echo "ci_package: headless subcommands ran from the installed package"
# The installed module, found by Debian's python3 on its own path (no PYTHONPATH, away from the tree), equals the
# installed binary on the README's worked example.
mfu=$(cd / && env -u PYTHONPATH /usr/bin/python3 -c '
import json, subprocess, mfu_explorer
assert mfu_explorer.__file__.startswith("/usr/lib/python3/dist-packages/"), mfu_explorer.__file__
flags = ["--model", "llama-3.1-8b", "--gpu", "b200", "--seq", "8192", "--tokens-per-sec-per-gpu", "21111", "--json"]
binary = json.loads(subprocess.run(["/usr/bin/mfu-explorer", "calc", *flags], capture_output=True, check=True).stdout)
module = mfu_explorer.calc(model="llama-3.1-8b", gpu="b200", seq=8192, tokens_per_sec_per_gpu=21111)
assert module == binary, "the module and the binary differ"
print("%.2f" % (100 * module["mfu"]))') || fail "the installed Python module failed"
[[ "$mfu" == 54.34 ]] || fail "the installed module gave MFU $mfu%, not 54.34%"
echo "ci_package: installed Python module: calc equals the binary's (MFU $mfu%)"

if [[ $keep == 0 ]]; then
  apt-get remove -y -q mfu-explorer >/dev/null || fail "apt-get remove failed"
  [[ ! -e /usr/bin/mfu-explorer ]] || fail "/usr/bin/mfu-explorer still present after remove"
fi
echo "ci_package: OK"
