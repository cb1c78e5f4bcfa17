// The cost model's terms against what traced training steps measured, term by term: matmul = the GEMM kernels,
// attention = its forward and backward kernels, memory-bound = every other computing kernel (docs/cost-model.md,
// "Calibration from a trace"). Four steps on one NVIDIA H200 with PyTorch 2.11, a TorchTitan-style decoder with FP32
// weights under BF16 autocast and fused AdamW, one GPU (../shared/tools/record_training_traces.py): three from the
// issue that reported the split wrong (per step, traced), and the trace in ../shared/traces (figures by the
// product's own kernel classes; that file's test replays it in tst_trace_calibration). Uncalibrated: the constants
// are the shipped ones.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/costmodel/cost_model.h"
#include "core/presets/hf_config.h"
#include "core/scenario/scenario.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

struct TracedStep {
    const char* name;
    const char* model;
    int layers; // 0: the preset's
    int seq;
    int microBatch;
    bool compiled;
    bool qkNormShape; // Qwen3-0.6B's shape: built below from its figures
    double matmul, attention, memoryBound; // seconds a step, traced
};

// Qwen3-0.6B's shape as the trace's config states it (28 layers, d 1,024, 16 heads of 128, 8 KV heads, FFN 3,072,
// vocabulary 151,936, tied embeddings, q/k RMSNorm).
ModelSpec qwen3SmallShape()
{
    ModelSpec m = *test::shippedPresets().findModel("llama-3.2-1b");
    m.id = "qwen3-0.6b-shape";
    m.layers = 28;
    m.hidden = 1024;
    m.heads = 16;
    m.kvHeads = 8;
    m.headDim = 128;
    m.ffnDim = 3072;
    m.vocab = 151936;
    m.tiedEmbeddings = true;
    m.qkNorm = QkNorm::PerHead;
    return m;
}

// A step as ../shared/tools/record_training_traces.py runs it on one H200: FP32 weights under BF16 autocast.
Scenario recordedStep(ModelSpec model, int seq, int microBatch, bool compiled)
{
    Scenario s;
    s.model = std::move(model);
    s.cluster.hardware = *test::shippedPresets().findHardware("h200");
    s.cluster.gpuCount = 1;
    s.workload.seqLen = seq;
    s.workload.microBatch = microBatch;
    s.flags.compiled = compiled;
    s.flags.autocast = true;
    // PyTorch 2.11's scaled_dot_product_attention on an H200 runs cuDNN's fused flash attention (the shared trace's
    // cudnn_generated_fort_native_sdpa_sm90_flash kernels); every step here was recorded by the same script.
    s.flags.attentionKernel = AttentionKernel::Cudnn;
    return s;
}

Scenario scenarioOf(const TracedStep& t)
{
    ModelSpec model = t.qkNormShape ? qwen3SmallShape() : *test::shippedPresets().findModel(t.model);
    if (t.layers > 0)
        model.layers = t.layers;
    return recordedStep(std::move(model), t.seq, t.microBatch, t.compiled);
}

// How far a term may be from the traced one, as a share of the traced term.
constexpr double kTermTolerance = 0.05;

// One predicted term against the traced one: both on the log, and within `tolerance` of it as a share.
void checkTerm(const char* term, double predicted, double traced, double tolerance)
{
    const double error = predicted / traced - 1;
    qInfo("%s: predicted %.1f ms, traced %.1f ms (%+.1f%%)", term, 1e3 * predicted, 1e3 * traced, 100 * error);
    QVERIFY2(std::abs(error) <= tolerance,
        (std::string(term) + ": predicted " + std::to_string(predicted) + " s, traced " + std::to_string(traced) + " s")
            .c_str());
}

const TracedStep kSteps[] = {
    { "Llama 3.2 1B shape, eager, seq 8,192, micro-batch 4", "llama-3.2-1b", 0, 8192, 4, false, false, 0.310, 0.153,
        0.243 },
    { "8 layers of Llama 3.1 8B, eager, seq 8,192, micro-batch 2", "llama-3.1-8b", 8, 8192, 2, false, false, 0.307,
        0.063, 0.150 },
    { "8 layers of Llama 3.1 8B, compiled, seq 8,192, micro-batch 2", "llama-3.1-8b", 8, 8192, 2, true, false, 0.320,
        0.066, 0.069 },
    { "Qwen3-0.6B shape, compiled, seq 4,096, micro-batch 8 (../shared/traces)", nullptr, 0, 4096, 8, true, true,
        0.1608, 0.1138, 0.1002 },
};

