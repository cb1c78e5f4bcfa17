// Less GPU work never lengthens a step. Each shipped model preset on 64 GPUs of four generations, under the
// data-parallel kinds, expert overlaps and precisions users run, is timed as it is and with one term's work halved
// (the GEMMs, attention, memory-bound kernels, host overheads, communication: core/costmodel/term_scales.h). However
// the step's terms overlap, the faster kernels can only shorten it: communication and host work that hid behind the
// old compute are still there, and at worst now set the pace alone.
#include <QtTest>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "costmodel_fixtures.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

// A layout users run, on 64 GPUs at 4k: FSDP (EP 8 for MoE), ZeRO-1 over async TP 2, Megatron-FSDP, for MoE the
// expert all-to-all overlapped under 1F1B with DeepEP, activations offloaded to the host, HSDP over two replicas
// with full checkpointing, a pipeline of 2 stages over HSDP, 32k tokens over a CP 4 ring, userbuffers TP 2 over FSDP,
// DualPipe's all-to-all over FSDP, and Megatron's moe, mlp and layernorm modules recomputed.
enum class Layout {
    Fsdp,
    Zero1Tp2,
    MegatronFsdp,
    MoeOverlapped,
    OffloadedActivations,
    HsdpRecomputed,
    PipelineOverHsdp,
    ContextRing,
    AsyncTpOverFsdp,
    DualPipeOverFsdp,
    MoeModulesRecomputed
};
constexpr Layout kLayouts[] = { Layout::Fsdp, Layout::Zero1Tp2, Layout::MegatronFsdp, Layout::MoeOverlapped,
    Layout::OffloadedActivations, Layout::HsdpRecomputed, Layout::PipelineOverHsdp, Layout::ContextRing,
    Layout::AsyncTpOverFsdp, Layout::DualPipeOverFsdp, Layout::MoeModulesRecomputed };

Scenario scenarioOf(const ModelSpec& model, const char* gpu, Layout layout, TrainingPrecision precision)
{
    Scenario s = test::scenarioFor(model, gpu, 64, 4096);
    s.costModel = test::shippedPresets().costModelFor(gpu);
    s.precision = precision;
    if (model.isMoe())
        s.parallelism.ep = 8;
    switch (layout) {
    case Layout::Fsdp:
        break;
    case Layout::Zero1Tp2:
        s.parallelism.dataParallel = DataParallelKind::Zero1;
        s.parallelism.tp = 2;
        s.parallelism.asyncTp = true;
        break;
    case Layout::MegatronFsdp:
        s.parallelism.dataParallel = DataParallelKind::MegatronFsdp;
        break;
    case Layout::MoeOverlapped:
        s.parallelism.expertOverlap = ExpertOverlap::OneFOneB;
        s.parallelism.expertDispatcher = ExpertDispatcher::DeepEp;
        break;
    case Layout::OffloadedActivations:
        s.flags.activationOffloadFraction = 1.0;
        break;
    case Layout::HsdpRecomputed:
        s.parallelism.hsdpReplicas = 2;
        s.activationCheckpointing = ActivationCheckpointing::Full;
        break;
    case Layout::PipelineOverHsdp: // over HSDP: the once-a-step reduce-scatter and all-reduce share the last backward
        s.parallelism.pp = 2;
        s.parallelism.hsdpReplicas = 2;
        s.workload.globalBatchTokens = int64_t { 64 } * 4 * 4096; // 8 micro-batches per step on each of 32 pipelines
        break;
    case Layout::ContextRing:
        s.workload.seqLen = 32768;
        s.parallelism.cp = 4;
        s.parallelism.cpComm = ContextParallelComm::P2p;
        break;
    case Layout::AsyncTpOverFsdp:
        s.parallelism.tp = 2;
        s.parallelism.asyncTp = true;
        s.parallelism.tpOverlap = TpOverlap::Userbuffers;
        break;
    case Layout::DualPipeOverFsdp:
        s.parallelism.expertOverlap = ExpertOverlap::DualPipe;
        s.parallelism.expertDispatcher = ExpertDispatcher::DeepEp;
        break;
    case Layout::MoeModulesRecomputed:
        s.activationCheckpointing = ActivationCheckpointing::Selective;
        s.flags.recomputeModules = RecomputeMoe | RecomputeMlp | RecomputeLayernorm;
        break;
    }
    return s;
}

