#!/bin/sh
# Saves screenshots of the main window and each panel (light and dark palette) to look at: docs, reviews, "is anything clipped?".
# Uses the widget test's screenshot case, which builds the real MainWindow on the default scenario and grabs it
# offscreen (no display needed).
#   scripts/screenshot.sh [BUILD_DIR] [OUT_DIR]     defaults: build/dev, build/screenshots
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/dev}
out=${2:-$root/build/screenshots}
[ -d "$build" ] || cmake --preset dev -S "$root"
cmake --build "$build" --target tst_app_window_main_window tst_app_window_accessibility
mkdir -p "$out"
out=$(cd "$out" && pwd)
MFU_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen QT_FONT_DPI=96 \
    "$build/tests/tst_app_window_main_window" screenshot >/dev/null
# Every panel (and each Trace view, with a real trace when ../shared/traces is there) in both palettes.
MFU_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen QT_FONT_DPI=96 \
    "$build/tests/tst_app_window_accessibility" chartsAreLegibleInLightAndDarkPalettes >/dev/null
ls "$out"/main_window*.png "$out"/panel_*.png
