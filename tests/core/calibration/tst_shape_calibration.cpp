// GEMM and attention efficiency by shape (core/calibration/gemm_shapes.h, attention_shapes.h): a scenario's linear
// GEMMs written out as nn.Linear runs them, a trace's matrix products and attention calls kept by shape, and a
// calibration that carries its matmul and attention factors to another scenario's shapes and says when they go
// beyond what the trace ran.
#include <QTest>

#include <cmath>
#include <functional>

#include "core/calibration/attention_shapes.h"
#include "core/calibration/gemm_shapes.h"
#include "core/calibration/trace_calibration.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/constants.h"
#include "core/costmodel/cost_model.h"
#include "core/trace/analysis.h"
#include "core/trace/trace_flops.h"
#include "shipped_presets.h"

using namespace mfu;
using trace::KernelCategory;

namespace {

Scenario llamaOnH100(int gpus, int tp, int microBatch = 1)
{
    Scenario s;
    s.model = *test::shippedPresets().findModel("llama-3.1-8b");
    s.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
    s.cluster.gpuCount = gpus;
    s.workload.seqLen = 8192;
    s.workload.microBatch = microBatch;
    s.parallelism.tp = tp;
    return s;
}

const LinearGemm* find(const std::vector<LinearGemm>& gemms, const std::string& what)
{
    for (const LinearGemm& g : gemms)
        if (g.what == what)
            return &g;
    return nullptr;
}

// The time a GEMM would take at the model's own shape law on the scenario's GPU (BF16), times `ratio`.
double lawSeconds(const Scenario& s, double m, double n, double k, double flops, double ratio)
{
    const CostModelConstants c = costModelConstantsFor(s);
    const double d = std::min({ m, n, k });
    return ratio * flops
        / (*s.cluster.hardware.densePeak(NumberFormat::BF16) * c.gemmEfficiency * gemmShapeFactor(d, c));
}

// One rank of a trace that ran the scenario's own linear GEMMs, each at the model's law times ratio(gemm), per step;
// the other terms as the model predicts them.
trace::RunAnalysis tracedGemms(const Scenario& s, const std::function<double(const LinearGemm&)>& ratio)
{
    const StepPrediction p = evaluate(s);
    trace::RankAnalysis r;
    r.gpuName = "NVIDIA H100 80GB HBM3";
    r.sourceFile = "synthetic";
    r.steps.resize(1);
    double gemmSeconds = 0;
    for (const LinearGemm& g : linearGemmsOf(s)) {
        trace::OpProblem op;
        op.op = "aten::mm";
        op.kind = trace::OpKind::Matmul;
        op.category = KernelCategory::Gemm;
        op.gemm = { g.m, g.n, g.k, 1 };
        op.precision = trace::GemmPrecision {};
        op.calls = 1;
        op.flops = g.flops;
        const double seconds = lawSeconds(s, g.m, g.n, g.k, g.flops, ratio(g));
        op.ns = static_cast<int64_t>(seconds * 1e9);
        gemmSeconds += seconds;
        r.opFlops.problems.push_back(op);
    }
    auto& e = r.total.exclusiveNs;
    e[static_cast<size_t>(KernelCategory::Gemm)] = static_cast<int64_t>(gemmSeconds * 1e9);
    e[static_cast<size_t>(KernelCategory::AttentionFwd)] = static_cast<int64_t>(p.time.attention * 1e9);
    e[static_cast<size_t>(KernelCategory::Elementwise)] = static_cast<int64_t>(p.time.memoryBound * 1e9);
    e[static_cast<size_t>(KernelCategory::CommAllReduce)] = static_cast<int64_t>(p.time.exposedCommTotal() * 1e9);
    r.total.commNs = e[static_cast<size_t>(KernelCategory::CommAllReduce)]; // all of it exposed
    for (const int64_t v : e)
        r.total.busyNs += v;
    r.meanStepSeconds = static_cast<double>(r.total.busyNs) * 1e-9 + p.time.overhead + p.time.pipelineBubble;
    r.stepSpreadSeconds = 0.01 * r.meanStepSeconds;
    return trace::finishRun({ r });
}

CalibratedTermTime matmulOf(const CalibratedPrediction& p) // a copy: the prediction is often a temporary
{
    return p.terms[static_cast<size_t>(CalibratedTerm::Matmul)];
}

} // namespace