struct Halved {
    const char* term;
    TermScales scales;
};
const Halved kHalved[] = {
    { "matmul", { .matmul = 0.5 } },
    { "attention", { .attention = 0.5 } },
    { "memory-bound", { .memoryBound = 0.5 } },
    { "overhead", { .overhead = 0.5 } },
    { "communication", { .communication = 0.5 } },
};

// The MoE layouts apply to MoE models only.
bool appliesTo(Layout layout, const ModelSpec& model)
{
    const bool moeOnly = layout == Layout::MoeOverlapped || layout == Layout::DualPipeOverFsdp
        || layout == Layout::MoeModulesRecomputed;
    return model.isMoe() || !moeOnly;
}

// One run whose step went the wrong way, for the failure message: "<run>: 1.2345 s -> 1.3456 s".
QString stepChange(const QString& run, double before, double after)
{
    return QStringLiteral("%1: %2 s -> %3 s").arg(run).arg(before, 0, 'f', 4).arg(after, 0, 'f', 4);
}

// Fails with the first dozen runs that went the wrong way ("slower with less work"), or says nothing.
void verifyNone(const QStringList& runs, int compared, const char* what)
{
    QVERIFY2(runs.isEmpty(),
        qPrintable(QStringLiteral("%1 of %2 %3, e.g.\n%4")
                       .arg(runs.size())
                       .arg(compared)
                       .arg(QLatin1String(what), runs.mid(0, 12).join('\n'))));
}

// Every run of the shipped model presets on `gpus` in `precisions` (those the GPU has a peak for) and each layout
// that applies, which the cost model lays out: the scenario, its cost model, its prediction and a name for messages.
template <typename Visit>
void forEachRun(
    std::initializer_list<const char*> gpus, std::initializer_list<TrainingPrecision> precisions, const Visit& visit)
{
    for (const ModelSpec& model : test::shippedPresets().models()) {
        if (model.isBare())
            continue;
        for (const char* gpu : gpus) {
            const HardwareSpec hw = test::presetHardware(gpu);
            for (TrainingPrecision precision : precisions) {
                if (precision == TrainingPrecision::BF16_FP8 && !hw.densePeak(NumberFormat::FP8))
                    continue;
                if (precision == TrainingPrecision::BF16_FP4 && !hw.densePeak(NumberFormat::FP4))
                    continue;
                for (Layout layout : kLayouts) {
                    if (!appliesTo(layout, model))
                        continue;
                    Scenario s = scenarioOf(model, gpu, layout, precision);
                    if (precision == TrainingPrecision::BF16_FP4 && hw.vendor == "AMD")
                        s.flags.fp4Recipe = Fp4Recipe::Mxfp4;
                    std::optional<CostModel> cost;
                    StepPrediction base;
                    try {
                        cost.emplace(s);
                        if (cost->invalidReason(s))
                            continue;
                        base = cost->evaluateValid(s);
                    } catch (const InputError&) {
                        continue; // a precision or layout this GPU or model does not run
                    }
                    const QString run = QStringLiteral("%1 on %2 (%3, layout %4)")
                                            .arg(QString::fromStdString(model.id), gpu,
                                                QString::fromUtf8(trainingPrecisionKey(precision).data()))
                                            .arg(static_cast<int>(layout));
                    visit(s, *cost, base, run);
                }
            }
        }
    }
}

} // namespace

