#pragma once
// Scenario flags shared by `predict`, `sweep` and `plan`: the FIXED ones, a contract (--global-batch-tokens,
// --micro-batch, --tp, --pp, --cp, --ep, --hsdp-replicas, --ac) on top of calc's model/GPU/count/seq/precision flags
// (cli_common.h), framework switches, and --scenario FILE to start from a saved scenario (flags then override it).
#include <QCommandLineParser>

#include <nlohmann/json.hpp>

#include "core/costmodel/error_band.h"
#include "core/costmodel/planner.h"
#include "core/costmodel/step_prediction.h"
#include "core/scenario/scenario.h"

namespace mfu::cli {

void addScenarioOptions(QCommandLineParser& parser);
// Throws InputError naming the flag. Defaults without a scenario file: 8,192 tokens, 1 GPU, micro-batch 1,
// global batch = one micro-batch per data-parallel rank, FSDP over every GPU, no checkpointing.
Scenario scenarioFromFlags(const QCommandLineParser& parser);

// The JSON of one prediction (predict --json's keys; sweeps and plans reuse them per point/config).
nlohmann::json predictionJson(const StepPrediction& p);
nlohmann::json plannedConfigJson(const PlannedConfig& c);
// An error band's figures with predict's keys (mfu_low, mfu_high, hfu_low, ..., error_band_basis), each end capped
// where the GPU stops (core/costmodel/error_band.h); predict, sweep and plan print them beside the figures.
nlohmann::json errorBandJson(const ErrorBand& band);

} // namespace mfu::cli
