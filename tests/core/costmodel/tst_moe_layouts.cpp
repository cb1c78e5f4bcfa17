// MoE layouts through the cost model end to end: every shipped MoE preset, from 2k to 1M tokens, on 1,024 GPUs of every
// GPU generation, under folded expert parallelism inside a node and across nodes, expert TP, each dispatcher and an
// uneven pipeline, is predicted within physics (MFU and HFU at most 100%, TFLOPS at most the dense peak) or refused
// with the reason; and the trends the MoE terms must show, each against the term that causes it.
#include <QtTest>

#include <string>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/physical_bounds.h"
#include "core/errors.h"
#include "core/scenario/pipeline_layout.h"
#include "costmodel_fixtures.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

constexpr const char* kGenerations[]
    = { "v100-sxm2-32gb", "a100-sxm-80gb", "h100-sxm", "b200", "gb300", "mi300x", "mi355x", "tpu-v5p" };

struct Layout {
    const char* name;
    int tp, pp, ep, expertTp;
    ExpertDispatcher dispatcher;
    ExpertOverlap overlap;
    bool unevenStages;
};

constexpr Layout kLayouts[] = {
    { "EP 8 folded", 1, 1, 8, 0, ExpertDispatcher::AllToAll, ExpertOverlap::None, false },
    { "TP 2 x EP 8 folded, DeepEP", 2, 1, 8, 1, ExpertDispatcher::DeepEp, ExpertOverlap::OneFOneB, false },
    { "TP 2 x PP 4 x EP 64 across nodes, DualPipe", 2, 4, 64, 1, ExpertDispatcher::DeepEp, ExpertOverlap::DualPipe,
        true },
    { "TP 4 x EP 8 x expert TP 4, all-gather", 4, 2, 8, 4, ExpertDispatcher::AllGather, ExpertOverlap::None, false },
};

Scenario moeScenario(const ModelSpec& model, const char* gpu, int64_t seq, const Layout& l)
{
    Scenario s = test::scenarioFor(model, gpu, 1024, seq, l.tp, ActivationCheckpointing::Full);
    s.costModel = test::shippedPresets().costModelFor(gpu);
    s.parallelism.pp = l.pp;
    s.parallelism.ep = l.ep;
    s.parallelism.expertTp = l.expertTp;
    s.parallelism.expertDispatcher = l.dispatcher;
    s.parallelism.expertOverlap = l.overlap;
    s.parallelism.embeddingStage = l.unevenStages;
    s.parallelism.lossStage = l.unevenStages;
    s.parallelism.dataParallel = DataParallelKind::Zero1;
    s.workload.globalBatchTokens = 16 * 1024 * 1024;
    return s;
}

Scenario qwen3On8B200(ExpertDispatcher dispatcher)
{
    Scenario s = test::scenarioFor(
        *test::shippedPresets().findModel("qwen3-30b-a3b"), "b200", 8, 4096, 1, ActivationCheckpointing::Full, 1, 8);
    s.parallelism.ep = 8;
    s.parallelism.expertDispatcher = dispatcher;
    s.parallelism.expertBalance = ExpertBalance::Forced;
    return s;
}

} // namespace

class TestMoeLayouts : public QObject {
    Q_OBJECT
private slots:
    void everyMoePresetAtEveryLengthStaysWithinPhysics()
    {
        const auto& presets = test::shippedPresets();
        int predicted = 0, refused = 0, invalid = 0;
        for (const ModelSpec& model : presets.models()) {
            if (model.isBare() || !model.isMoe())
                continue;
            for (const char* gpu : kGenerations) {
                const HardwareSpec* hw = presets.findHardware(gpu);
                QVERIFY2(hw, gpu);
                for (const Layout& l : kLayouts)
                    for (TrainingPrecision precision : { TrainingPrecision::BF16, TrainingPrecision::BF16_FP8 }) {
                        if (precision == TrainingPrecision::BF16_FP8 && !hw->densePeak(NumberFormat::FP8))
                            continue;
                        for (int64_t seq = 2048; seq <= (int64_t(1) << 20); seq *= 2) {
                            Scenario s = moeScenario(model, gpu, seq, l);
                            s.precision = precision;
                            const std::string where
                                = model.id + " on " + gpu + ", " + l.name + ", " + std::to_string(seq) + " tokens";
                            const CostModel cm(s);
                            if (cm.invalidReason(s)) {
                                ++invalid; // a layout this model cannot take (EP not dividing the experts, ...)
                                continue;
                            }
                            const StepPrediction raw = cm.evaluateValid(s);
                            QVERIFY2(raw.stepTimeSeconds > 0 && std::isfinite(raw.stepTimeSeconds), where.c_str());
                            QVERIFY2(raw.memory.total() > 0 && std::isfinite(raw.memory.total()), where.c_str());
                            try {
                                const StepPrediction p = cm.evaluate(s);
                                ++predicted;
                                QVERIFY2(p.mfu <= 1.0 && p.hfu <= 1.0, where.c_str());
                                QVERIFY2(p.tflopsPerGpu * 1e12 <= precisionPeakFlops(*hw, precision) * (1 + 1e-9),
                                    where.c_str());
                            } catch (const InputError& e) {
                                ++refused;
                                QVERIFY2(isBeyondPhysics(raw, s), (where + ": " + e.what()).c_str());
                            }
                        }
                    }
            }
        }
        QVERIFY2(predicted > 1000 && predicted > 10 * refused,
            qPrintable(
                QStringLiteral("%1 predicted, %2 refused, %3 invalid").arg(predicted).arg(refused).arg(invalid)));
        qInfo("%d MoE predictions within physics, %d refused, %d layouts invalid for their model", predicted, refused,
            invalid);
    }

