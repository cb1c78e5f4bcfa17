#pragma once
// The diagnosis's inner parts (core/diagnosis/diagnosis.h is the public face): the facts gathered from one reported
// run, the throughput readings it allows, and one function per family of findings, each in a file of its own:
//   diagnosis_facts.cpp          witnesses of the throughput, the reading most of them agree on
//   findings_flops.cpp           the stated FLOP/token against the model's (embeddings, attention, PaLM, packing)
//   findings_throughput.cpp      tokens/s scope, step time and tokens/s that disagree, impossible throughput
//   findings_peak.cpp            the denominator: sparse, wrong precision, another GPU, cluster-wide
//   findings_own_figures.cpp     a report whose own figures imply another model or another GPU
//   findings_mfu.cpp             the stated MFU (arithmetic, packing, above 100%), FP8, the corrected figure
//   findings_comparison.cpp      findings across runs (scaling, different work per step)
// Not part of the library's interface: only these files include it.
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis.h"

namespace mfu::diagnosis_detail {

bool agree(double a, double b, double tolerance = 0.03);
std::string tok(double tokens); // "21,111"

// A per-GPU tokens/s that one stated figure implies under one reading of its scope.
struct Witness {
    double perGpu = 0;
    int group = 0; // independent measurements: kGroupTokensPerSec (and TFLOPS derived from it), kGroupStep
    StatedScope scope = StatedScope::Unknown;
    bool possible = true;
};
// The number formats whose peaks a report may have divided by, in the order a tie between two of a GPU's figures is
// read: BF16 first (a 2-GPU B200's 9,000 TFLOPS is 2 x 4,500 sparse BF16 before it is one GPU's dense FP4).
inline constexpr NumberFormat kPeakFormats[] = { NumberFormat::BF16, NumberFormat::FP16, NumberFormat::FP8,
    NumberFormat::TF32, NumberFormat::FP32, NumberFormat::FP4 };

inline constexpr int kGroupTokensPerSec = 0;
inline constexpr int kGroupStep = 1;

struct RunFacts {
    double densePeak = 0;
    // The precision of that peak as the messages name it: "BF16", or "FP16" on a GPU without BF16 (V100).
    std::string peakPrecision = "BF16";
    double flopsCorrect = 0; // FLOP/token under the run's formula (the model's), or as stated without a model
    std::string formula; // the formula's key, or "stated"
    double flopsStated = 0; // the report's own FLOP/token (or flopsCorrect when it states none)
    // Every formula's count for the model: a report that counts by another formula than ours is not describing
    // another model (describesModel, core/model/flops.h).
    std::optional<FlopsPerToken> modelCounts;
    double palmFlops = 0; // PaLM's formula as published, 12LHQS on every layer (0 without an architecture)
    // The fastest the run's precision allows (utilisationCeiling): the dense FP8 or FP4 peak of a BF16+FP8 or BF16+FP4
    // run's linear layers, else densePeak; its format as the messages name it; and that peak over densePeak.
    double boundPeak = 0;
    std::string boundPeakPrecision = "BF16";
    double mfuCeiling = 1.0;
    double maxPerGpu = 0; // tokens/s per GPU at boundPeak (100% MFU for a BF16 run)
    std::optional<double> stepTokens; // global tokens per step, stated or computed
    // PaLM's formula over the packing length, when the run packs documents masked apart (the naive count).
    std::optional<double> flopsOverPackingLength;
    double effectiveAttentionLength = 0;
    std::vector<Witness> witnesses;
    bool achievedDerivedFromTokensPerSec = false;
};

// Throws InputError when the run lacks what any diagnosis needs.
RunFacts gatherFacts(const ReportedRun& run);
// Which scope a step time confirms for this run's tokens/s (used to read a report's other runs alike).
StatedScope confirmedScope(const RunFacts& facts);
// The reading most witnesses agree on; allImpossible when every witness needs more than the dense peak.
Witness chooseThroughput(const RunFacts& facts, StatedScope hint, bool& allImpossible);
// "gradient accumulation (8 micro-steps)" when a ratio between two figures matches a batch factor, else empty.
std::string causeOfRatio(double ratio, const ReportedRun& run);

// --- Finding families. Each appends to d.findings (or returns them) and may set what it alone decides.
void checkFlopsPerToken(const ReportedRun& run, const RunFacts& f, std::vector<Finding>& out);
// A MoE's FLOP/token counted with every expert's parameters (6 x total, with or without the embeddings and the
// attention term), where a token runs only its routed and shared experts: the finding ("moe_total_parameters"), said
// of `what` ("The stated 4,026 GFLOP/token"); nullopt when `flops` is no such count or the model is dense.
std::optional<Finding> moeTotalParametersFinding(
    const ReportedRun& run, const RunFacts& f, double flops, const std::string& what);
// A FLOP/token that is PaLM's formula as published (12LHQS on every layer) for a model some of whose layers attend
// fewer keys or none: the finding ("palm_counts_every_layer_as_full_attention"), said of `what` ("The stated 103.12
// GFLOP"), within `tolerance` of the PaLM count; nullopt when `flops` is not that count or PaLM's count is the
// model's own.
std::optional<Finding> palmEveryLayerFinding(
    const ReportedRun& run, const RunFacts& f, double flops, const std::string& what, double tolerance);
void checkThroughputReadings(
    const ReportedRun& run, const RunFacts& f, const Witness& chosen, bool allImpossible, RunDiagnosis& d);
void checkPeak(const ReportedRun& run, const RunFacts& f, const Witness& chosen, const std::vector<HardwareSpec>& known,
    RunDiagnosis& d);
// log_model_mismatch, log_peak_mismatch and log_memory_mismatch: withhold the corrected MFU (d.withheld) when the
// figures describe another model or GPU than the one the diagnosis counts with.
void checkOwnFigures(
    const ReportedRun& run, const RunFacts& f, const std::vector<HardwareSpec>& known, RunDiagnosis& d);
void checkPrecision(const ReportedRun& run, RunDiagnosis& d);
void checkStatedMfu(const ReportedRun& run, const RunFacts& f, const Witness& chosen, RunDiagnosis& d);
// The closing finding: the corrected MFU, or no consistent reading; none when the MFU is withheld (the finding that
// withheld it says why).
std::optional<Finding> conclusion(const ReportedRun& run, const RunFacts& f, const RunDiagnosis& d);

std::vector<Finding> compareRuns(const std::vector<ReportedRun>& runs, const std::vector<RunFacts>& facts,
    const std::vector<RunDiagnosis>& diagnosed);

} // namespace mfu::diagnosis_detail
