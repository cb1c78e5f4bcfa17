#pragma once
// The figures every surface derives from one Scenario — the panels, the command line and the report — each computed
// here and only here, so that the same scenario gives the same number wherever it is shown.
//
//   FLOP/token      the scenario's MFU formula at its sequence length; 6N when the model is a bare parameter count
//                   (the only formula a bare count can answer)
//   recompute       activation recomputation FLOP/token for HFU (core/model/flops.h, docs/formulas.md)
//   layout          gpus = hsdpReplicas x fsdpShards x tp x pp x cp; a GPU count the degrees do not divide is an
//                   error, never rounded
//   DP ranks        hsdpReplicas x fsdpShards = gpus / (tp x pp x cp): the ranks that each take their own micro-batch
//   micro-step      micro-batch x sequence x DP ranks: the tokens the cluster takes in one micro-step
//   measured MFU    MFU/HFU from the scenario's measured throughput (processed tokens; MFU counts the useful ones,
//                   HFU the processed ones, when padding is kept)
//   reported run    the scenario as a run report: core/diagnosis/scenario_run.h (the diagnosis sits above)
#include <cstdint>
#include <optional>
#include <string>

#include "core/model/mfu.h"
#include "core/scenario/scenario.h"

namespace mfu {

// The scenario's MFU formula, or SixN when its model cannot answer that formula (a bare parameter count).
FlopFormula scenarioFlopFormula(const Scenario& s);
// Every formula's FLOP/token at the scenario's sequence length and packing (attention per document when packed).
FlopsPerToken scenarioFlopCounts(const Scenario& s);
// Training FLOP per token under scenarioFlopFormula() at the scenario's sequence length.
double scenarioFlopsPerToken(const Scenario& s);
// The vision encoder's training FLOP per sequence token (a vision-language model with vision tokens set); nullopt
// for a model without an encoder this application counts, or a text-only run. Not part of MFU, which counts the
// language model as the multimodal references do: it gives the second, labelled figure.
std::optional<double> scenarioVisionFlopsPerToken(const Scenario& s);
// MFU counting the vision encoder too, from the measured throughput; nullopt without one or without vision FLOPs.
std::optional<double> scenarioMfuWithVision(const Scenario& s);
// Recompute FLOP per token of the scenario's activation checkpointing, under the same formula.
double scenarioRecomputeFlopsPerToken(const Scenario& s);

// Why the parallel degrees do not fit the GPU count (a degree below 1, or gpus not a multiple of
// tp x pp x cp x hsdpReplicas); nullopt when they do.
std::optional<std::string> parallelLayoutError(const Scenario& s);
// gpus / (tp x pp x cp). Throws InputError (the layout error) when the degrees do not divide the GPU count.
int dataParallelRanks(const Scenario& s);
// micro-batch x sequence x data-parallel ranks. Throws InputError on a bad layout or a non-positive batch.
int64_t tokensPerMicroStep(const Scenario& s);
// Micro-steps that reach a global batch of batchTokens: rounded up, at least one; one without a batch (<= 0). What
// the cost model runs, the planner's batch check and the rounding note all count with this.
int64_t microStepsForBatch(int64_t batchTokens, int64_t perMicroStep);
// The scenario's gradient accumulation: its global batch in whole micro-steps (microStepsForBatch); 0 when its layout
// or batch shape gives no micro-step. The window's editor shows it, the cost model runs it, the diagnosis counts it.
int64_t scenarioMicroSteps(const Scenario& s);
// Tokens the scenario processes per optimizer step: scenarioMicroSteps x tokensPerMicroStep (the stated batch
// rounded up to whole micro-steps); 0 when there is no micro-step. A step time is divided into these.
int64_t processedTokensPerStep(const Scenario& s);
// When the scenario's global batch is not a whole number of its micro-steps, what the cost model predicts instead
// (rounded up to whole micro-steps, at least one), in a sentence; nullopt when it is (or no global batch is set).
std::optional<std::string> globalBatchRoundingNote(const Scenario& s);

// MFU, HFU and achieved FLOP/s of the scenario's measured throughput; nullopt without one. Throws InputError when the
// hardware lacks the peak or an input is out of range.
std::optional<MfuResult> scenarioMeasuredMfu(const Scenario& s);
// The same measurement under another formula (a row of the Calculator's formula table): that formula's FLOP/token
// and recompute FLOP/token at the scenario's sequence length and packing (a recompute it cannot count is 0), useful
// tokens only. nullopt without a measurement or when the formula has no figure for the model (a bare parameter
// count); throws InputError as scenarioMeasuredMfu does.
std::optional<MfuResult> scenarioMeasuredMfuUnder(const Scenario& s, FlopFormula formula);
// PaLM as published over the packing length, when documents are packed and masked apart: the MFU a naive count
// claims (its recompute is the unpacked sequence's). nullopt when not packed so, or without a measurement.
std::optional<MfuResult> scenarioMeasuredMfuOverPackingLength(const Scenario& s);
// The same for a step time measured in a profiler trace: tokensPerStep (processed, padding included) over
// stepSeconds as the scenario's measured throughput. The Trace panel, the report and `trace --json` all call this,
// so a trace's measured MFU counts the useful tokens and the scenario's formula and recompute wherever it is shown.
MfuResult scenarioMfuAtStepTime(const Scenario& s, double tokensPerStep, double stepSeconds);

} // namespace mfu
