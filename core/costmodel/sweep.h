#pragma once
// Sweeps: the cost model's prediction along one axis - sequence length (2k-128k), GPU count (1 to 16,384),
// precision (BF16 vs BF16+FP8) or the network per GPU (25 to 3,200 Gb/s: what a faster fabric buys) - for the
// scenario's own configuration and for the planner's best configuration at each point. Points where the configuration
// does not fit (or cannot be laid out) are kept and marked, never dropped. Runs in the caller's thread with progress
// and cancel, so a panel can run it in the background.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/costmodel/error_band.h"
#include "core/costmodel/planner.h"

namespace mfu {

class CostModel;

enum class SweepAxis { SeqLen, GpuCount, Precision, Network };
std::string_view sweepAxisKey(SweepAxis axis); // "seq", "gpus", "precision", "network"
std::optional<SweepAxis> sweepAxisFromKey(std::string_view key);

struct SweepOptions {
    std::vector<double> values; // empty: defaultSweepValues()
    bool includePlannerBest = true;
    PlannerOptions planner { .topN = 1 };
    // The validation residuals to draw each point's error band from (error_band.h), and the planner's tie tolerance
    // at each point (plannerTieTolerance: its best is the layout `plan` ranks first); none: no bands, the fastest.
    const ErrorBandModel* errorBands = nullptr;
};

struct SweepPoint {
    double x = 0; // sequence length, GPU count, 0 (BF16) / 1 (BF16+FP8) / 2 (BF16+FP4), or Gb/s per GPU
    TrainingPrecision precision = TrainingPrecision::BF16;
    bool currentValid = false; // the scenario's configuration can be laid out at this point
    std::string currentProblem; // why not, when it cannot
    StepPrediction current; // meaningful when currentValid; current.fits says whether it fits
    std::optional<PlannedConfig> best; // the planner's best fitting configuration; empty when nothing fits
    std::string bestProblem; // why there is no best (whyNothingPlanned); empty when there is one or the planner was off
    // When there is a best but the planner left out layouts that fit as beyond physics (the formula's MFU would pass
    // 100%), the sentence that says how many and why (beyondPhysicsLeftOutNote): the best is then the best of the
    // rest, and a faster layout may be among those left out. Empty otherwise.
    std::string bestLeftOut;
    // Where the measurement likely lies (error_band.h), when SweepOptions::errorBands is given: around `current`
    // (when currentValid) and around `best` (when there is one).
    std::optional<ErrorBand> currentBand;
    std::optional<ErrorBand> bestBand;
    // The current configuration has an MFU and TFLOPS to show: laid out, and fitting in memory. One that does not
    // fit has none, in the headline, `sweep`'s text and the sweep charts alike (--json keeps the model's figures
    // beside "fits": false).
    bool currentShown() const { return currentValid && current.fits; }
    bool currentMisfits() const { return currentValid && !current.fits; }
};

struct SweepResult {
    SweepAxis axis = SweepAxis::SeqLen;
    std::vector<SweepPoint> points;
    int64_t evaluated = 0; // configurations evaluated, planner included
    bool plannerRan = true; // false with SweepOptions::includePlannerBest off: no point has a best, and none was sought
    bool cancelled = false;
};

// 2k..128k doubling; 1..16,384 doubling; {BF16, BF16+FP8}, and BF16+FP4 when it is the run's own precision (`own`),
// so every surface's precision sweep of an FP4 run shows it; 25..3,200 Gb/s doubling (a 25G cloud NIC to two 1.6T
// NICs per GPU). Other points: `sweep --axis precision --values ...`.
std::vector<double> defaultSweepValues(SweepAxis axis, TrainingPrecision own = TrainingPrecision::BF16);
// The scenario's: as above, and BF16+FP4 on every GPU that trains in it with the scenario's FP4 recipe (Blackwell;
// the MI350 series with MXFP4), since NVFP4 is the 2026 recipe a Blackwell user weighs against FP8.
std::vector<double> defaultSweepValues(SweepAxis axis, const Scenario& scenario, const CostModel& model);
// A precision sweep's x and back: 0 BF16, 1 BF16+FP8, 2 BF16+FP4 (the enum's order).
TrainingPrecision precisionOnSweep(double x);
double sweepValueOf(TrainingPrecision p);
// Whether the run's GPUs span more than one scale-up domain, so that the network carries some of its traffic: a
// network sweep of a run inside one domain reads the same at every point, and the surfaces say why instead.
bool crossesScaleUpDomains(const Scenario& scenario);
// What `sweep --axis network` and the Predict panel's Network tab say of a run inside one domain ("All 8 GPUs share
// one scale-up domain (NVLink 5): ..."); empty for a run across domains.
std::string networkSweepNote(const Scenario& scenario);
// The scenario moved to one point of the axis. A network point states the cluster's network (setStatedScaleOut:
// throws InputError outside 1..800,000 Gb/s).
Scenario scenarioAt(const Scenario& scenario, SweepAxis axis, double x);

SweepResult runSweep(const Scenario& scenario, SweepAxis axis, const SweepOptions& options = {},
    const std::function<void(double)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

// The sweep every surface shows - the Predict panel's charts, the report's and `sweep` - is this one call: the
// scenario's configuration and the planner's best at each point (at the batch the configuration runs there), each
// point with its error band from `bands` (null: none). One call, so that a chart in the report and `sweep --json`
// of the same scenario hold the same series: the report once ran its sweeps without the planner and drew every
// point as "no layout fits". `values` empty: defaultSweepValues(axis). `plannerBest` false only for `sweep
// --no-planner`, which asks for the current configuration alone (the result says plannerRan = false).
SweepResult scenarioSweep(const Scenario& scenario, SweepAxis axis, const ErrorBandModel* bands,
    std::vector<double> values = {}, bool plannerBest = true, const std::function<void(double)>& progress = {},
    const std::atomic<bool>* cancel = nullptr);

// One header line, then one line per point: x, precision, the current configuration's MFU, TFLOPS/GPU, TFLOPS/node,
// MFU against the FP8 peak, tokens/s, memory (GiB), fits, and the same for the best configuration with its layout.
std::string sweepToCsv(const SweepResult& result);

} // namespace mfu
