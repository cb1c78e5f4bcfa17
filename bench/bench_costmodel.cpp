// Cost-model speed: one scenario evaluation (ns), and a full planner search for Llama 3.1 405B on 16,384 GPUs
// (configurations evaluated per second), each against an in-run naive baseline that rebuilds the model facts and
// copies the scenario for every configuration, as a straightforward implementation would. Calculon (Isaev et al.,
// SC'23) evaluates about 70 configurations per second per core on a machine like this one. Last, a prediction
// calibrated to a trace (its GEMM and attention shapes looked up for each scenario) against the same prediction
// uncalibrated; and the levers a prediction shows (each scenario evaluated with and without each) against the one
// prediction.
#include <chrono>
#include <cstdio>
#include <optional>

#include "core/calibration/trace_calibration.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/levers.h"
#include "core/costmodel/planner.h"
#include "core/errors.h"
#include "core/presets/presets.h"

using namespace mfu;
using Clock = std::chrono::steady_clock;
using AC = ActivationCheckpointing;

namespace {

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

volatile double g_sink = 0; // keeps the optimiser from dropping the evaluations

// Microseconds per call of `call`, over n calls.
template <class Call> double microsecondsPerCall(int n, Call&& call)
{
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i)
        call(i);
    return secondsSince(t0) / n * 1e6;
}

// The shipped presets `model` on `gpus` x `gpu` at `seq` tokens, else nullopt (said on stderr).
std::optional<Scenario> presetScenario(
    const PresetLibrary& presets, const char* model, const char* gpu, int gpus, int64_t seq)
{
    const ModelSpec* m = presets.findModel(model);
    const HardwareSpec* h = presets.findHardware(gpu);
    if (!m || !h) {
        std::fprintf(stderr, "bench_costmodel: %s or %s missing from %s/presets\n", model, gpu, MFU_SOURCE_DIR);
        return std::nullopt;
    }
    Scenario s;
    s.model = *m;
    s.cluster.hardware = *h;
    s.cluster.gpuCount = gpus;
    s.workload.seqLen = seq;
    return s;
}

// A calibration of `traced` as a trace of it would give one: every term fitted at the model's own time, its GEMM
// shapes at 700 TFLOPS and its attention at 450 (what the shapes cost to look up does not depend on the figures).
TraceCalibration calibrationOf(const Scenario& traced)
{
    TraceCalibration c;
    c.traced = traced;
    const StepPrediction p = evaluate(traced);
    for (const CalibratedTerm t : kAllCalibratedTerms)
        c.fits.push_back({ t, 0.1, 0.1, 1.0, true, "synthetic" });
    for (const LinearGemm& g : linearGemmsOf(traced))
        c.gemmShapes.push_back({ g.m, g.n, g.k, g.precision, 1, g.flops / 700e12, g.flops });
    const double seq = static_cast<double>(traced.workload.seqLen);
    for (const bool backward : { false, true })
        c.attentionShapes.push_back({ 1, 32, seq, seq, 128, 128, true, backward, 32, 0.05, 2.25e13 });
    c.scales = termScalesOf(c.fits, traced);
    c.measuredStepSeconds = c.uncalibratedStepSeconds = c.replayStepSeconds = p.stepTimeSeconds;
    return c;
}

} // namespace