    // The physics of the MoE terms, each compared on one scenario with the term's lever pulled and released.
    void dispatchersAndOverlapMoveTheStepTheRightWay()
    {
        // TorchTitan's Qwen3-30B-A3B on 8 B200 (its DeepEP README): DeepEP beats NCCL's all-to-all (measured 1.49x).
        const StepPrediction a2a = evaluate(qwen3On8B200(ExpertDispatcher::AllToAll));
        const StepPrediction deepep = evaluate(qwen3On8B200(ExpertDispatcher::DeepEp));
        QVERIFY(deepep.tokensPerSecPerGpu > 1.1 * a2a.tokensPerSecPerGpu);
        QVERIFY(deepep.fits && a2a.fits);
        // Full checkpointing repeats the dispatch: more all-to-all than selective.
        Scenario selective = qwen3On8B200(ExpertDispatcher::DeepEp);
        selective.activationCheckpointing = ActivationCheckpointing::Selective;
        QVERIFY(evaluate(selective).commSeconds[size_t(CommKind::EpAllToAll)]
            < deepep.commSeconds[size_t(CommKind::EpAllToAll)]);
        // Forced balance runs at the mean, dropless at the busiest expert.
        Scenario dropless = qwen3On8B200(ExpertDispatcher::DeepEp);
        dropless.parallelism.expertBalance = ExpertBalance::Dropless;
        QVERIFY(evaluate(dropless).tokensPerSecPerGpu < deepep.tokensPerSecPerGpu);
        // Overlap hides the all-to-all: DualPipe more than Megatron's 1F1B, both more than none.
        Scenario overlap = qwen3On8B200(ExpertDispatcher::AllToAll);
        overlap.parallelism.expertOverlap = ExpertOverlap::OneFOneB;
        const double oneF = evaluate(overlap).time.comm(CommKind::EpAllToAll);
        overlap.parallelism.expertOverlap = ExpertOverlap::DualPipe;
        const double dual = evaluate(overlap).time.comm(CommKind::EpAllToAll);
        QVERIFY(dual < oneF && oneF < a2a.time.comm(CommKind::EpAllToAll));
    }

    // Fine-grained experts run further below dense efficiency, the more so on faster tensor cores: Mixtral 8x22B's
    // 16,384-wide experts against its G8T8 variant's 2,048-wide ones (MoE Parallel Folding measured 49.3% and 28.8%).
    void smallExpertsRunSlower()
    {
        ModelSpec mixtral = *test::shippedPresets().findModel("mixtral-8x22b");
        ModelSpec g8t8 = mixtral;
        g8t8.moe.experts = 64;
        g8t8.moe.expertsPerToken = 8;
        g8t8.moe.expertFfnDim = 2048;
        const auto mfuOf = [](const ModelSpec& m, const char* gpu) {
            Scenario s = test::scenarioFor(m, gpu, 128, 4096, 2);
            s.parallelism.pp = 8;
            s.parallelism.virtualStages = 7;
            s.parallelism.ep = 8;
            s.parallelism.dataParallel = DataParallelKind::Zero1;
            s.workload.globalBatchTokens = 1 << 20;
            return evaluate(s).mfu;
        };
        QVERIFY(mfuOf(g8t8, "h100-sxm") < 0.8 * mfuOf(mixtral, "h100-sxm"));
        QVERIFY(mfuOf(g8t8, "b200") / mfuOf(mixtral, "b200") < mfuOf(g8t8, "h100-sxm") / mfuOf(mixtral, "h100-sxm"));
    }

    // Expert parallelism across nodes pays the NICs; inside a node NVLink. Folding EP over TP keeps an EP 8 group in a
    // node where Megatron's default expert TP = TP 2 spreads it over two.
    void foldingKeepsTheExpertGroupInsideANode()
    {
        Scenario s = test::scenarioFor(*test::shippedPresets().findModel("mixtral-8x22b"), "h100-sxm", 128, 4096, 2);
        s.parallelism.pp = 8;
        s.parallelism.ep = 8;
        s.parallelism.dataParallel = DataParallelKind::Zero1;
        s.workload.globalBatchTokens = 1 << 20;
        const StepPrediction folded = evaluate(s);
        s.parallelism.expertTp = 2;
        const StepPrediction unfolded = evaluate(s);
        QVERIFY(folded.tokensPerSecPerGpu > unfolded.tokensPerSecPerGpu);
        QVERIFY(folded.commSeconds[size_t(CommKind::EpAllToAll)] < unfolded.commSeconds[size_t(CommKind::EpAllToAll)]);
    }

