#pragma once
// Calibration from a trace: the cost model's step-time terms fitted to what one traced run measured, term by term,
// and the predictions of other layouts made with them, each saying how much of its time rests on terms the trace
// measured, interpolated from its shapes, or extrapolated beyond what it saw (docs/cost-model.md, "Calibration from
// a trace"). The published constants are never replaced: a calibrated prediction is always shown beside the
// uncalibrated one.
//
// The terms and the trace's kernel categories they are fitted to (exclusive time per step: each instant counted
// once, computation first, core/trace/breakdown.h):
//   matmul         gemm (recomputed GEMMs included: the model's recompute term is fitted with it)
//   attention      attention_fwd + attention_bwd
//   memory-bound   elementwise, normalization, softmax_loss, optimizer, other computation, memcpy, memset
//   communication  every comm_* category not hidden under computation (exposed)
//   overhead       the step's idle GPU time (launch gaps, host work, data loading) less the predicted pipeline bubble
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/calibration/attention_shapes.h"
#include "core/calibration/gemm_shapes.h"
#include "core/costmodel/step_prediction.h"
#include "core/costmodel/term_scales.h"
#include "core/scenario/scenario.h"

namespace mfu {

namespace trace {
struct RunAnalysis;
}

enum class CalibratedTerm { Matmul, Attention, MemoryBound, Communication, Overhead };
inline constexpr CalibratedTerm kAllCalibratedTerms[] = { CalibratedTerm::Matmul, CalibratedTerm::Attention,
    CalibratedTerm::MemoryBound, CalibratedTerm::Communication, CalibratedTerm::Overhead };
std::string_view calibratedTermKey(CalibratedTerm t); // "matmul", "attention", "memory_bound", ...
std::optional<CalibratedTerm> calibratedTermFromKey(std::string_view key);

// One term as the trace measured it and as the model predicted it for the traced run, seconds per step.
struct TermFit {
    CalibratedTerm term = CalibratedTerm::Matmul;
    double measuredSeconds = 0;
    double predictedSeconds = 0;
    double factor = 1; // measured / predicted; 1 when not fitted
    bool fitted = false; // both sides large enough to fit (the trace ran this term and the model predicts it)
    std::string evidence; // what the measurement rests on: kernels, steps, ranks
};

struct TraceCalibration {
    Scenario traced; // the run as the user described it (the calibration's own scenario)
    std::vector<std::string> tracePaths;
    std::string gpuName; // as the trace recorded it
    int ranks = 0;
    int steps = 0; // analysed steps per rank
    double measuredStepSeconds = 0;
    double stepSpreadSeconds = 0; // step-to-step standard deviation
    std::vector<TermFit> fits; // one per CalibratedTerm
    // The traced GEMMs by shape: the matmul factor is carried to another scenario's GEMM shapes through them
    // (gemm_shapes.h). Empty when the trace recorded no shapes.
    std::vector<GemmShapeBin> gemmShapes;
    // The traced attention calls by shape and pass, which carry the attention factor to another sequence or head size
    // (attention_shapes.h).
    std::vector<AttentionShapeBin> attentionShapes;
    TermScales scales;
    double uncalibratedStepSeconds = 0; // the traced run predicted without calibration
    double replayStepSeconds = 0; // the traced run predicted with it
    double replayError() const { return replayStepSeconds / measuredStepSeconds - 1.0; }
};

// The scales a calibration's fitted terms give (a term not fitted keeps the model's 1): the one mapping of the fits
// to TermScales, for fitting and for reading a calibration file. Matmul, attention and memory-bound work scale as
// measured over predicted. Communication and overhead are stretches of what the links carry and the host issues
// (term_scales.h): the stretch at which the traced run, with the other factors, waits what the trace measured.
// That keeps a calibrated step monotone in its compute (less compute never waits longer: the collectives it hid are
// still there), where scaling the exposed time itself made a faster GEMM a slower step under a factor above 1.
TermScales termScalesOf(const std::vector<TermFit>& fits, const Scenario& traced);

// Throws InputError naming the first rank with no analysed step (and the step analysis's reason), or when there is
// no rank: nothing to fit, whatever the scenario says. calibrateFromTrace checks it first; a caller that must
// describe the scenario from the trace (the command line's --gpu) checks it before that.
void refuseRanksWithoutSteps(const trace::RunAnalysis& run);

// Fits the scales; throws InputError when the trace cannot describe this scenario (another GPU, no analysed step,
// another number of tokens per step than it recorded).
TraceCalibration calibrateFromTrace(
    const Scenario& traced, const trace::RunAnalysis& run, const std::vector<std::string>& tracePaths);

// How a calibrated term stands for a scenario: the trace measured it as it is, measured it at other shapes (other
// sequence length, micro-batch, batch or GPU count: the model carries the factor across), or never saw it (a term
// the traced run did not have, another TP/CP/EP degree or attention kernel, another execution mode, a collective
// across more scale-up domains than the trace spanned). Where the trace recorded its GEMMs' shapes and the
// scenario's are written out (gemm_shapes.h), the matmul term stands by its shapes instead: measured when every GEMM
// ran in the trace as it is, interpolated when each dimension lies within what the trace ran, extrapolated beyond;
// the attention term likewise by its sequence and head size (attention_shapes.h).
enum class TermBasis { Measured, Interpolated, Extrapolated };
std::string_view termBasisKey(TermBasis b); // "measured", "interpolated", "extrapolated"

struct CalibratedTermTime {
    CalibratedTerm term = CalibratedTerm::Matmul;
    double seconds = 0; // in the calibrated step
    TermBasis basis = TermBasis::Measured;
    std::string why; // why interpolated or extrapolated ("" when measured)
};

struct CalibratedPrediction {
    StepPrediction uncalibrated;
    StepPrediction calibrated;
    std::vector<CalibratedTermTime> terms;
    // Shares of the calibrated step time resting on each basis (they add up to 1).
    double measuredShare = 0, interpolatedShare = 0, extrapolatedShare = 0;
    // Relative half-width of the calibrated band: the trace's step-to-step spread and its replay error on the
    // measured and interpolated time, the uncalibrated band's on the extrapolated time.
    double bandHalfWidth = 0;
    double stepSecondsLow = 0, stepSecondsHigh = 0;
    double mfuLow = 0, mfuHigh = 0;
};

// Throws InputError when the calibration is for another model or GPU, or the scenario is not valid.
// uncalibrated: the scenario's prediction as validated (the caller has it already; evaluate(scenario));
// uncalibratedBandHalfWidth: the relative half-width of its error band (core/costmodel/error_band.h), what the
// extrapolated time is trusted to.
CalibratedPrediction calibratedPrediction(const Scenario& scenario, const TraceCalibration& calibration,
    const StepPrediction& uncalibrated, double uncalibratedBandHalfWidth);

// The model's seconds a step for each calibrated term of a prediction (indexed by CalibratedTerm), as the trace's
// kernel categories see them: what each term's factor divides.
std::array<double, 5> predictedTermSeconds(const StepPrediction& p);

// "the trace ran on NVIDIA H200, the scenario's GPU is NVIDIA H100 SXM" when the GPU a trace recorded is not the
// scenario's (core/presets/gpu_match.h); nullopt when it is. Calibrating and reading a calibration file check alike.
std::optional<std::string> tracedOnAnotherGpu(const std::string& tracedGpuName, const HardwareSpec& scenarioGpu);

// The calibration's check alone: why it cannot apply to this scenario, nullopt when it can.
std::optional<std::string> calibrationMismatch(const Scenario& scenario, const TraceCalibration& calibration);

} // namespace mfu
