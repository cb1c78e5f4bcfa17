// Cost-model speed: one scenario evaluation (ns), and a full planner search for Llama 3.1 405B on 16,384 GPUs
// (configurations evaluated per second), each against an in-run naive baseline that rebuilds the model facts and
// copies the scenario for every configuration, as a straightforward implementation would. Calculon (Isaev et al.,
// SC'23) evaluates about 70 configurations per second per core on a machine like this one.
#include <chrono>
#include <cstdio>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/planner.h"
#include "core/errors.h"

using namespace mfu;
using Clock = std::chrono::steady_clock;
using AC = ActivationCheckpointing;

namespace {

ModelSpec llama405b()
{
    ModelSpec m;
    m.id = "llama-3.1-405b";
    m.layers = 126;
    m.hidden = 16384;
    m.heads = 128;
    m.kvHeads = 8;
    m.headDim = 128;
    m.ffnDim = 53248;
    m.vocab = 128256;
    return m;
}

// H100 SXM (NVIDIA datasheet): 989 TFLOPS BF16 dense, 80 GB, 3.35 TB/s, NVLink 4 450 GB/s per direction, 8-GPU
// HGX domain, 400 Gb/s InfiniBand per GPU.
HardwareSpec h100()
{
    HardwareSpec h;
    h.id = "h100-sxm";
    h.vendor = "NVIDIA";
    h.peakDenseFlops[static_cast<size_t>(NumberFormat::BF16)] = 989e12;
    h.peakDenseFlops[static_cast<size_t>(NumberFormat::FP8)] = 1979e12;
    h.hbmBytes = 80e9;
    h.hbmBandwidthBytesPerSec = 3.35e12;
    h.scaleUpDomainGpus = 8;
    h.scaleUpBandwidthBytesPerSec = 450e9;
    h.scaleOutBandwidthBytesPerSec = 50e9;
    return h;
}

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

volatile double g_sink = 0; // keeps the optimiser from dropping the evaluations

} // namespace

int main()
{
    Scenario s;
    s.model = llama405b();
    s.cluster.hardware = h100();
    s.cluster.gpuCount = 16384;
    s.workload.seqLen = 8192;
    s.workload.globalBatchTokens = 16 * 1024 * 1024;
    s.parallelism.tp = 8;
    s.parallelism.pp = 16;
    s.parallelism.virtualStages = 4;
    s.parallelism.schedule = PipelineSchedule::Interleaved1F1B;
    s.activationCheckpointing = ActivationCheckpointing::Selective;

    // 1. One evaluation.
    const CostModel model(s.model, s.cluster.hardware);
    const int n = 200000;
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
        s.workload.microBatch = 1 + (i & 1);
        g_sink = g_sink + model.evaluateValid(s).mfu;
    }
    const double fastNs = secondsSince(t0) / n * 1e9;
    const int nNaive = 20000;
    t0 = Clock::now();
    for (int i = 0; i < nNaive; ++i) {
        Scenario copy = s; // a naive caller: copy the scenario, rebuild the model facts, validate, evaluate
        copy.workload.microBatch = 1 + (i & 1);
        g_sink = g_sink + evaluate(copy).mfu;
    }
    const double naiveNs = secondsSince(t0) / nNaive * 1e9;
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
    t0 = Clock::now();
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
    return g_sink > 0 ? 0 : 1;
}