class TestShapeCalibration : public QObject {
    Q_OBJECT
private slots:
    // Llama 3.1 8B (hidden 4,096, 32 query heads and 8 key/value heads of 128, SwiGLU 14,336, vocabulary 128,256) at
    // 8,192 tokens: every projection's three GEMMs, their FLOPs six times the linear weights per token.
    void aDenseModelsGemmsAsNnLinearRunsThem()
    {
        const std::vector<LinearGemm> gemms = linearGemmsOf(llamaOnH100(8, 1));
        QCOMPARE(gemms.size(), size_t(24)); // q, k, v, o, gate, up, down and the LM head, three GEMMs each
        const LinearGemm* q = find(gemms, "q_proj forward");
        QVERIFY(q && q->m == 8192 && q->n == 4096 && q->k == 4096);
        const LinearGemm* k = find(gemms, "k_proj forward");
        QVERIFY(k && k->n == 1024 && k->k == 4096);
        const LinearGemm* gateGrad = find(gemms, "gate_proj weight gradient");
        QVERIFY(gateGrad && gateGrad->m == 14336 && gateGrad->n == 4096 && gateGrad->k == 8192);
        const LinearGemm* downInput = find(gemms, "down_proj input gradient");
        QVERIFY(downInput && downInput->m == 8192 && downInput->n == 14336 && downInput->k == 4096);
        double flops = 0;
        for (const LinearGemm& g : gemms)
            flops += g.flops;
        // Per layer 4,096^2 x 2 + 4,096 x 1,024 x 2 + 3 x 4,096 x 14,336 = 218,103,808 weights, 32 layers, and the
        // head's 4,096 x 128,256: 7,504,658,432 weights x 2 FLOPs x 3 passes x 8,192 tokens.
        QCOMPARE(flops, 7504658432.0 * 6 * 8192);

        const std::vector<LinearGemm> split = linearGemmsOf(llamaOnH100(8, 2));
        QCOMPARE(find(split, "q_proj forward")->n, 2048.0);
        QCOMPARE(find(split, "k_proj forward")->n, 512.0);
        QCOMPARE(find(split, "o_proj forward")->k, 2048.0);
        QCOMPARE(find(split, "lm_head forward")->n, 64128.0);
        // TP 16 over 8 key/value heads: each rank keeps one head of 128.
        QCOMPARE(find(linearGemmsOf(llamaOnH100(16, 16)), "k_proj forward")->n, 128.0);

        // FP8 linear layers; TorchAO's rowwise_with_gw_hp keeps the weight gradients' GEMMs in BF16, the LM head stays
        // BF16 in every recipe.
        Scenario fp8 = llamaOnH100(8, 1);
        fp8.precision = TrainingPrecision::BF16_FP8;
        fp8.flags.fp8Recipe = Fp8Recipe::RowwiseWithGwHp;
        const std::vector<LinearGemm> gwHp = linearGemmsOf(fp8);
        QCOMPARE(find(gwHp, "up_proj forward")->precision, std::string("fp8"));
        QCOMPARE(find(gwHp, "up_proj input gradient")->precision, std::string("fp8"));
        QCOMPARE(find(gwHp, "up_proj weight gradient")->precision, std::string("bf16"));
        QCOMPARE(find(gwHp, "lm_head forward")->precision, std::string("bf16"));
        fp8.flags.fp8Recipe = Fp8Recipe::Rowwise;
        QCOMPARE(find(linearGemmsOf(fp8), "up_proj weight gradient")->precision, std::string("fp8"));
    }

    void modelsItDoesNotWriteOutGiveNone()
    {
        Scenario moe = llamaOnH100(8, 1);
        moe.model = *test::shippedPresets().findModel("qwen3-30b-a3b");
        QVERIFY(linearGemmsOf(moe).empty());
        Scenario hybrid = llamaOnH100(8, 1);
        hybrid.model = *test::shippedPresets().findModel("nemotron-3-nano-30b-a3b");
        QVERIFY(linearGemmsOf(hybrid).empty());
        Scenario mla = llamaOnH100(8, 1);
        mla.model = *test::shippedPresets().findModel("deepseek-v3");
        QVERIFY(linearGemmsOf(mla).empty());
    }

