#pragma once
// `mfu-explorer cost --compare GPU,GPU,... | --compare-all`: the same job (its tokens) on other GPUs, each at the
// MFU the planner's best configuration of the model achieves on --gpus of it (core/report/hardware_options.h), then
// GPU-hours, days and dollars through core/money/hardware_comparison.h, as the Cost panel's "By GPU" chart does.
#include <QCommandLineParser>

#include <optional>

#include <nlohmann/json.hpp>

#include "core/money/hardware_comparison.h"
#include "core/report/hardware_options.h"

namespace mfu::cli {

void addCompareOptions(QCommandLineParser& parser);

struct CostComparison {
    PlannedHardware planned;
    HardwareComparison comparison;
};

// nullopt without --compare/--compare-all. `hardware` and `price` are the job's own GPU and price (kept for that GPU
// when it is compared); `job` must carry its tokens. Throws InputError naming the flag.
std::optional<CostComparison> costComparison(
    const QCommandLineParser& parser, const HardwareSpec& hardware, int gpus, double price, const JobCost& job);

nlohmann::json comparisonJson(const CostComparison& c);
QString comparisonText(const CostComparison& c);

} // namespace mfu::cli
