#pragma once
// The validation report as text (one line per published run, then the error per group) and as JSON
// (mfu-explorer validate [--json]).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/costmodel/validation.h"

namespace mfu {

std::string validationReportText(const ValidationReport& report);
nlohmann::json validationReportJson(const ValidationReport& report);

} // namespace mfu
