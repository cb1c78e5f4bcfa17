#pragma once
// CostModelConstants as JSON, for hardware presets ("cost_model": {...} in an entry) and scenario files. Keys are the
// field names in snake_case ("gemm_efficiency", "scale_out_latency_seconds", ...). Reading starts from a given set
// (the device's defaults) and overrides only the keys present, so a preset can change one constant.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/model/cost_model_constants.h"

namespace mfu {

nlohmann::json costModelConstantsToJson(const CostModelConstants& c);
// Throws InputError naming path.key for an unknown key, a non-number, or a value out of range (efficiencies and
// fractions in (0, 1], everything else >= 0).
CostModelConstants costModelConstantsFromJson(
    const nlohmann::json& object, const CostModelConstants& base, const std::string& path);

} // namespace mfu
