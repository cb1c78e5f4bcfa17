#pragma once
// From a training log to the core diagnosis: the log's median figures after warm-up and the settings it prints
// (GPU count, tokens per step, micro-batch, accumulation, device, the peak its MFU divided by) become a ReportedRun,
// completed by what the user knows (model, GPU, sequence length, tokens per step). diagnose() then checks the claimed
// MFU and TFLOPS: sparse-peak denominators, per-GPU vs cluster confusion, FLOP/token that counts embeddings,
// impossible step times; its corrected MFU is the log's MFU recomputed with the model's PaLM FLOP/token.
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis.h"
#include "core/logs/training_log.h"
#include "core/scenario/scenario.h"

namespace mfu::trace {

// What the user adds; each given value wins over the one the log states.
struct LogRunContext {
    std::string label;
    std::optional<HardwareSpec> hardware; // else the preset the log's device line names
    std::optional<ModelSpec> model;
    std::optional<int> gpus;
    std::optional<int64_t> seqLen;
    std::optional<double> tokensPerStep; // global
    TrainingPrecision precision = TrainingPrecision::BF16;
    FlopFormula formula = kDefaultFlopFormula; // of the corrected MFU
};

// knownHardware: the presets, to resolve the log's device name. Throws InputError naming what is missing (no GPU).
ReportedRun reportedRunFromLog(const TrainingLog& log, const LogSummary& summary, const LogRunContext& context,
    const std::vector<HardwareSpec>& knownHardware);

// The Trace panel's case: the window's scenario supplies the model, the GPU and the precision; its GPU count,
// sequence length and tokens per step only where the log states none (the log records its own run).
LogRunContext scenarioLogContext(
    const Scenario& scenario, double scenarioTokensPerStep, const TrainingLog& log, const std::string& label);

// Medians, the run and its diagnosis; `unavailable` says why there is no diagnosis (no GPU, no FLOP/token, no
// throughput) instead of throwing, so a log can be shown before the user completes the scenario.
struct LogCheck {
    LogSummary summary;
    std::optional<Diagnosis> diagnosis;
    std::string unavailable;
};
LogCheck checkLog(const TrainingLog& log, const LogRunContext& context, const std::vector<HardwareSpec>& knownHardware,
    size_t warmupSteps = 1);

// The sequence length the log implies: tokens per step / (micro-batch x accumulation x GPUs), when that is whole.
std::optional<int64_t> impliedSeqLen(const LogFacts& facts, std::optional<int> gpus = {});

} // namespace mfu::trace