class TestLessWorkNeverSlower : public QObject {
    Q_OBJECT
private slots:
    // A calibration's matmul factor (and a lone GPU's clock) reaches the GEMMs full checkpointing repeats, as it
    // reaches the forward and backward: doubling it adds the layers' forward GEMMs once more to the recompute, which
    // is all of the forward's GEMMs but the LM head's (Llama 3.1 8B's head is about 7% of them).
    void recomputationFollowsTheMatmulScale()
    {
        Scenario s = test::scenarioFor(test::llama31_8b(), "h100-sxm", 8, 4096, 1, ActivationCheckpointing::Full);
        s.costModel = test::shippedPresets().costModelFor("h100-sxm");
        const CostModel cost(s);
        const StepPrediction base = cost.evaluateValid(s);
        const StepPrediction slower = cost.evaluateValid(s, { .matmul = 2 });
        const double addedRecompute = slower.time.recompute - base.time.recompute;
        const double addedForward = (slower.time.matmul - base.time.matmul) / 3;
        QVERIFY2(addedRecompute > 0.85 * addedForward && addedRecompute < addedForward,
            qPrintable(QStringLiteral("%1 s recomputed, %2 s forward").arg(addedRecompute).arg(addedForward)));
    }

    // With fewer micro-batches than stages the bubble is the first micro-batch's trip through every stage, which
    // virtual stages do not shorten: the advice says so.
    void bubbleAdviceWithFewerMicroBatchesThanStages()
    {
        Scenario s = test::scenarioFor(test::llama31_70b(), "h100-sxm", 1024, 8192, 8);
        s.costModel = test::shippedPresets().costModelFor("h100-sxm");
        s.parallelism.pp = 4;
        s.parallelism.virtualStages = 4;
        s.parallelism.schedule = PipelineSchedule::Interleaved1F1B;
        s.parallelism.dataParallel = DataParallelKind::Zero1;
        s.workload.globalBatchTokens = 262144; // 32 data-parallel ranks, one 8,192-token micro-batch each
        const CostModel cost(s);
        const StepPrediction p = cost.evaluateValid(s);
        QCOMPARE(p.gradAccumSteps, int64_t { 1 });
        QCOMPARE(p.pipelineStages, 4);
        QVERIFY(p.bottleneck == Bottleneck::PipelineBubble);
        const std::string advice = bottleneckSentence(p);
        QVERIFY2(advice.find("virtual stages would not") != std::string::npos, advice.c_str());
        s.parallelism.virtualStages = 1;
        s.parallelism.schedule = PipelineSchedule::OneFOneB;
        // The same bubble as 1F1B's p - 1 micro-batches (each micro-batch's time differs only by the 4x more, but
        // mostly hidden, stage boundaries).
        const double oneFOneB = cost.evaluateValid(s).time.pipelineBubble;
        QVERIFY2(std::abs(p.time.pipelineBubble / oneFOneB - 1) < 0.02,
            qPrintable(QStringLiteral("%1 s against %2 s").arg(p.time.pipelineBubble).arg(oneFOneB)));
    }

    void halvingATermNeverLengthensTheStep()
    {
        int compared = 0;
        QStringList slower;
        forEachRun({ "a100-sxm-80gb", "h100-sxm", "gb300", "mi355x" },
            { TrainingPrecision::BF16, TrainingPrecision::BF16_FP8, TrainingPrecision::BF16_FP4 },
            [&](const Scenario& s, const CostModel& cost, const StepPrediction& base, const QString& run) {
                for (const Halved& h : kHalved) {
                    const StepPrediction faster = cost.evaluateValid(s, h.scales);
                    ++compared;
                    if (faster.stepTimeSeconds > base.stepTimeSeconds * (1 + 1e-9))
                        slower << stepChange(run + QStringLiteral(", %1 halved").arg(QLatin1String(h.term)),
                            base.stepTimeSeconds, faster.stepTimeSeconds);
                }
            });
        QVERIFY2(compared > 1000, qPrintable(QString::number(compared)));
        verifyNone(slower, compared, "slower with less work");
        qInfo("%d halved terms, none lengthening its step", compared);
    }

