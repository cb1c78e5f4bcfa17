#pragma once
// The key figures of a scenario, as the report prints them: labelled rows in titled sections, each computed by the
// core function that owns it (FLOP/token, MFU from a measured throughput, the cost model's prediction, money). Plain
// strings, so the PDF, the HTML page and a test read the same text; the numbers behind them are kept alongside for
// the charts. A part that cannot be computed (no throughput, a bare model the cost model cannot predict, no job to
// cost) leaves its section out and says why in `notes`.
#include <optional>
#include <string>
#include <vector>

#include "core/costmodel/step_prediction.h"
#include "core/mfu.h"
#include "core/money/scenario_cost.h"
#include "core/scenario_file.h"

namespace mfu {

struct ReportRow {
    std::string label;
    std::string value;
    std::string note; // formula or source, small print
};

struct ReportSection {
    std::string title;
    std::vector<ReportRow> rows;
};

struct ReportFigures {
    std::vector<ReportSection> sections;
    std::vector<std::string> notes; // what is missing and why
    FlopsPerToken flopsPerToken;
    std::optional<MfuResult> measured;
    std::optional<StepPrediction> predicted;
    std::optional<ScenarioCost> cost;
};

ReportFigures reportFigures(const ScenarioDocument& document);

// "TP 8 (SP) x PP 4 (1F1B) x CP 1, EP 1, HSDP 1"
std::string parallelismSummary(const Parallelism& p);

} // namespace mfu