// Whole MoE training steps on one H200 (bench/gpu/moe_training_step.py, PyTorch 2.11, 2026-11-30): a Qwen3-MoE-style
// decoder whose experts run as TorchTitan runs them (router softmax and top-k, tokens sorted and padded per expert,
// torch._grouped_mm, a weighted scatter back), eager, FP32 weights under BF16 autocast, fused AdamW. The timings,
// the two configs and the first run's trace are kept beside the script.
constexpr const char* kMoeSteps = MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-moe-training-step.json";

struct MoeStep {
    const char* run; // the timing file's model name
    const char* config; // its config, beside the script
    int microBatch;
};

const MoeStep kMoeRuns[] = {
    { "qwen3-moe-12l-64e-768", "h200-2026-11-30-moe-qwen3-12l-64e-768.config.json", 4 },
    { "qwen3-moe-12l-64e-768", "h200-2026-11-30-moe-qwen3-12l-64e-768.config.json", 1 },
    { "qwen3-moe-8l-32e-1536", "h200-2026-11-30-moe-qwen3-8l-32e-1536.config.json", 2 },
};

Scenario moeScenarioOf(const MoeStep& run)
{
    Scenario s;
    s.model = modelFromHfConfigFile(std::string(MFU_SOURCE_DIR "/bench/gpu/") + run.config);
    s.cluster.hardware = *test::shippedPresets().findHardware("h200");
    s.cluster.gpuCount = 1;
    s.workload.seqLen = 4096;
    s.workload.microBatch = run.microBatch;
    s.flags.compiled = false;
    s.flags.autocast = true;
    s.flags.attentionKernel = AttentionKernel::Cudnn;
    return s;
}

// The measured median step of a run at a micro-batch in the timing file, seconds; 0 when it has none.
double measuredMoeStep(const nlohmann::json& timings, const MoeStep& run)
{
    for (const auto& r : timings.at("runs"))
        if (r.at("model").get<std::string>() == run.run && r.at("micro_batch").get<int>() == run.microBatch)
            return r.at("median_step_s").get<double>();
    return 0;
}

} // namespace

class TestTracedStepTerms : public QObject {
    Q_OBJECT
private slots:
    void termsMatchTracedSteps_data()
    {
        QTest::addColumn<int>("index");
        for (int i = 0; i < static_cast<int>(std::size(kSteps)); ++i)
            QTest::newRow(kSteps[i].name) << i;
    }

    void termsMatchTracedSteps()
    {
        QFETCH(int, index);
        const TracedStep& t = kSteps[index];
        const StepPrediction p = evaluate(scenarioOf(t));
        checkTerm("matmul", p.time.matmul, t.matmul, kTermTolerance);
        checkTerm("attention", p.time.attention, t.attention, kTermTolerance);
        checkTerm("memory-bound", p.time.memoryBound, t.memoryBound, kTermTolerance);
    }

    // Without autocast (BF16 working weights) the same steps move less: the FP32 residual stream, the casts of each
    // linear layer's input and of every weight are gone, so memory-bound work is smaller on every one.
    void autocastIsWhatMovesTheExtraBytes()
    {
        for (const TracedStep& t : kSteps) {
            Scenario s = scenarioOf(t);
            const double withAutocast = evaluate(s).time.memoryBound;
            s.flags.autocast = false;
            QVERIFY2(evaluate(s).time.memoryBound < 0.6 * withAutocast, t.name);
        }
    }

    // The same 8B step compiled ran its GEMMs 4.2% and its attention 4.8% slower than eager, on the same cuBLAS and
    // cuDNN kernels: tensor-core kernels filling more of the step hold the GPU's power limit at a lower clock. The
    // model slows both by one factor from the step's tensor-core share; on 8 GPUs the published fit carries the
    // clock and compiling leaves attention's time as it was.
    void aBusierStepRunsItsTensorCoresSlower()
    {
        Scenario eager = scenarioOf(kSteps[1]);
        Scenario compiled = scenarioOf(kSteps[2]);
        const CostModel model(eager);
        const double slowEager = model.tensorCoreSlowdown(eager);
        const double slowCompiled = model.tensorCoreSlowdown(compiled);
        QVERIFY(slowEager >= 1.0);
        const double attentionRatio = evaluate(compiled).time.attention / evaluate(eager).time.attention;
        QVERIFY2(attentionRatio > 1.03 && attentionRatio < 1.06, std::to_string(attentionRatio).c_str()); // 1.048
        QCOMPARE(attentionRatio, slowCompiled / slowEager);
        eager.cluster.gpuCount = compiled.cluster.gpuCount = 8;
        QCOMPARE(model.tensorCoreSlowdown(compiled), 1.0);
        QCOMPARE(evaluate(compiled).time.attention, evaluate(eager).time.attention);
    }

