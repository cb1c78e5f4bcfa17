#pragma once
// Error bands: how far to trust a prediction, from the validation residuals (validation.h) of published runs like
// it. A run is "like" the scenario when it shares the GPU generation and the architecture (dense or MoE); with fewer
// than kMinSimilarRuns such runs, the architecture alone; then every run. The band spans the 10th to the 90th
// percentile of those runs' errors, at least +-kMinBandHalfWidth: a model that was e% optimistic on similar runs
// says the measurement is likely prediction / (1 + e).
//
// Then the band widens by the scenario's recipe classes (validationClassesOf: GPU class, EP span, precision, token
// mixers, dense or MoE, and whether the prediction waits on the host after its MoE dispatches): a class the validation
// set holds fewer than kMinClassRuns out-of-sample runs of widens it to at least +-the widest expected miss
// (kClassBandFactor x mean |error|) of any class it holds kMinClassRuns or more of; and where the class's own few runs
// missed by more, to their largest miss on the side they missed on (the most optimistic run's error on the optimistic
// side, the most pessimistic's on the other). A well-covered class does not widen it: the similar runs' percentiles
// already hold its error, and a class mean applied to every scenario of one axis (all dense runs, say) would let one
// source's rows widen other GPUs' bands. So a recipe the set has barely seen gets a wide band instead of a confident
// number. The planner's tie tolerance stays the similar runs' band: the class width is common to every layout of one
// scenario's class, not a difference between them.
//
// Models with token mixers beyond attention (hybrid: linear attention, Mamba, sparse or compressed attention) are
// left out of the similar runs of a transformer, whose band they would widen with misses of layers it does not have.
#include <string>
#include <vector>

#include "core/costmodel/step_prediction.h"
#include "core/costmodel/validation.h"
#include "core/scenario/scenario.h"

namespace mfu {

inline constexpr int kMinSimilarRuns = 3;
inline constexpr double kMinBandHalfWidth = 0.05;
// A class needs this many out-of-sample validation runs to set its own width (docs/cost-model.md, Error bands).
inline constexpr int kMinClassRuns = 5;
// Half-width = this x the class's out-of-sample mean |error|: the expected miss of a run of that class.
inline constexpr double kClassBandFactor = 1.0;

struct ValidationResidual {
    std::string generation; // gpuGenerationOf
    bool moe = false;
    double error = 0; // predicted / measured - 1
    bool hybrid = false; // token mixers beyond attention (architectureOf: "hybrid")
    double executedMfu = 0; // executedMfuOf the published throughput; 0: not known
    std::string run = {}; // the validation run's id
    TrainingPrecision precision = TrainingPrecision::BF16;
};

// MFU counting the FLOPs a step executes (every forward matmul x 3, attention halved by the causal mask and limited
// to each layer's window: the per_component_causal formula) over the BF16 dense peak, useful tokens only. The one
// convention in which a published run's measurement and a scenario's prediction compare at any sequence length,
// whatever formula the scenario reports (PaLM's full square counts masked work, which grows with the sequence). 0 when
// the model has no architecture to count or the GPU no BF16 peak.
double executedMfuOf(const Scenario& scenario, double tokensPerSecPerGpu);

struct ErrorBandModel {
    std::vector<ValidationResidual> residuals;
    // ValidationReport::outOfSampleByClass; empty: the band is the similar runs' alone.
    std::vector<ValidationGroup> classes;
};

ErrorBandModel errorBandModelFrom(const ValidationReport& report);

// Every figure of a prediction that the band scales, at both ends: a faster measured run has a higher MFU, HFU,
// TFLOPS and throughput and a shorter step. The upper end stops where the GPU does (MFU and HFU at 100%, TFLOPS at
// the dense peak of the run's precision): highFactor is already capped, so whoever scales a figure by it stays
// within physics. Every surface (the Predict panel, predict --json, the report) shows these, never its own scaling.
struct ErrorBand {
    double mfuLow = 0, mfuHigh = 0;
    double hfuLow = 0, hfuHigh = 0;
    double tflopsPerGpuLow = 0, tflopsPerGpuHigh = 0;
    double tokensPerSecLow = 0, tokensPerSecHigh = 0; // whole cluster
    double tokensPerSecPerGpuLow = 0, tokensPerSecPerGpuHigh = 0;
    double stepTimeSecondsLow = 0, stepTimeSecondsHigh = 0; // the short step is the fast end
    double lowFactor = 1, highFactor = 1; // multiply a prediction's rates by these for the band (capped, see above)
    int similarRuns = 0;
    // The model's error the classes widened the band to on each side (0: no class widening on that side): optimistic
    // (the measurement below the prediction) and pessimistic (above it), as magnitudes.
    double classOptimisticWidth = 0;
    double classPessimisticWidth = 0;
    // Precedent: the highest MFU (executedMfuOf) measured by a published run of the same GPU generation,
    // architecture (dense, MoE, hybrid) and training precision, that run, and whether the prediction, by the same
    // count, is above it (0 and empty: no such run). A prediction above every published run like it says so in the
    // basis: no measurement confirms that level yet, whatever the band's width.
    double publishedBestMfu = 0;
    std::string publishedBestRun;
    bool abovePublishedBest = false;
    std::string basis; // "6 published Blackwell dense runs"
};

// An empty model gives the +-kMinBandHalfWidth band with basis "no validation runs".
ErrorBand errorBandFor(const Scenario& scenario, const StepPrediction& prediction, const ErrorBandModel& model);
// The band's half-width on the step time, relative to the predicted step: what a calibrated prediction trusts the
// terms it extrapolates to (core/calibration/trace_calibration.h).
double relativeStepBandHalfWidth(const ErrorBand& band, const StepPrediction& prediction);
// The planner's tie tolerance for a scenario (PlannerOptions::tieTolerance): the band's lower width, which does not
// depend on the prediction. One function, so `plan`, the window's planner and the report rank alike.
double plannerTieTolerance(const Scenario& scenario, const ErrorBandModel& model);

} // namespace mfu