    // An uneven layout that takes the loss off the busiest stage is faster than the even split it replaces, and the
    // embedding and loss in the split let Qwen3-235B's 94 layers run on PP 32 x VPP 3 at all.
    // Kimi K2's 384 experts on EP 256: the refusal names both (issue 35), in the window (invalidReasonText) and the
    // CLI's error (evaluate's InputError) alike; invalidReason keeps the static sentence for the planner's loop.
    void refusalsCarryTheirFigures()
    {
        const ModelSpec* kimi = test::shippedPresets().findModel("kimi-k2.5");
        QVERIFY(kimi);
        QCOMPARE(kimi->moe.experts, 384);
        Scenario s = test::scenarioFor(*kimi, "h100-sxm", 1024, 4096, 8);
        s.parallelism.ep = 256;
        const CostModel model(s);
        QCOMPARE(QString::fromUtf8(model.invalidReason(s)), QStringLiteral("ep must divide the number of experts"));
        QCOMPARE(QString::fromStdString(model.invalidReasonText(s).value_or("")),
            QStringLiteral("ep must divide the number of experts (ep 256, 384 experts)"));
        try {
            model.evaluate(s);
            QFAIL("EP 256 of 384 experts was evaluated");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("(ep 256, 384 experts)"), e.what());
        }
        s.parallelism.ep = 8;
        s.parallelism.pp = 4;
        s.parallelism.pipelineLayout = parsePipelineLayout("Et*16|t*16|t*16|t*14L"); // 62 of Kimi K2's 61 layers
        QCOMPARE(QString::fromStdString(model.invalidReasonText(s).value_or("")),
            QStringLiteral("the pipeline layout's transformer layers ('t') must add up to the model's layers (they "
                           "add up to 62 of 61)"));
        s.parallelism.pipelineLayout.clear();
        QVERIFY(!model.invalidReasonText(s));
    }

    void unevenStagesBalanceThePipeline()
    {
        Scenario s = test::scenarioFor(*test::shippedPresets().findModel("qwen3-235b-a22b"), "h100-sxm", 1024, 4096, 2);
        s.parallelism.pp = 32;
        s.parallelism.virtualStages = 3;
        s.parallelism.ep = 8;
        s.parallelism.dataParallel = DataParallelKind::Zero1;
        s.workload.globalBatchTokens = 4096 * 4096;
        const CostModel model(s);
        QVERIFY(model.invalidReason(s) != nullptr);
        s.parallelism.embeddingStage = true;
        s.parallelism.lossStage = true;
        QCOMPARE(model.invalidReason(s), nullptr);
        QVERIFY(model.evaluate(s).fits);
        // DeepSeek-V3 on PP 16: Megatron's layout with the MTP layer and the loss on stages of their own runs faster
        // than the even split that puts both on a stage of 4 layers.
        Scenario d = test::scenarioFor(
            *test::shippedPresets().findModel("deepseek-v3"), "h800", 2048, 4096, 1, ActivationCheckpointing::Full);
        d.parallelism.pp = 16;
        d.parallelism.virtualStages = 2;
        d.parallelism.ep = 64;
        d.parallelism.dataParallel = DataParallelKind::Zero1;
        d.workload.mtpLayers = 1;
        d.workload.globalBatchTokens = 4096 * 4096;
        const double even = evaluate(d).tokensPerSecPerGpu;
        d.parallelism.pipelineLayout = parsePipelineLayout("Et*3|(tt|)*29m|L");
        QVERIFY(evaluate(d).tokensPerSecPerGpu > even);
    }

    // The fullest rank sets the memory, whichever it is. Llama 3.1 8B on PP 4 with the layout Et*3|t*10|t*10|t*9L and
    // 8 micro-batches: the last rank (9 layers and the LM head) sets the pace, the first holds the most micro-batches
    // in flight (4), but the second holds the most activations: 10 layers x 3 in flight, against 8 x 4 on the even
    // split's first rank, so 30/32 of the even split's activations (the first rank's 3 x 4 would give 12/32).
    void theFullestRankSetsTheMemory()
    {
        Scenario s = test::scenarioFor(*test::shippedPresets().findModel("llama-3.1-8b"), "h100-sxm", 8, 4096);
        s.parallelism.pp = 4;
        s.workload.globalBatchTokens = 65536;
        const double even = evaluate(s).memory.activations;
        s.parallelism.pipelineLayout = parsePipelineLayout("Et*3|t*10|t*10|t*9L");
        QCOMPARE(evaluate(s).memory.activations, even * 30.0 / 32.0);
    }
};

QTEST_GUILESS_MAIN(TestMoeLayouts)
#include "tst_moe_layouts.moc"
