// Every model preset the binary ships can be predicted (what `mfu-explorer predict --model ID` runs): a finite step
// whose MFU lies in (0, 1) and whose FLOP per token is the per-layer count; and the cost model charges the new token
// mixers their own cost (Kimi K3's recurrences, DeepSeek-V4's compressed keys and indexer).
#include <QtTest>

#include <cmath>
#include <functional>
#include <vector>

#include "core/costmodel/cost_model.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {

// 1,024 B200s, the widest tensor parallelism up to 8 the heads allow, 8-way expert parallelism where the experts
// divide, full checkpointing: a layout every shipped model can be asked about (whether it fits is not the point).
Scenario bigCluster(const ModelSpec& m, int64_t seq)
{
    int tp = 8;
    while (tp > 1 && (m.heads % tp != 0 || (m.kvHeads % tp != 0 && tp % m.kvHeads != 0)))
        tp /= 2;
    Scenario s = scenarioFor(m, "b200", 1024, seq, tp, ActivationCheckpointing::Full);
    if (m.isMoe() && m.moe.experts % 8 == 0)
        s.parallelism.ep = 8;
    return s;
}

const ModelSpec& preset(const char* id)
{
    const ModelSpec* m = shippedPresets().findModel(id);
    if (!m)
        qFatal("model preset '%s' missing", id);
    return *m;
}

} // namespace

class TestCostModelPresets : public QObject {
    Q_OBJECT
private slots:
    void everyModelPresetPredicts()
    {
        int predicted = 0;
        for (const ModelSpec& m : shippedPresets().models()) {
            if (m.isBare())
                continue;
            const Scenario s = bigCluster(m, 8192);
            CostModel model(s);
            const char* invalid = model.invalidReason(s);
            QVERIFY2(!invalid, qPrintable(QString::fromStdString(m.id) + ": " + invalid));
            const StepPrediction p = model.evaluate(s);
            const QString what = QString::fromStdString(m.id)
                + QStringLiteral(": step %1 s, MFU %2").arg(p.stepTimeSeconds).arg(p.mfu);
            QVERIFY2(std::isfinite(p.stepTimeSeconds) && p.stepTimeSeconds > 0, qPrintable(what));
            QVERIFY2(p.mfu > 0 && p.mfu < 1, qPrintable(what));
            // Every memory term is a real amount (a latent MoE once made the dense remainder negative).
            for (const double bytes : { p.memory.parameters, p.memory.gradients, p.memory.optimizerState,
                     p.memory.activations, p.memory.temporary })
                QVERIFY2(std::isfinite(bytes) && bytes >= 0,
                    qPrintable(what + QStringLiteral(": a memory term of %1 bytes").arg(bytes)));
            ++predicted;
        }
        QVERIFY2(predicted >= 30, "the shipped model presets did not load"); // 38 at the time of writing
    }

