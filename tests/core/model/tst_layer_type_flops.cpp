// Forward FLOP per token by layer type (core/model/layer_type_flops.h): the rows of the Calculator's component table
// and of `calc --json`'s forward_flops_by_layer_type. Each row is derived by hand for a small hybrid model, and the
// rows must add up to the per-component forward total (full square and causal).
#include <QtTest>

#include "core/errors.h"
#include "core/model/layer_type_flops.h"

using namespace mfu;

namespace {

// Three Gated DeltaNet layers and one full-attention layer, each with a dense SwiGLU MLP (Qwen3.5's 3:1 layout in
// miniature): h = 256, 4 heads of 64 with 2 key/value heads, MLP 512, vocabulary 1000.
ModelSpec hybrid()
{
    ModelSpec m;
    m.id = "hybrid";
    m.layers = 4;
    m.hidden = 256;
    m.heads = 4;
    m.kvHeads = 2;
    m.headDim = 64;
    m.ffnDim = 512;
    m.vocab = 1000;
    m.linearAttention = GatedDeltaNetSpec { 2, 4, 32, 32, 4 };
    m.layerPattern = { { 3, { TokenMixer::LinearAttention, ChannelMixer::DenseMlp, 0 } },
        { 1, { TokenMixer::FullAttention, ChannelMixer::DenseMlp, 0 } } };
    return m;
}

double sum(const std::vector<LayerTypeFlops>& rows, bool causal)
{
    double total = 0;
    for (const auto& r : rows)
        total += causal ? r.forwardCausal : r.forward;
    return total;
}

} // namespace

class TestLayerTypeFlops : public QObject {
    Q_OBJECT
private slots:
    void hybridRows()
    {
        const ModelSpec m = hybrid();
        const auto rows = forwardFlopsByLayerType(m, 1024);
        QCOMPARE(int(rows.size()), 4);
        QCOMPARE(QString::fromStdString(rows[0].label), QStringLiteral("3 linear-attention layers"));
        QCOMPARE(rows[0].kind, std::string("linear_attention"));
        QCOMPARE(rows[0].part, LayerPart::TokenMixer);
        QCOMPARE(rows[0].layers, 3);
        // Gated DeltaNet, K = 2 key heads and V = 4 value heads of 32: in_proj 2h(2.K.dk + 2.V.dv + 2V), the state
        // 7.V.dk.dv, out_proj 2.V.dv.h; the same with or without the causal mask.
        const double gdn = 2.0 * 256 * (2 * 64 + 2 * 128 + 8) + 7.0 * 4 * 32 * 32 + 2.0 * 128 * 256;
        QCOMPARE(rows[0].forward, 3 * gdn);
        QCOMPARE(rows[0].forwardCausal, 3 * gdn);
        QCOMPARE(QString::fromStdString(rows[1].label), QStringLiteral("1 full-attention layer"));
        // Q/K/V 2h(4 x 64 + 2 x 2 x 64), output 2 x 256 x 256, scores and values 2 S H Q each (causal: half).
        const double projections = 2.0 * 256 * (256 + 256) + 2.0 * 256 * 256;
        QCOMPARE(rows[1].forward, projections + 2 * (2.0 * 1024 * 4 * 64));
        QCOMPARE(rows[1].forwardCausal, projections + 2 * (2.0 * 512 * 4 * 64));
        QCOMPARE(QString::fromStdString(rows[2].label), QStringLiteral("4 dense MLPs"));
        QCOMPARE(rows[2].part, LayerPart::ChannelMixer);
        QCOMPARE(rows[2].forward, 4 * 2.0 * 3 * 256 * 512);
        QCOMPARE(QString::fromStdString(rows[3].label), QStringLiteral("LM head"));
        QCOMPARE(rows[3].forward, 2.0 * 256 * 1000);
        QCOMPARE(rows[3].layers, 0);

        const ForwardComponents f = forwardComponents(m, 1024);
        QCOMPARE(sum(rows, false), f.total());
        QCOMPARE(
            sum(rows, true), f.total() - f.attentionCore() + f.attentionCoreCausal - f.mixerCore + f.mixerCoreCausal);
    }

    // Layers of their own MLP widths and attention shapes are told apart in the labels; layers without attention get
    // a row of their own with no FLOPs.
    void shapesAndWidths()
    {
        ModelSpec m = hybrid();
        m.layerPattern = { { 2, { TokenMixer::FullAttention, ChannelMixer::DenseMlp, 0 } },
            { 1, { TokenMixer::None, ChannelMixer::DenseMlp, 768 } },
            { 1, { TokenMixer::FullAttention, ChannelMixer::None, 0, AttentionShape { 1, 128, 0, true } } } };
        const auto rows = forwardFlopsByLayerType(m, 2048);
        QStringList labels;
        for (const auto& r : rows)
            labels << QString::fromStdString(r.label);
        QCOMPARE(labels,
            QStringList({ QStringLiteral("2 full-attention layers (4 heads of 64, 2 KV)"),
                QStringLiteral("1 layer without attention"),
                QStringLiteral("1 full-attention layer (4 heads of 128, 1 KV, V = K)"),
                QStringLiteral("2 dense MLPs of 512"), QStringLiteral("1 dense MLP of 768"),
                QStringLiteral("1 layer without an MLP"), QStringLiteral("LM head") }));
        QCOMPARE(rows[1].forward, 0.0);
        // The wide layer: Q 2 x 256 x 512, K 2 x 256 x 128 (V = K: no v_proj), output 2 x 512 x 256, scores and
        // values over 2,048 keys of 4 x 128.
        QCOMPARE(rows[2].forward, 2.0 * 256 * 512 + 2.0 * 256 * 128 + 2.0 * 512 * 256 + 2 * (2.0 * 2048 * 4 * 128));
        QCOMPARE(sum(rows, false), forwardComponents(m, 2048).total());
    }

    void bareAndInvalid()
    {
        QVERIFY(forwardFlopsByLayerType(bareModel(7'000'000'000), 4096).empty());
        QVERIFY_THROWS_EXCEPTION(InputError, forwardFlopsByLayerType(hybrid(), 0));
    }
};

QTEST_GUILESS_MAIN(TestLayerTypeFlops)
#include "tst_layer_type_flops.moc"
