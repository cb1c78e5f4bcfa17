// The cost model's kernel laws against kernels measured on an H200 (bench/gpu/gemm_shape_laws.py and
// bench/gpu/attention_rates.py, PyTorch 2.11, 2026-11-30; the measurements are kept beside the scripts). Grouped GEMMs
// (torch._grouped_mm, forward and backward through autograd): the token factor follows the kernel for the experts of
// Qwen3-235B-A22B and DeepSeek-V3 from 32 to 2,048 tokens per expert, the whole time the width law charges is never
// less than the kernel took alone, and the GEMM term (the kernels' plateau share, the rest booked as routing work)
// lies at 0.65-1.02 of the kernel. Dense FP8 (torch._scaled_mm, one scale per tensor): what a
// narrow weight dimension costs it beyond what it costs BF16 follows fastFormatGemmHalfSaturationDim's law. Causal
// attention (scaled_dot_product_attention, FlashAttention 2 and cuDNN, Llama 3.1 8B's heads): the Hopper efficiencies
// lie within 13% of the kernels from 2k to 128k tokens.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/step_context.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

constexpr const char* kGemmShapes = MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-gemm-shape-laws.json";
constexpr const char* kAttention = MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-attention-rates.json";

nlohmann::json readMeasurement(const char* path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

const HardwareSpec& h200()
{
    return *test::shippedPresets().findHardware("h200");
}

struct ExpertShape {
    double hidden = 0, width = 0;
    std::map<int, double> tflops; // tokens per expert -> forward+backward TFLOP/s of the expert's two projections
};

// One expert MLP's rate: gate and up fused (2 x width outputs) and down (width inputs) do 2 : 1 of its FLOPs.
std::map<std::string, ExpertShape> measuredExperts()
{
    const nlohmann::json j = readMeasurement(kGemmShapes);
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

// The constants a scenario on the H200 preset runs with: its preset's, else the Hopper defaults.
CostModelConstants h200Constants()
{
    return test::shippedPresets().costModelFor("h200").value_or(defaultCostModelConstants(h200()));
}

// The H200's context as the cost model builds it, for one expert of `width` whose GEMMs see `tokens` tokens.
struct H200Expert {
    CostModelConstants constants;
    Scenario scenario;
    ModelShape shape;
    StepContext x;
    H200Expert(double hidden, double width, double tokens)
    {
        constants = h200Constants();
        shape.experts = 1;
        shape.expertsPerToken = 1;
        shape.ffnWidth = width;
        shape.expertDispatchWidth = hidden;
        x.scenario = &scenario;
        x.shape = &shape;
        x.constants = &constants;
        x.peakBf16 = h200().densePeak(NumberFormat::BF16).value_or(0.0);
        x.hbmBytesPerSec = h200().hbmBandwidthBytesPerSec * constants.hbmEfficiency;
        x.moeTokensPerMicroBatch = tokens;
    }
};

} // namespace

class TestKernelsH200 : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!std::ifstream(kGemmShapes))
            QFAIL("the H200 measurement bench/gpu/h200-2026-11-30-gemm-shape-laws.json is missing");
        if (!std::ifstream(kAttention))
            QFAIL("the H200 measurement bench/gpu/h200-2026-11-30-attention-rates.json is missing");
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

    void gemmTermRunsAtTheKernelsRate()
    {
        // The GEMM term alone (the kernels' plateau share x the token factor; the rest of the width law's time is
        // booked as routing work) lies at 0.65-1.02 of what the kernel ran at, 16 to 8,192 tokens per expert. The
        // exception: Qwen3-30B-A3B's 768-wide experts below 4,096 tokens, whose weights stream slower than the token
        // law's ridge of 305 says (about 930); there the GEMM term reads 1.05x the kernel at 2,048 tokens and up to
        // 3x at 16-128, and the law's whole time (above) still covers it from 256 tokens.
        int checked = 0;
        double lowest = 2, highest = 0;
        for (const auto& [name, e] : measuredExperts()) {
            for (const auto& [tokens, rate] : e.tflops) {
                if (name == "qwen3-30b-a3b" && tokens < 4096)
                    continue;
                H200Expert h(e.hidden, e.width, tokens);
                const double model = h.x.peakBf16 * h.constants.gemmEfficiency * groupedGemmKernelFactor(h.x) / 1e12;
                lowest = std::min(lowest, model / rate);
                highest = std::max(highest, model / rate);
                const QByteArray where = QByteArray(name.c_str()) + " at " + QByteArray::number(tokens)
                    + " tokens: GEMM term " + QByteArray::number(model) + " TFLOP/s, kernel "
                    + QByteArray::number(rate);
                QVERIFY2(model <= rate * 1.02 && model >= rate * 0.65, where.constData());
                // Never faster than the law's whole time: the routing work is what lies between them.
                QVERIFY2(groupedGemmKernelFactor(h.x) >= groupedGemmShapeFactor(h.x), where.constData());
                ++checked;
            }
        }
        QCOMPARE(checked, 42);
        qInfo("GEMM term over kernel: %.2f-%.2f", lowest, highest);
    }

    void fp8LosesMoreToNarrowLayersAsTheKernelDoes()
    {
        const nlohmann::json j = readMeasurement(kGemmShapes);
        // Each layout's rate over its three GEMMs (forward, input gradient, weight gradient), per format.
        std::map<std::string, std::map<std::string, std::pair<double, double>>> sums; // label -> format -> flops, s
        for (const auto& r : j.at("dense")) {
            const double flops
                = 2.0 * r.at("rows").get<double>() * r.at("inner").get<double>() * r.at("cols").get<double>();
            for (const char* f : { "bf16", "fp8_tensorwise" }) {
                auto& [fl, sec] = sums[r.at("label").get<std::string>()][f];
                fl += flops;
                sec += flops / (r.at(std::string(f) + "_tflops").get<double>() * 1e12);
            }
        }
        const auto rate = [&](const std::string& label, const char* f) {
            const auto& [fl, sec] = sums.at(label).at(f);
            return fl / sec;
        };
        H200Expert h(8192, 8192, 8192); // the H200's context; only the dense law is read here
        h.x.fp8 = true;
        h.x.peakFp8 = h200().densePeak(NumberFormat::FP8).value_or(0.0);
        const double fp8Peak = linearGemmPeak(h.x);
        int checked = 0;
        for (const char* side : { "narrow-N ", "narrow-K " }) {
            const double bf16Plateau = rate(std::string(side) + "8192", "bf16");
            const double fp8Plateau = rate(std::string(side) + "8192", "fp8_tensorwise");
            for (int d : { 128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096 }) {
                const std::string label = side + std::to_string(d);
                const double kernel
                    = (rate(label, "fp8_tensorwise") / fp8Plateau) / (rate(label, "bf16") / bf16Plateau);
                const double law = linearShapeFactor(d, h.x, fp8Peak) / gemmShapeFactor(d, h.constants);
                const QByteArray where = QByteArray(label.c_str()) + ": law " + QByteArray::number(law) + ", kernel "
                    + QByteArray::number(kernel);
                // Within 0.03 where the law was read off (256-1,024); never kinder than the kernel by more.
                if (d >= 256 && d <= 1024)
                    QVERIFY2(std::abs(law - kernel) <= 0.03, where.constData());
                QVERIFY2(law <= kernel + 0.03, where.constData());
                ++checked;
            }
        }
        QCOMPARE(checked, 20);
    }

    void attentionOnHopperWithinTheKernels()
    {
        // The model's forward and backward efficiencies (fractions of the BF16 peak; backward against twice the
        // forward FLOPs, as the script quotes it) for the kernel each backend runs, at head dimension 128. The
        // backward keeps rising past 8k in the kernels (FlashAttention 2: 0.228 at 8k, 0.257 at 64k) where the model's
        // one sequence half-saturation has flattened: it reads 10-12% under them from 32k (docs/cost-model.md,
        // "Kernels measured on an H200").
        const CostModelConstants constants = h200Constants();
        const double peak = h200().densePeak(NumberFormat::BF16).value_or(0.0) / 1e12;
        QVERIFY(peak > 0);
        const nlohmann::json j = readMeasurement(kAttention);
        int checked = 0;
        for (const auto& r : j.at("attention")) {
            if (r.contains("error"))
                continue; // the memory-efficient backend refuses grouped-query heads
            const std::string backend = r.at("backend").get<std::string>();
            const AttentionKernel kernel
                = backend == "CUDNN_ATTENTION" ? AttentionKernel::Cudnn : AttentionKernel::FlashAttention2;
            const double seq = r.at("seq").get<double>();
            const AttentionEfficiency e = attentionEfficiency(constants, kernel, AcceleratorFamily::Hopper, 128, seq);
            const double forward = r.at("forward_tflops").get<double>() / peak;
            const double backward = r.at("backward_tflops_at_2x").get<double>() / peak;
            const QByteArray where = QByteArray(backend.c_str()) + " at " + QByteArray::number(seq) + ": model "
                + QByteArray::number(e.forward) + " / " + QByteArray::number(e.backward) + ", kernel "
                + QByteArray::number(forward) + " / " + QByteArray::number(backward);
            QVERIFY2(std::abs(e.forward / forward - 1.0) <= 0.13, where.constData());
            QVERIFY2(std::abs(e.backward / backward - 1.0) <= 0.13, where.constData());
            ++checked;
        }
        QCOMPARE(checked, 14);
    }
};

QTEST_APPLESS_MAIN(TestKernelsH200)
#include "tst_kernels_h200.moc"