    // Kimi K3's Kimi Delta Attention layers cost a recurrence per token, not a square in S: the cost model's shape
    // carries 69 of 93 layers' recurrences, and only its 24 MLA layers attend (S/2 keys each, causally).
    void kimiK3Shape()
    {
        const ModelShape s = modelShapeOf(preset("kimi-k3"));
        // The operands its projections hand an FP8 recipe (12,288 channels): q, k, v and the full-rank forget gate,
        // beta (96), the low-rank output gate (128 in, 128 out, 12,288) and the out-projection's input.
        QCOMPARE(s.recurrentProjectionWidth, 69 * (4.0 * 12'288 + 96 + 2 * 128 + 12'288 + 12'288) / 93);
        // Each KDA layer's chunked kernels (96 heads of 128, chunks of 64): matmuls 3 C d + 2 C d + 6 d^2 + C^2/3 and
        // 14 d + 12 d + 12 C + 4 d^2 / C bytes per head, plus its per-channel FP32 decay (20 d) and beta (6).
        QCOMPARE(s.recurrentScanFlops, 69 * 96 * (5.0 * 64 * 128 + 6.0 * 128 * 128 + 64.0 * 64 / 3) / 93);
        QCOMPARE(s.recurrentScanBytes, 69 * 96 * (26.0 * 128 + 12 * 64 + 4.0 * 128 * 128 / 64 + 20 * 128 + 6) / 93);
        // Backward: 72 d of BF16 vectors, A^-1 read twice (4 C), the states four times (8 d^2 / C), the decay 52 d and
        // beta 6 bytes a head.
        QCOMPARE(
            s.recurrentScanBackwardBytes, 69 * 96 * (72.0 * 128 + 4 * 64 + 8.0 * 128 * 128 / 64 + 52 * 128 + 6) / 93);
        // Around each recurrence (12,288 channels): three convolutions, two L2 norms and the gated norm, 13 BF16
        // passes forward and 20 backward, and the forget gate read in BF16 and written in FP32 (6, then 8 backward).
        QCOMPARE(s.recurrentElementwiseBytes, 69 * (2.0 * 13 + 6 + 2.0 * 20 + 8) * 96 * 128 / 93);
        QCOMPARE(s.fullAttentionShare, 24.0 / 93);
        QCOMPARE(s.causalAttentionSpan(8192), 24.0 / 93 * 4096);
        // Every layer a token mixer and a channel mixer; only the 24 MLA layers exchange keys and values under CP.
        QCOMPARE(s.layer.sublayersPerLayer, 2.0);
        QCOMPARE(s.layer.keyValueLayerShare, 24.0 / 93);
    }

    // Nemotron-H's blocks hold one sublayer each (23 Mamba-2, 23 MoE, 6 attention in Nemotron 3 Nano's 52): one norm,
    // one TP all-gather and reduce-scatter a block, and only the 6 attention blocks exchange keys and values under CP.
    // A transformer layer holds two, every layer with attention.
    void sublayersOfHybridBlocks()
    {
        const ModelShape nano = modelShapeOf(preset("nemotron-3-nano-30b-a3b"));
        QCOMPARE(nano.layer.sublayersPerLayer, 1.0);
        QCOMPARE(nano.layer.keyValueLayerShare, 6.0 / 52);
        const ModelShape llama = modelShapeOf(preset("llama-3.1-8b"));
        QCOMPARE(llama.layer.sublayersPerLayer, 2.0);
        QCOMPARE(llama.layer.keyValueLayerShare, 1.0);
        // Qwen3.5: each Gated DeltaNet layer has its MLP (two sublayers); one layer in four attends.
        const ModelShape qwen = modelShapeOf(preset("qwen3.5-27b"));
        QCOMPARE(qwen.layer.sublayersPerLayer, 2.0);
        QCOMPARE(qwen.layer.keyValueLayerShare, 0.25);
    }

    // What Nemotron 3 Nano's blocks keep for backward, one GPU, fused norms, bytes per token averaged over its 52
    // blocks: each block its norm's input and output (2 x 2 x 2,688); the 6 attention blocks Q (32 x 128), K and V
    // (2 x 2 x 128), the attention's output and the log-sum-exp (17,536); the 23 Mamba-2 blocks zxbcdt, the scan's
    // output, the normed output and the norm's statistics (37,024); the 23 MoE blocks 6 routed experts and the shared
    // one of relu2 (no gate: 4 bytes per channel of 6 x 1,856 + 3,712). A transformer layer's formula had charged
    // every block two norms and the attention's tensors, and none the Mamba's: 18% more.
    void activationsOfHybridBlocks()
    {
        const ModelShape nano = modelShapeOf(preset("nemotron-3-nano-30b-a3b"));
        QCOMPARE(nano.layer.recurrentSavedBytes, 23.0 / 52 * 37'024);
        // Its Mamba-2 in-projection writes zxbcdt (10,304 wide) and its out-projection reads 4,096: the operands an
        // FP8 recipe casts beside attention's.
        QCOMPARE(nano.recurrentProjectionWidth, 23.0 / 52 * (10'304 + 4'096));
        ActivationLayout fused;
        const double attention = 2.0 * (4'096 + 512) + 2.0 * 4'096 + 4 * 32;
        const double perBlock = 4.0 * 2'688 + (6 * attention + 23 * 37'024 + 23 * 4.0 * (6 * 1'856 + 3'712)) / 52;
        QCOMPARE(activationBytesPerTokenLayer(nano.layer, 8192, fused), perBlock);
        LayerShape asTransformer = nano.layer;
        asTransformer.sublayersPerLayer = 2;
        asTransformer.keyValueLayerShare = 1;
        asTransformer.recurrentSavedBytes = 0;
        const double before = activationBytesPerTokenLayer(asTransformer, 8192, fused);
        QVERIFY(before > 1.17 * perBlock && before < 1.19 * perBlock);
        // TP 2 with SP splits all of it; full recompute keeps the block's input alone.
        fused.tp = 2;
        QCOMPARE(activationBytesPerTokenLayer(nano.layer, 8192, fused), perBlock / 2);
        fused.recompute = ActivationRecompute::Full;
        QCOMPARE(activationBytesPerTokenLayer(nano.layer, 8192, fused), 2.0 * 2'688 / 2);

        // Qwen3.5-27B: every layer two sublayers; the 16 full-attention layers of 64 keep their attention's tensors,
        // the 48 Gated DeltaNet layers their own (101,600 bytes, tst_token_mixers).
        const ModelShape qwen = modelShapeOf(preset("qwen3.5-27b"));
        QCOMPARE(qwen.layer.recurrentSavedBytes, 48.0 / 64 * 101'600);
        // Its attention gates its output (24 heads of 256): the gate and the gated product are kept beside the
        // attention's output, 2 x 2 x 6,144 bytes on each of the 16 attention layers.
        QVERIFY(qwen.layer.attentionOutputGate);
        LayerShape ungated = qwen.layer;
        ungated.attentionOutputGate = false;
        QCOMPARE(activationBytesPerTokenLayer(qwen.layer, 8192, ActivationLayout {})
                - activationBytesPerTokenLayer(ungated, 8192, ActivationLayout {}),
            16.0 / 64 * 4 * 6'144);
    }

    // Latent MoE (Kimi K3): the experts read and write latent-wide vectors, so their weights and the all-to-all's
    // vectors are latent-wide; the experts' weights stay a part of the model's (they once exceeded it).
    void latentMoeShape()
    {
        const ModelSpec& m = preset("kimi-k3");
        QVERIFY(m.moe.latentDim > 0 && m.moe.latentDim < m.hidden);
        const ModelShape s = modelShapeOf(m);
        QCOMPARE(s.expertDispatchWidth, double(m.moe.latentDim));
        const double matrices = m.activation == FfnActivation::SwiGLU ? 3.0 : 2.0;
        const double experts = s.expertParamsPerLayer * m.layers;
        QCOMPARE(experts, double(moeLayerCount(m)) * m.moe.experts * matrices * m.moe.latentDim * m.moe.expertFfnDim);
        QVERIFY(experts < double(countParameters(m).total));
        QCOMPARE(modelShapeOf(preset("deepseek-v3")).expertDispatchWidth, double(preset("deepseek-v3").hidden));
    }

    // Token dropping pads every expert's buffer to its capacity: the routed FFN and the all-to-all grow with the
    // capacity factor (1.25 costs more than dropless routing's 1.10 imbalance, 1.0 less), and the MFU follows. The
    // padded buffers' size is known, so dropping spares the host synchronisation dropless routing pays; with the
    // same sync-free dispatch stated for both, the padding's own cost shows.
    void tokenDroppingPadsToCapacity()
    {
        Scenario s = bigCluster(preset("gpt-oss-120b"), 8192);
        QCOMPARE(s.parallelism.ep, 8);
        const auto at = [&](double capacityFactor, ExpertHostSync sync) {
            Scenario t = s;
            t.parallelism.expertCapacityFactor = capacityFactor;
            t.parallelism.expertHostSync = sync;
            return evaluate(t);
        };
        QVERIFY(at(0, ExpertHostSync::Auto).time.moeHostStall > 0);
        QCOMPARE(at(1.25, ExpertHostSync::Auto).time.moeHostStall, 0.0);
        const StepPrediction dropless = at(0, ExpertHostSync::None), padded = at(1.25, ExpertHostSync::None),
                             exact = at(1.0, ExpertHostSync::None);
        const auto a2a
            = [](const StepPrediction& p) { return p.commSeconds[static_cast<size_t>(CommKind::EpAllToAll)]; };
        QVERIFY(a2a(padded) > a2a(dropless) && a2a(dropless) > a2a(exact));
        // The all-to-all's bandwidth term scales with the buffer: at most the factors' ratio (latency does not grow).
        QVERIFY(a2a(padded) / a2a(dropless) <= 1.25 / 1.10 + 1e-12);
        QVERIFY(padded.time.matmul > dropless.time.matmul && dropless.time.matmul > exact.time.matmul);
        QVERIFY(padded.mfu < dropless.mfu && dropless.mfu < exact.mfu);
        // FLOP per token counts the routed experts' real work, not the padding.
        QCOMPARE(padded.flopsPerToken, dropless.flopsPerToken);
        // Below 1 or beyond 16 is not a capacity factor.
        Scenario bad = s;
        bad.parallelism.expertCapacityFactor = 0.5;
        QVERIFY(CostModel(bad).invalidReason(bad) != nullptr);
    }

    // A stated busiest-expert load replaces the model's 1.10 for dropless routing: the ModelZoo's forced/dropless
    // pairs imply about 1.5 for a router trained from scratch. The routed FFN and the all-to-all's buffer grow with
    // it, the FLOP count does not; it is refused where the router is forced to balance or pads to a capacity, and
    // outside [1, 16].
    void statedExpertLoadReplacesTheModelsOwn()
    {
        Scenario s = bigCluster(preset("gpt-oss-120b"), 8192);
        s.parallelism.expertHostSync = ExpertHostSync::None;
        const StepPrediction own = evaluate(s);
        s.parallelism.expertLoadImbalance = 1.10; // the model's own, stated
        const StepPrediction same = evaluate(s);
        QCOMPARE(same.stepTimeSeconds, own.stepTimeSeconds);
        s.parallelism.expertLoadImbalance = 1.5;
        const StepPrediction busy = evaluate(s);
        QVERIFY(busy.time.matmul > own.time.matmul);
        const auto a2a
            = [](const StepPrediction& p) { return p.commSeconds[static_cast<size_t>(CommKind::EpAllToAll)]; };
        QVERIFY(a2a(busy) > a2a(own) && a2a(busy) / a2a(own) <= 1.5 / 1.10 + 1e-12);
        QVERIFY(busy.mfu < own.mfu);
        QCOMPARE(busy.flopsPerToken, own.flopsPerToken);
        // The same load forced to balance or padded to a capacity contradicts itself; 0.9 or 20 is no load.
        for (const auto& change : std::vector<std::function<void(Scenario&)>> {
                 [](Scenario& t) { t.parallelism.expertBalance = ExpertBalance::Forced; },
                 [](Scenario& t) { t.parallelism.expertCapacityFactor = 1.25; },
                 [](Scenario& t) { t.parallelism.expertLoadImbalance = 0.9; },
                 [](Scenario& t) { t.parallelism.expertLoadImbalance = 20; } }) {
            Scenario bad = s;
            change(bad);
            QVERIFY(CostModel(bad).invalidReason(bad) != nullptr);
        }
    }

    // DeepSeek-V4-Pro: every layer sees the 128-token window plus its compressed keys, so the attention span stays
    // far below S/2 at a million tokens; the CSA indexer scores one key per 4 tokens.
    void deepSeekV4Shape()
    {
        const ModelSpec& m = preset("deepseek-v4-pro");
        const ModelShape s = modelShapeOf(m);
        const double S = 1 << 20;
        // 30 CSA layers (window + top 1,024 of S/4) and 31 HCA layers (window + S/256 causally).
        const double window = 128 - 128.0 * 128 / (2 * S);
        const double csa = window + 1024 - 1024.0 * 1024 / (2 * S / 4);
        const double hca = window + S / 256;
        QCOMPARE(s.causalAttentionSpan(S), (30 * csa + 31 * hca) / 61);
        QVERIFY(s.causalAttentionSpan(S) < S / 100);
        QCOMPARE(s.indexerFlopsPerKey, 30 * 2.0 * 64 * 129 / 4 / 61);
        // The prediction's FLOP per token is the per-component count (PaLM's over-count is not used for MFU here).
        Scenario sc = bigCluster(m, 65536);
        sc.mfuFormula = FlopFormula::PerComponentCausal;
        const StepPrediction p = evaluate(sc);
        QCOMPARE(p.flopsPerToken, *countFlopsPerToken(m, 65536).perComponentCausal);
    }
};

QTEST_GUILESS_MAIN(TestCostModelPresets)
#include "tst_costmodel_presets.moc"