int main()
{
    // Llama 3.1 405B and the H100 SXM as the app ships them (presets/, figures with their sources).
    PresetLibrary presets;
    presets.loadDirectory(MFU_SOURCE_DIR "/presets");
    const std::optional<Scenario> big = presetScenario(presets, "llama-3.1-405b", "h100-sxm", 16384, 8192);
    if (!big)
        return 1;
    Scenario s = *big;
    s.workload.globalBatchTokens = int64_t { 16 } * 1024 * 1024;
    s.parallelism.tp = 8;
    s.parallelism.pp = 16;
    s.parallelism.virtualStages = 4;
    s.parallelism.schedule = PipelineSchedule::Interleaved1F1B;
    s.activationCheckpointing = ActivationCheckpointing::Selective;

    // 1. One evaluation.
    const CostModel model(s);
    const int n = 200000;
    const double fastNs = 1e3 * microsecondsPerCall(n, [&](int i) {
        s.workload.microBatch = 1 + (i & 1);
        g_sink = g_sink + model.evaluateValid(s).mfu;
    });
    const int nNaive = 20000;
    const double naiveNs = 1e3 * microsecondsPerCall(nNaive, [&](int i) {
        Scenario copy = s; // a naive caller: copy the scenario, rebuild the model facts, validate, evaluate
        copy.workload.microBatch = 1 + (i & 1);
        g_sink = g_sink + evaluate(copy).mfu;
    });
    std::printf("single evaluation (405B, 16,384 H100, TP8 PP16 v4, selective AC):\n");
    std::printf("  cost model, prepared:       %8.0f ns  (%.0f evaluations/s)\n", fastNs, 1e9 / fastNs);
    std::printf("  naive (copy + rebuild):     %8.0f ns  (%.1fx slower)\n", naiveNs, naiveNs / fastNs);
    std::printf("  target: < 10,000 ns -> %s\n\n", fastNs < 10000 ? "met" : "MISSED");

    // 2. Full planner search: every factorisation, micro-batch, AC mode and virtual-stage count.
    s.parallelism = Parallelism {};
    const PlanResult plan = planConfigurations(s);
    const double plannerRate = plan.evaluated / plan.seconds;
    std::printf("planner search, Llama 3.1 405B on 16,384 H100 (16M-token batch):\n");
    std::printf("  %lld configurations evaluated (%lld fit) in %.3f s = %.0f configurations/s on one core\n",
        static_cast<long long>(plan.evaluated), static_cast<long long>(plan.fitting), plan.seconds, plannerRate);
    if (!plan.configs.empty())
        std::printf("  best: %s, MFU %.1f%%\n", describeConfig(plan.configs.front()).c_str(),
            100 * plan.configs.front().prediction.mfu);

    // Naive baseline over the same space, through the public evaluate(Scenario): a scenario copy, the model facts
    // rebuilt and an exception for every layout that cannot be built.
    const auto t0 = Clock::now();
    long long naiveCount = 0;
    const AC modes[] = { AC::None, AC::Selective, AC::Full };
    for (int tp = 1; tp <= 8; tp *= 2)
        for (int pp = 1; pp <= 64; pp *= 2)
            for (int cp = 1; cp <= 8; cp *= 2)
                for (int r = 1; r <= 16384 / (tp * pp * cp); r *= 2)
                    for (int v = 1; v <= (pp > 1 ? 4 : 1); v *= 2)
                        for (AC ac : modes)
                            for (int mb = 1; mb <= 8; mb *= 2) {
                                Scenario c = s;
                                c.parallelism.tp = tp;
                                c.parallelism.pp = pp;
                                c.parallelism.cp = cp;
                                c.parallelism.hsdpReplicas = r;
                                c.parallelism.virtualStages = v;
                                c.activationCheckpointing = ac;
                                c.workload.microBatch = mb;
                                try {
                                    g_sink = g_sink + evaluate(c).mfu;
                                    ++naiveCount;
                                } catch (const InputError&) {
                                }
                            }
    const double naiveRate = naiveCount / secondsSince(t0);
    std::printf("  naive search, evaluate(Scenario) per configuration: %lld configurations in %.3f s = %.0f/s "
                "(%.1fx slower)\n",
        naiveCount, naiveCount / naiveRate, naiveRate, plannerRate / naiveRate);
    std::printf("  target: full search < 0.5 s -> %s\n", plan.seconds < 0.5 ? "met" : "MISSED");
    std::printf("  Calculon (~70 configurations/s/core): this search would take %.0f s there; %.0fx faster here\n",
        plan.evaluated / 70.0, plannerRate / 70.0);

    // 3. A calibrated prediction: Llama 3.1 8B on 8 H100, calibrated to a trace of itself, predicted at other
    // micro-batches and TP degrees (each looks its GEMM and attention shapes up among the trace's).
    const std::optional<Scenario> eightB = presetScenario(presets, "llama-3.1-8b", "h100-sxm", 8, 8192);
    if (!eightB)
        return 1;
    Scenario small = *eightB;
    const TraceCalibration calibration = calibrationOf(small);
    const CostModel smallModel(small);
    const int nCalibrated = 2000;
    const auto vary = [&small](int i) {
        small.workload.microBatch = 1 + (i & 1);
        small.parallelism.tp = 1 << (i % 3);
    };
    const double plainUs = microsecondsPerCall(nCalibrated, [&](int i) {
        vary(i);
        g_sink = g_sink + smallModel.evaluateValid(small).mfu;
    });
    const double calibratedUs = microsecondsPerCall(nCalibrated, [&](int i) {
        vary(i);
        const StepPrediction plain = smallModel.evaluateValid(small);
        g_sink = g_sink + calibratedPrediction(small, calibration, plain, 0.1).calibrated.mfu;
    });
    std::printf("\ncalibrated prediction (Llama 3.1 8B, 8 H100, %zu GEMM and %zu attention shapes traced):\n",
        calibration.gemmShapes.size(), calibration.attentionShapes.size());
    std::printf("  uncalibrated evaluation:    %8.1f us\n", plainUs);
    std::printf("  calibrated, with it:        %8.1f us  (%.1fx)\n", calibratedUs, calibratedUs / plainUs);
    std::printf("  target: < 1,000 us (milliseconds per prediction) -> %s\n", calibratedUs < 1000 ? "met" : "MISSED");

    // 4. The levers the Predict panel shows beside each prediction, on the GUI thread: DeepSeek-V3 on 256 GB300 as
    // FSDP without EP, where expert parallelism's lever first searches the EP degrees of the rack (72 down to 2)
    // for the largest one the layout admits. Baseline: the same scenario's one prediction, evaluate(Scenario).
    const std::optional<Scenario> moe = presetScenario(presets, "deepseek-v3", "gb300", 256, 4096);
    if (!moe)
        return 1;
    const int nLevers = 200;
    const double predictUs = microsecondsPerCall(nLevers, [&](int) { g_sink = g_sink + evaluate(*moe).mfu; });
    size_t leverRows = 0;
    const double leversUs = microsecondsPerCall(nLevers, [&](int) { leverRows = leverEffects(*moe).size(); });
    const double searchUs = microsecondsPerCall(nLevers, [&](int) { g_sink = g_sink + expertParallelismToTry(*moe); });
    std::printf("\nlevers (DeepSeek-V3, 256 GB300, FSDP without EP; %zu rows, expert parallelism EP %d):\n", leverRows,
        expertParallelismToTry(*moe));
    std::printf("  one prediction, evaluate:   %8.1f us\n", predictUs);
    std::printf("  every lever, both sides:    %8.1f us  (%.1fx)\n", leversUs, leversUs / predictUs);
    std::printf("  of which the EP search:     %8.1f us\n", searchUs);
    std::printf("  target: < 16,000 us (one frame of the window) -> %s\n", leversUs < 16000 ? "met" : "MISSED");
    return g_sink > 0 ? 0 : 1;
}