    // Two ranks of three steps: the same shape by mm and addmm is one bin; a batched product and a GEMM that ran on
    // another kernel category are not GEMM shapes; a bin under 0.1% of the GEMM time is noise.
    void binsAreKeptPerShapeAndStep()
    {
        const auto problem = [](const char* op, double m, double n, double k, double seconds, double batch = 1,
                                 KernelCategory category = KernelCategory::Gemm) {
            trace::OpProblem p;
            p.op = op;
            p.kind = trace::OpKind::Matmul;
            p.category = category;
            p.gemm = { m, n, k, batch };
            p.precision = trace::GemmPrecision {};
            p.calls = 3;
            p.flops = 2 * m * n * k * batch * 3;
            p.ns = static_cast<int64_t>(seconds * 1e9);
            return p;
        };
        std::vector<trace::RankAnalysis> ranks(2);
        for (trace::RankAnalysis& r : ranks) {
            r.steps.resize(3);
            r.opFlops.problems = { problem("aten::mm", 4096, 1024, 1024, 0.3),
                problem("aten::addmm", 4096, 1024, 1024, 0.3), problem("aten::mm", 4096, 4096, 1024, 0.6),
                problem("aten::bmm", 4096, 4096, 128, 0.6, 32), problem("aten::mm", 64, 64, 64, 0.0003),
                problem("aten::mm", 8, 8, 8, 0.6, 1, KernelCategory::Other) };
        }
        const std::vector<GemmShapeBin> bins = gemmShapeBinsOf(trace::finishRun(std::move(ranks)));
        QCOMPARE(bins.size(), size_t(2));
        QCOMPARE(bins[0].n, 1024.0); // 0.6 s over three steps, longest first (a tie broken by shape)
        QVERIFY(std::abs(bins[0].secondsPerStep - 0.2) < 1e-9);
        QVERIFY(std::abs(bins[0].callsPerStep - 2) < 1e-9);
        QCOMPARE(bins[0].precision, std::string("bf16"));
        QVERIFY(std::abs(bins[0].flopsPerSecond() - 2.0 * 4096 * 1024 * 1024 / 0.1) < 1e3);
    }

    // A trace whose GEMMs all ran at one ratio to the model's law carries that ratio to every shape; the scenario's
    // own shapes are exact, another micro-batch within range, TP 2's narrower key/value GEMMs beyond.
    void aShapeMatchSaysWhereTheScenarioStands()
    {
        const Scenario s = llamaOnH100(8, 1, 2);
        std::vector<GemmShapeBin> bins;
        for (const LinearGemm& g : linearGemmsOf(s))
            bins.push_back({ g.m, g.n, g.k, g.precision, 1, lawSeconds(s, g.m, g.n, g.k, g.flops, 1.25), g.flops });
        const auto same = matchGemmShapes(s, s, bins);
        QVERIFY(same);
        QVERIFY(
            std::abs(same->measuredOverModel / matchGemmShapes(llamaOnH100(8, 1, 1), s, bins)->measuredOverModel - 1)
            < 1e-9);
        QVERIFY(std::abs(same->exactShare - 1) < 1e-9);

        const auto smaller = matchGemmShapes(llamaOnH100(8, 1, 1), s, bins);
        QVERIFY(smaller->withinShare > 0.99);
        QVERIFY(smaller->beyondShare == 0);

        const auto split = matchGemmShapes(llamaOnH100(8, 2, 2), s, bins);
        QVERIFY(split->beyondShare > 0.01);
        QVERIFY2(
            split->beyond.find("N 512: the trace's smallest is 1,024") != std::string::npos, split->beyond.c_str());

        Scenario fp8 = s;
        fp8.precision = TrainingPrecision::BF16_FP8;
        const auto other = matchGemmShapes(fp8, s, bins);
        // FP8 bins of a tensorwise trace carried to a blockwise run: the blockwise recipe's own ratio applies.
        std::vector<GemmShapeBin> fp8Bins;
        for (const LinearGemm& g : linearGemmsOf(fp8))
            fp8Bins.push_back({ g.m, g.n, g.k, g.precision, 1, lawSeconds(s, g.m, g.n, g.k, g.flops, 0.5), g.flops });
        Scenario blockwise = fp8;
        blockwise.flags.fp8Recipe = Fp8Recipe::Blockwise;
        const double recipe = matchGemmShapes(blockwise, fp8, fp8Bins)->measuredOverModel
            / matchGemmShapes(fp8, fp8, fp8Bins)->measuredOverModel;
        QVERIFY2(std::abs(recipe - 1) < 0.01, std::to_string(recipe).c_str()); // the recipe's ratio stays the model's
        QVERIFY(other->beyondShare > 0.8); // all but the LM head, which stays BF16
        QVERIFY2(other->beyond.find("the trace ran no fp8 GEMMs") != std::string::npos, other->beyond.c_str());
        QVERIFY(!matchGemmShapes(s, s, {}));
    }