    // Each whole MoE step within 8% of its measured median, stated as it ran.
    void moeStepsOnAnH200()
    {
        std::ifstream in(kMoeSteps);
        QVERIFY2(in, kMoeSteps);
        const nlohmann::json timings = nlohmann::json::parse(in);
        for (const MoeStep& run : kMoeRuns) {
            const double measured = measuredMoeStep(timings, run);
            QVERIFY2(measured > 0, run.run);
            const double predicted = evaluate(moeScenarioOf(run)).stepTimeSeconds;
            qInfo("%s, micro-batch %d: predicted %.1f ms, measured %.1f ms (%+.1f%%)", run.run, run.microBatch,
                1e3 * predicted, 1e3 * measured, 100 * (predicted / measured - 1));
            QVERIFY2(std::abs(predicted / measured - 1) <= 0.08, run.run);
        }
    }

    // Qwen3-0.6B- and 1.7B-shaped steps of 16,384 tokens on one H200, eager and compiled with CUDA graphs
    // (bench/gpu/h200-2026-12-04-qwen3-steps.json). Eager under autocast their q/k RMSNorms get the BF16 output of
    // their linear layers and FP32 weights, so PyTorch runs their composite form: in the 0.6B step at 2,048 x 8 the
    // kernels of those two norms, forward and backward, took 73.6 ms of 222.9 ms of memory-bound work, which the model
    // had at 139 ms without them (the step 19% fast). Compiled, Inductor fuses them and the term holds as it was. The
    // runs marked held out were recorded after the constant was set from that one: the 1.7B step's norms took 74.9 ms.
    void qkNormsRunUnfusedInAnEagerAutocastStep()
    {
        const std::string dir = MFU_SOURCE_DIR "/bench/gpu/";
        std::ifstream in(dir + "h200-2026-12-04-qwen3-steps.json");
        QVERIFY(in);
        const nlohmann::json record = nlohmann::json::parse(in);
        for (const auto& run : record.at("runs")) {
            qInfo("%s", run.at("name").get<std::string>().c_str());
            Scenario s
                = recordedStep(modelFromHfConfigFile(dir
                                   + record.at("configs").at(run.at("model").get<std::string>()).get<std::string>()),
                    run.at("seq").get<int>(), run.at("micro_batch").get<int>(), run.at("compiled").get<bool>());
            QVERIFY(s.model.qkNorm == QkNorm::PerHead);
            if (s.flags.compiled)
                s.flags.cudaGraphs = CudaGraphs::FullIteration;
            const StepPrediction p = evaluate(s);
            if (run.contains("traced_terms_s")) {
                const auto& traced = run.at("traced_terms_s");
                checkTerm("memory-bound", p.time.memoryBound, traced.at("memory_bound").get<double>(), kTermTolerance);
                checkTerm("matmul", p.time.matmul, traced.at("matmul").get<double>(), 0.08);
                checkTerm("attention", p.time.attention, traced.at("attention").get<double>(), 0.08);
                if (traced.contains("q_k_norm")) {
                    Scenario without = s;
                    without.model.qkNorm = QkNorm::None;
                    checkTerm("q/k norms", p.time.memoryBound - evaluate(without).time.memoryBound,
                        traced.at("q_k_norm").get<double>(), kTermTolerance);
                }
            }
            if (s.flags.compiled)
                continue; // the model's 20 ms of per-step host work is not in a bare loop under CUDA graphs
            checkTerm("step", p.stepTimeSeconds, run.at("median_step_s").get<double>(), kTermTolerance);
            const double gib = p.memory.total() / (1ull << 30), measuredGib = run.at("peak_memory_gib").get<double>();
            qInfo("peak memory: predicted %.1f GiB, at most %.1f GiB allocated", gib, measuredGib);
            QVERIFY2(std::abs(gib / measuredGib - 1) <= 0.06, std::to_string(gib).c_str());
        }
    }

