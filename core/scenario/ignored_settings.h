#pragma once
// Settings a scenario states that do nothing for its run: an expert dispatcher on a dense model, an FP4 recipe in a
// BF16 run, a pipeline schedule without a pipeline. The cost model ignores them (they are not wrong, and an editor
// may hold them while another field changes), so every surface says which were ignored and why, rather than
// printing the same prediction as if they had been applied.
#include <string>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.h"

namespace mfu {

struct IgnoredSetting {
    std::string_view key; // the setting's file key (core/scenario/settings.h)
    std::string_view flag; // its command-line flag, without "--"
    std::string_view why; // "the model has no experts"
};

// The settings that differ from their default and have no effect on this scenario, in the settings table's order.
std::vector<IgnoredSetting> ignoredSettings(const Scenario& scenario);

// The keys of the settings some runs ignore, whichever run this is: each a key of the settings table.
std::vector<std::string_view> settingsSomeRunsIgnore();

// "--fused-expert-mlp (the model has no experts); --schedule (no pipeline: pp 1)"; "" when none.
std::string ignoredSettingsText(const std::vector<IgnoredSetting>& ignored);

} // namespace mfu