    // The calibration carries its matmul factor by shape: a trace whose narrow GEMMs (a dimension of 1,024 or less)
    // ran twice as slow as the model's law and the rest as the law says predicts a TP 4 layout, which has more
    // narrow GEMMs, slower than one factor for the whole trace would; the traced run replays exactly.
    void theMatmulFactorFollowsTheShapes()
    {
        const Scenario s = llamaOnH100(8, 1);
        const auto narrowSlow = [](const LinearGemm& g) { return std::min({ g.m, g.n, g.k }) <= 1024 ? 2.0 : 1.0; };
        const TraceCalibration c = calibrateFromTrace(s, tracedGemms(s, narrowSlow), { "synthetic" });
        QCOMPARE(c.gemmShapes.size(), size_t(12)); // 24 GEMMs, of 12 shapes (q and o are 4,096 square, ...)
        const CalibratedPrediction replay = calibratedPrediction(s, c, evaluate(s), 0.1);
        QCOMPARE(matmulOf(replay).basis, TermBasis::Measured);
        QVERIFY2(std::abs(c.replayError()) < 0.01, std::to_string(c.replayError()).c_str());

        const Scenario tp4 = llamaOnH100(8, 4);
        const CalibratedPrediction shaped = calibratedPrediction(tp4, c, evaluate(tp4), 0.1);
        const double oneFactor = c.scales.matmul * (evaluate(tp4).time.matmul + evaluate(tp4).time.recompute);
        QVERIFY2(matmulOf(shaped).seconds > 1.05 * oneFactor,
            (std::to_string(matmulOf(shaped).seconds) + " vs " + std::to_string(oneFactor)).c_str());
        QCOMPARE(matmulOf(shaped).basis, TermBasis::Extrapolated); // k and v at 256 wide: never traced
        QVERIFY(matmulOf(shaped).why.find("k_proj") != std::string::npos);

        // Another micro-batch: the GEMMs' shapes lie within what the trace ran.
        const Scenario mb2 = llamaOnH100(8, 1, 2);
        QCOMPARE(matmulOf(calibratedPrediction(mb2, c, evaluate(mb2), 0.1)).basis, TermBasis::Interpolated);
        // The same shapes on more GPUs: the GEMMs are the trace's, the GPU's neighbours are not.
        const Scenario wider = llamaOnH100(16, 1);
        const CalibratedTermTime w = matmulOf(calibratedPrediction(wider, c, evaluate(wider), 0.1));
        QCOMPARE(w.basis, TermBasis::Interpolated);
        QVERIFY2(w.why.find("on 16 GPUs (traced 8)") != std::string::npos, w.why.c_str());
        // The same shapes recomputed under full checkpointing: not what the trace ran.
        Scenario recomputed = s;
        recomputed.activationCheckpointing = ActivationCheckpointing::Full;
        const CalibratedTermTime ac = matmulOf(calibratedPrediction(recomputed, c, evaluate(recomputed), 0.1));
        QCOMPARE(ac.basis, TermBasis::Interpolated);
        QVERIFY2(ac.why.find("under checkpointing full (traced none)") != std::string::npos, ac.why.c_str());
        // The GEMM shapes carried by a law that follows the model's: more narrow GEMMs at TP 4, so slower per FLOP
        // than the trace's as a whole, and the same shapes on 16 GPUs at the trace's speed.
        const double perFlop = matmulOf(shaped).seconds / (c.fits[0].measuredSeconds / 4);
        QVERIFY2(perFlop > 1.05, std::to_string(perFlop).c_str());
        QVERIFY2(std::abs(w.seconds / c.fits[0].measuredSeconds - 1) < 0.01,
            (std::to_string(w.seconds) + " vs " + std::to_string(c.fits[0].measuredSeconds)).c_str());
    }