    // The traced MoE step term by term, against the product's own kernel classes of the kept trace (`mfu-explorer
    // trace bench/gpu/h200-2026-11-30-moe-qwen3-12l-64e-768-s4096-mb4.json.gz --json`, categories): GEMMs 103.2 ms
    // (the grouped ones included), attention 44.9 ms, memory-bound 286.2 ms. With the width law's time all booked as
    // GEMMs, the model read 1.88x the GEMMs and 0.52x the memory-bound work; the part beyond the grouped kernels'
    // rate is routing work around them (gathers and scatters of the permutation, the routing weights' multiply),
    // which the trace shows as elementwise and indexing kernels.
    void moeStepSplitAsTraced()
    {
        const StepPrediction p = evaluate(moeScenarioOf(kMoeRuns[0]));
        checkTerm("matmul", p.time.matmul, 0.1032, 0.15);
        checkTerm("attention", p.time.attention, 0.0449, 0.15);
        checkTerm("memory-bound", p.time.memoryBound, 0.2862, 0.25);
        // The routing work is part of the memory-bound term, and the step's diagnosis names it.
        QVERIFY(p.time.moeRouting > 0.25 * p.time.memoryBound && p.time.moeRouting < p.time.memoryBound);
        QCOMPARE(p.time.total(), p.stepTimeSeconds);
        QVERIFY(p.bottleneck == Bottleneck::MemoryBandwidth);
        const std::string sentence = bottleneckSentence(p);
        QVERIFY2(sentence.find("the MoE layers' routing") != std::string::npos, sentence.c_str());
    }

    // The same step with a fused permutation: in its trace PyTorch's index kernels (index_put 14.6 ms, the gathers
    // 13.2 ms, index_add 26.5 ms, the indexing backward 16.5 ms) took 70.9 ms, where fused kernels would move the
    // permutation's bytes, which the model charges either way, in 8.2 ms. The switch takes the difference off the
    // routing work: the model's unfusedPermutationBytesPerRoutedElement, carried through the step's forward and
    // backward passes of its 12 layers.
    void fusedPermutationSavesWhatTheIndexKernelsTook()
    {
        Scenario s = moeScenarioOf(kMoeRuns[0]);
        const StepPrediction unfused = evaluate(s);
        s.flags.moePermuteFusion = true;
        const StepPrediction fused = evaluate(s);
        const double saved = unfused.time.memoryBound - fused.time.memoryBound;
        checkTerm("index kernels beyond the permutation's bytes", saved, 0.0709 - 0.0082, 0.02);
        QCOMPARE(fused.time.matmul, unfused.time.matmul);
        QCOMPARE(unfused.time.moeRouting - fused.time.moeRouting, saved);
        QVERIFY(fused.time.moeRouting > 0);
    }

    // The bottleneck's advice names the fusions the scenario does not run: the traced step (eager, PyTorch's index
    // kernels, a fused optimizer) is sent to the permutation, the grouped-MLP kernels and torch.compile; compiled and
    // permuted by fused kernels, its routing no longer leads and the grouped-MLP kernels are what is left; with every
    // fusion on, it is told none, and that the rest is bandwidth.
    void bottleneckAdviceNamesOnlyTheFusionsNotRun()
    {
        Scenario s = moeScenarioOf(kMoeRuns[0]);
        s.flags.fusedOptimizer = true;
        const std::string traced = bottleneckSentence(evaluate(s));
        QVERIFY2(
            traced.find("fuse it (fused permutation, fused grouped-MLP kernels, torch.compile).") != std::string::npos,
            traced.c_str());
        s.flags.moePermuteFusion = true;
        s.flags.compiled = true;
        const StepPrediction someFused = evaluate(s);
        QVERIFY(someFused.bottleneck == Bottleneck::MemoryBandwidth);
        const std::string some = bottleneckSentence(someFused);
        QVERIFY2(some.find("fuse it (fused grouped-MLP kernels).") != std::string::npos, some.c_str());
        s.flags.fusedExpertMlp = true;
        const StepPrediction allFused = evaluate(s);
        QVERIFY(allFused.bottleneck == Bottleneck::MemoryBandwidth);
        const std::string none = bottleneckSentence(allFused);
        QVERIFY2(none.find("fuse it") == std::string::npos, none.c_str());
        QVERIFY2(none.find("every fusion the model counts is on") != std::string::npos, none.c_str());
    }

    // The lone-GPU GEMM figures hold for one GPU only: the same step on 8 GPUs keeps the published runs' fit.
    void loneGpuGemmsOnlyOnOneGpu()
    {
        Scenario s = scenarioOf(kSteps[1]);
        const double one = evaluate(s).time.matmul;
        s.cluster.gpuCount = 8;
        QVERIFY(evaluate(s).time.matmul > 1.05 * one);
    }
};

QTEST_APPLESS_MAIN(TestTracedStepTerms)
#include "tst_traced_step_terms.moc"
