#pragma once
// The scenario settings as docs/cli.md shows them: a Markdown table built from the settings table
// (core/scenario/settings.h), so the reference cannot drift from the flags (tests/core/scenario/tst_settings.cpp
// compares the two).
#include <string>

namespace mfu {

// One row per setting: flag, scenario file key, accepted values, default, meaning; then the shorthand flags.
std::string settingsMarkdownTable();

} // namespace mfu
