// Nothing above physics (core/costmodel/physical_bounds.h): every shipped model preset, from 2k to 1M tokens, on
// 1,024 GPUs of every GPU generation the presets ship, in BF16 and BF16+FP8 (its weights cached per step), is either
// predicted at or below 100% MFU and HFU and at or below the dense peak of its precision (its error band too), or
// refused with the reason. And the refusals that must happen: PaLM's full attention charged to gpt-oss's sliding-window
// layers at long sequences.
#include <QtTest>

#include <string>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/physical_bounds.h"
#include "core/errors.h"
#include "costmodel_fixtures.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

// One GPU of each generation and vendor the presets ship: Volta, Ampere, Hopper, Blackwell (HGX and NVL72), AMD
// CDNA 3 and 4, TPU.
constexpr const char* kGenerations[]
    = { "v100-sxm2-32gb", "a100-sxm-80gb", "h100-sxm", "b200", "gb300", "mi300x", "mi355x", "tpu-v5p" };

} // namespace

class TestPhysicalBounds : public QObject {
    Q_OBJECT
private slots:
    void everyPresetAtEveryLengthStaysWithinPhysics()
    {
        const auto& presets = test::shippedPresets();
        int predicted = 0, refused = 0, aboveBf16Peak = 0;
        for (const ModelSpec& model : presets.models()) {
            if (model.isBare())
                continue; // the cost model needs an architecture
            for (const char* gpu : kGenerations) {
                const HardwareSpec* hw = presets.findHardware(gpu);
                QVERIFY2(hw, gpu);
                for (TrainingPrecision precision : { TrainingPrecision::BF16, TrainingPrecision::BF16_FP8 }) {
                    if (precision == TrainingPrecision::BF16_FP8 && !hw->densePeak(NumberFormat::FP8))
                        continue;
                    for (int64_t seq = 2048; seq <= (int64_t(1) << 20); seq *= 2) {
                        Scenario s = test::scenarioFor(model, gpu, 1024, seq);
                        s.costModel = presets.costModelFor(gpu);
                        s.precision = precision;
                        // The FP8 runs cache their quantised weights over 4 micro-batches a step (fewer casts: the
                        // faster of the two ways).
                        if (precision == TrainingPrecision::BF16_FP8) {
                            s.flags.quantizedWeightCache = true;
                            s.workload.globalBatchTokens = 4 * 1024 * seq;
                        }
                        const std::string where = model.id + " on " + gpu + " at " + std::to_string(seq) + " ("
                            + std::string(trainingPrecisionKey(precision)) + ")";
                        try {
                            const StepPrediction p = evaluate(s);
                            ++predicted;
                            const double peak = precisionPeakFlops(*hw, precision);
                            // 100% for BF16; an FP8 run's linear layers may pass the BF16 peak, up to FP8's.
                            const double ceiling = utilisationCeiling(*hw, precision) * (1 + 1e-9);
                            QVERIFY2(p.mfu <= ceiling && p.hfu <= ceiling, where.c_str());
                            if (p.mfu > 1.0)
                                ++aboveBf16Peak;
                            QVERIFY2(p.tflopsPerGpu * 1e12 <= peak * (1 + 1e-9), where.c_str());
                            const ErrorBand band = errorBandFor(s, p, ErrorBandModel {});
                            QVERIFY2(band.mfuHigh <= ceiling && band.hfuHigh <= ceiling, where.c_str());
                            QVERIFY2(band.tflopsPerGpuHigh * 1e12 <= peak * (1 + 1e-9), where.c_str());
                        } catch (const InputError& e) {
                            // Refused, not printed: with the reason, which names what to count with.
                            const std::string why = e.what();
                            QVERIFY2(why.find("no prediction") != std::string::npos
                                    || why.find("cost model:") != std::string::npos,
                                (where + ": " + why).c_str());
                            if (why.find("no prediction") != std::string::npos)
                                ++refused;
                        }
                    }
                }
            }
        }
        // Most predictions are made; the refusals are the masked half of causal attention at very long sequences.
        QVERIFY2(predicted > 10 * refused,
            qPrintable(QStringLiteral("%1 predicted, %2 refused").arg(predicted).arg(refused)));
        qInfo("%d predictions within physics (%d FP8 ones above the BF16 peak), %d refused", predicted, aboveBf16Peak,
            refused);
    }

    void palmOnSlidingWindowLayersIsRefusedWithTheReason()
    {
        // gpt-oss-120b at 128k: half its layers attend 128 keys; PaLM charges them 131,072. On a B200 the step the
        // cost model times runs them far faster than PaLM's count could allow: refused, naming per_layer.
        Scenario s = test::scenarioFor(*test::shippedPresets().findModel("gpt-oss-120b"), "b200", 1024, 131072);
        s.mfuFormula = FlopFormula::PaLM;
        const StepPrediction raw = CostModel(s).evaluateValid(s);
        if (!isBeyondPhysics(raw, s))
            QSKIP("PaLM's count stays under the peak for this scenario");
        try {
            evaluate(s);
            QFAIL("a prediction beyond physics was printed");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("per_layer") != std::string::npos, e.what());
        }
        // The same scenario counted per layer is a prediction.
        s.mfuFormula = FlopFormula::PerLayer;
        const StepPrediction p = evaluate(s);
        QVERIFY(p.mfu > 0 && p.mfu <= 1.0);
    }

    void reasonOfAFullAttentionModelNamesTheCausalHalf()
    {
        // A model whose every layer attends the whole sequence: per_layer is PaLM; what exceeds the peak is the
        // masked half, so the reason points at per_component_causal.
        StepPrediction p;
        p.mfu = 1.2;
        p.hfu = 1.2;
        p.tflopsPerGpu = 100;
        p.flopsPerToken = 1e12;
        const Scenario s = test::scenarioFor(test::llama31_8b(), "a100-sxm-80gb", 8, 1 << 20);
        const auto why = beyondPhysics(p, s);
        QVERIFY(why);
        QVERIFY2(why->find("per_component_causal") != std::string::npos, why->c_str());
        QVERIFY2(why->find("MFU 120.00%") != std::string::npos, why->c_str());
    }
};

QTEST_GUILESS_MAIN(TestPhysicalBounds)
#include "tst_physical_bounds.moc"