    // A calibration from a trace can find the links or the host slower than the published runs (a communication or
    // overhead factor above 1). Its factors stretch what the links carry and what the host issues, not what was left
    // exposed at the traced run's compute: less compute under them still never lengthens the step.
    void lessComputeNeverSlowerUnderSlowerLinksOrHost()
    {
        const TermScales calibrated[] = { { .communication = 1.5 }, { .communication = 4 }, { .overhead = 3 } };
        int compared = 0;
        QStringList slower;
        forEachRun({ "h100-sxm", "gb300" }, { TrainingPrecision::BF16 },
            [&](const Scenario& s, const CostModel& cost, const StepPrediction&, const QString& run) {
                for (const TermScales& at : calibrated) {
                    const double before = cost.evaluateValid(s, at).stepTimeSeconds;
                    for (const Halved& h : kHalved) {
                        if (h.scales.communication != 1 || h.scales.overhead != 1)
                            continue; // compute terms only
                        TermScales less = at;
                        less.matmul *= h.scales.matmul;
                        less.attention *= h.scales.attention;
                        less.memoryBound *= h.scales.memoryBound;
                        const double after = cost.evaluateValid(s, less).stepTimeSeconds;
                        ++compared;
                        if (after > before * (1 + 1e-9))
                            slower << stepChange(run
                                    + QStringLiteral(", %1 halved, communication x%2, overhead x%3")
                                          .arg(QLatin1String(h.term))
                                          .arg(at.communication)
                                          .arg(at.overhead),
                                before, after);
                    }
                }
            });
        QVERIFY2(compared > 1000, qPrintable(QString::number(compared)));
        verifyNone(slower, compared, "slower with less compute under calibrated links or host");
        qInfo("%d calibrated runs with less compute, none slower", compared);
    }

    // The cluster's own network (--scale-out-gbps), half the preset's: no step gets shorter, and a layout whose
    // collectives cross nodes waits longer somewhere.
    void aSlowerNetworkNeverShortensAStep()
    {
        int compared = 0, longer = 0;
        QStringList shorter;
        forEachRun({ "h100-sxm", "gb300" }, { TrainingPrecision::BF16 },
            [&](const Scenario& s, const CostModel& cost, const StepPrediction& base, const QString& run) {
                Scenario slower = s;
                setStatedScaleOut(slower.cluster.hardware, scaleOutGbitPerSec(s.cluster.hardware) / 2);
                const StepPrediction after = cost.evaluateValid(slower);
                ++compared;
                if (after.stepTimeSeconds < base.stepTimeSeconds * (1 - 1e-9))
                    shorter << stepChange(run, base.stepTimeSeconds, after.stepTimeSeconds);
                longer += after.stepTimeSeconds > base.stepTimeSeconds * (1 + 1e-6) ? 1 : 0;
            });
        verifyNone(shorter, compared, "shorter on half the network");
        QVERIFY2(longer > compared / 4, qPrintable(QStringLiteral("%1 of %2 longer").arg(longer).arg(compared)));
        qInfo("%d runs on half the network: %d longer, none shorter", compared, longer);
    }

    // FP8 attention speeds up the attention forward alone: the other pass and the host's waits stay as they were, so
    // the step cannot grow (the recomputed MoE layers' wait on the host was once measured against the whole
    // forward, and a faster attention lengthened it).
    void fp8AttentionNeverSlowsAStep()
    {
        int compared = 0;
        QStringList slower;
        forEachRun({ "h100-sxm", "gb300" }, { TrainingPrecision::BF16_FP8 },
            [&](const Scenario& s, const CostModel& cost, const StepPrediction& without, const QString& run) {
                Scenario withFp8Attention = s;
                withFp8Attention.flags.fp8Attention = true;
                if (cost.invalidReason(withFp8Attention))
                    return;
                const StepPrediction with = cost.evaluateValid(withFp8Attention);
                ++compared;
                if (with.stepTimeSeconds > without.stepTimeSeconds * (1 + 1e-9))
                    slower << stepChange(run, without.stepTimeSeconds, with.stepTimeSeconds);
            });
        QVERIFY2(compared > 300, qPrintable(QString::number(compared)));
        verifyNone(slower, compared, "slower with FP8 attention");
        qInfo("%d runs with FP8 attention, none slower", compared);
    }
};

QTEST_GUILESS_MAIN(TestLessWorkNeverSlower)
#include "tst_less_work_never_slower.moc"