    // Attention calls are kept per shape, pass and mask; a bin of another kernel category is not attention.
    void attentionBinsAreKeptPerShapeAndPass()
    {
        const auto call = [](bool backward, double seq, double seconds, KernelCategory category) {
            trace::OpProblem p;
            p.op = backward ? "aten::_scaled_dot_product_flash_attention_backward"
                            : "aten::_scaled_dot_product_flash_attention";
            p.kind = trace::OpKind::Attention;
            p.category = category;
            p.attention = { 2, 32, seq, seq, 128, 128 };
            p.causal = true;
            p.backward = backward;
            p.calls = 64;
            p.flops = 2.0 * 2 * 32 * seq * seq * 256 / 2 * (backward ? 2.5 : 1.0) * 64;
            p.ns = static_cast<int64_t>(seconds * 1e9);
            return p;
        };
        trace::RankAnalysis r;
        r.steps.resize(2);
        r.opFlops.problems = { call(false, 8192, 0.4, KernelCategory::AttentionFwd),
            call(true, 8192, 1.0, KernelCategory::AttentionBwd), call(false, 4096, 0.4, KernelCategory::Gemm) };
        const std::vector<AttentionShapeBin> bins = attentionShapeBinsOf(trace::finishRun({ r }));
        QCOMPARE(bins.size(), size_t(2));
        QVERIFY(bins[0].backward && bins[0].seqK == 8192 && bins[0].heads == 32 && bins[0].causal);
        QVERIFY(std::abs(bins[0].secondsPerStep - 0.5) < 1e-9);
        QCOMPARE(bins[1].callsPerStep, 32.0);
    }

    // The scenario's attention calls against bins of Llama 3.1 8B at 8,192: the same sequence is exact whatever the
    // micro-batch or TP, a longer one goes beyond; layers other than full attention and packed documents are not
    // written out.
    void attentionStandsBySequenceAndHeadSize()
    {
        const Scenario s = llamaOnH100(8, 1);
        const std::vector<AttentionShapeBin> bins { { 1, 32, 8192, 8192, 128, 128, true, false, 32, 0.05, 1e15 },
            { 1, 32, 8192, 8192, 128, 128, true, true, 32, 0.12, 2.5e15 } };
        const auto same = matchAttentionShapes(s, s, bins);
        QVERIFY(same && std::abs(same->exactShare - 1) < 1e-9);
        QVERIFY(std::abs(matchAttentionShapes(llamaOnH100(8, 2, 4), s, bins)->exactShare - 1) < 1e-9);
        Scenario longer = s;
        longer.workload.seqLen = 32768;
        const auto beyond = matchAttentionShapes(longer, s, bins);
        QVERIFY(beyond->beyondShare > 0.99);
        QVERIFY2(beyond->beyond.find("sequence 32,768: the trace's largest is 8,192") != std::string::npos,
            beyond->beyond.c_str());
        Scenario window = s;
        window.model = *test::shippedPresets().findModel("gemma-3-27b");
        QVERIFY(!matchAttentionShapes(window, s, bins));
        Scenario packed = s;
        packed.workload.packing.documents = { { 2048, 4 } };
        QVERIFY(!matchAttentionShapes(packed, s, bins));
    }
};

QTEST_GUILESS_MAIN(TestShapeCalibration)
#include "tst_shape_calibration.moc"
