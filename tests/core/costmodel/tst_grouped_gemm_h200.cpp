// The grouped-GEMM law against kernels measured on an H200 (bench/gpu/gemm_shape_laws.py, PyTorch 2.11's
// torch._grouped_mm, forward and backward through autograd, 2026-11-30; the measurement is kept beside the script).
// The token factor follows the kernel for the experts of Qwen3-235B-A22B and DeepSeek-V3 from 32 to 2,048 tokens per
// expert, and the whole grouped-GEMM rate the model charges is never above what the kernel reached alone.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/step_context.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

constexpr const char* kMeasurement = MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-gemm-shape-laws.json";

struct ExpertShape {
    double hidden = 0, width = 0;
    std::map<int, double> tflops; // tokens per expert -> forward+backward TFLOP/s of the expert's two projections
};

// One expert MLP's rate: gate and up fused (2 x width outputs) and down (width inputs) do 2 : 1 of its FLOPs.
std::map<std::string, ExpertShape> measuredExperts()
{
    std::ifstream in(kMeasurement);
    const nlohmann::json j = nlohmann::json::parse(in);
    std::map<std::string, ExpertShape> out;
    for (const auto& r : j.at("grouped")) {
        ExpertShape& e = out[r.at("label").get<std::string>()];
        e.hidden = r.at("hidden").get<double>();
        e.width = r.at("ffn").get<double>();
        const double up = r.at("gate+up_fwd_bwd_tflops").get<double>(),
                     down = r.at("down_fwd_bwd_tflops").get<double>();
        e.tflops[r.at("tokens_per_expert").get<int>()] = 3.0 / (2.0 / up + 1.0 / down);
    }
    return out;
}

// The H200's context as the cost model builds it, for one expert of `width` whose GEMMs see `tokens` tokens.
struct H200Expert {
    CostModelConstants constants;
    Scenario scenario;
    ModelShape shape;
    StepContext x;
    H200Expert(double hidden, double width, double tokens)
    {
        const PresetLibrary& presets = test::shippedPresets();
        const HardwareSpec* hw = presets.findHardware("h200");
        if (const auto c = presets.costModelFor("h200"))
            constants = *c;
        shape.experts = 1;
        shape.expertsPerToken = 1;
        shape.ffnWidth = width;
        shape.expertDispatchWidth = hidden;
        x.scenario = &scenario;
        x.shape = &shape;
        x.constants = &constants;
        x.peakBf16 = hw->densePeak(NumberFormat::BF16).value_or(0.0);
        x.hbmBytesPerSec = hw->hbmBandwidthBytesPerSec * constants.hbmEfficiency;
        x.moeTokensPerMicroBatch = tokens;
    }
};

} // namespace

class TestGroupedGemmH200 : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!std::ifstream(kMeasurement))
            QFAIL("the H200 measurement bench/gpu/h200-2026-11-30-gemm-shape-laws.json is missing");
    }

    void tokenFactorFollowsTheKernel()
    {
        const auto experts = measuredExperts();
        for (const char* name : { "qwen3-235b-a22b", "deepseek-v3" }) {
            const ExpertShape& e = experts.at(name);
            // The plateau: the mean of the two largest token counts (4,096 and 8,192 per expert).
            const double plateau = (e.tflops.at(4096) + e.tflops.at(8192)) / 2.0;
            for (const auto& [tokens, rate] : e.tflops) {
                if (tokens < 32 || tokens > 2048)
                    continue;
                H200Expert h(e.hidden, e.width, tokens);
                const double law = groupedGemmTokenFactor(h.x, tokens);
                const QByteArray where = QByteArray(name) + " at " + QByteArray::number(tokens) + " tokens: law "
                    + QByteArray::number(law) + ", kernel " + QByteArray::number(rate / plateau);
                QVERIFY2(std::abs(law - rate / plateau) <= 0.03, where.constData());
            }
        }
    }

    void neverFasterThanTheKernelAlone()
    {
        // Widths 768 to 16,384 and 16 to 8,192 tokens per expert: the model's grouped-GEMM rate (the BF16 peak x
        // gemmEfficiency x the width and token factors) stays at or below what the kernel ran at with nothing else on
        // the GPU. The width law is fitted on whole training steps, so it sits well below at large token counts
        // (permutation, padding and scheduling around the GEMMs, which an isolated kernel does not pay).
        // One exception, kept in sight: Qwen3-30B-A3B's 768-wide experts at hidden 2,048 stream their small weights
        // slower than the wider ones (the kernel's ridge is about 930 tokens, not 300), so below 256 tokens per expert
        // the model reads up to 1.4x the kernel (docs/cost-model.md, "Grouped GEMMs").
        int checked = 0;
        double narrowWorst = 0;
        for (const auto& [name, e] : measuredExperts()) {
            for (const auto& [tokens, rate] : e.tflops) {
                H200Expert h(e.hidden, e.width, tokens);
                const double model = h.x.peakBf16 * h.constants.gemmEfficiency * groupedGemmShapeFactor(h.x) / 1e12;
                if (name == "qwen3-30b-a3b" && tokens < 256) {
                    narrowWorst = std::max(narrowWorst, model / rate);
                    continue;
                }
                const QByteArray where = QByteArray(name.c_str()) + " at " + QByteArray::number(tokens)
                    + " tokens: model " + QByteArray::number(model) + " TFLOP/s, kernel " + QByteArray::number(rate);
                QVERIFY2(model <= rate * 1.02, where.constData());
                ++checked;
            }
        }
        QCOMPARE(checked, 46);
        QVERIFY2(narrowWorst > 1.0 && narrowWorst < 1.45, QByteArray::number(narrowWorst).constData());
    }
};

QTEST_APPLESS_MAIN(TestGroupedGemmH200)
#include "tst_grouped_gemm_h200.moc"
