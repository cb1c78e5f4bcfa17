// Step inference without annotations (core/trace/step_inference.h): synthetic timelines whose iteration starts are
// known exactly, noise that must not move them, traces that must not be cut, and a real trace with its ProfilerStep
// annotations stripped, whose inferred steps must match the annotated ones.
#include <QDir>
#include <QtTest>

#include <string>
#include <vector>

#include "core/trace/analysis.h"
#include "core/trace/analysis_json.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/step_inference.h"
#include "core/trace/steps.h"
#include "core/trace/trace_loader.h"

using namespace mfu::trace;

namespace {

struct K {
    std::string name;
    KernelCategory category = KernelCategory::Other;
};

// Appends kernels back to back (1 us each, 0.5 us apart) from `at`; returns the activity index of the first.
class TimelineBuilder {
public:
    size_t add(const std::vector<K>& kernels)
    {
        const size_t first = m_t.activities.size();
        for (const K& k : kernels) {
            GpuActivity a;
            a.startNs = m_at;
            a.endNs = m_at + 1000;
            a.name = m_t.names.intern(k.name);
            a.category = k.category;
            a.stream = 7;
            m_t.activities.push_back(a);
            m_at += 1500;
        }
        return first;
    }
    void idle(int64_t ns) { m_at += ns; }
    size_t memcpy()
    {
        GpuActivity a;
        a.startNs = m_at;
        a.endNs = m_at + 800;
        a.kind = ActivityKind::Memcpy;
        a.category = KernelCategory::Memcpy;
        a.name = m_t.names.intern("Memcpy HtoD (Pageable -> Device)");
        m_t.activities.push_back(a);
        m_at += 1000;
        return m_t.activities.size() - 1;
    }
    int64_t startOf(size_t activity) const { return m_t.activities[activity].startNs; }
    Timeline& timeline() { return m_t; }

private:
    Timeline m_t;
    int64_t m_at = 1'000'000;
};

std::vector<K> layer(const std::string& pass)
{
    return { { "gemm_" + pass + "_qkv", KernelCategory::Gemm }, { "flash_" + pass, KernelCategory::AttentionFwd },
        { "gemm_" + pass + "_out", KernelCategory::Gemm }, { "add_" + pass, KernelCategory::Elementwise } };
}

// One training iteration: embedding, `layers` identical forward layers, loss, the backward layers, all-reduce,
// then the optimizer (two fused Adam kernels and a grad-norm reduction between them).
std::vector<K> iteration(int layers)
{
    std::vector<K> k { { "embedding_fwd", KernelCategory::Other } };
    for (int i = 0; i < layers; ++i)
        for (const K& x : layer("fwd"))
            k.push_back(x);
    k.push_back({ "cross_entropy_loss", KernelCategory::SoftmaxLoss });
    for (int i = 0; i < layers; ++i)
        for (const K& x : layer("bwd"))
            k.push_back(x);
    k.push_back({ "embedding_bwd", KernelCategory::Other });
    k.push_back({ "ncclDevKernel_AllReduce", KernelCategory::CommAllReduce });
    k.push_back({ "multi_tensor_apply_adam", KernelCategory::Optimizer });
    k.push_back({ "grad_norm_reduce", KernelCategory::Optimizer });
    k.push_back({ "multi_tensor_apply_adam", KernelCategory::Optimizer });
    return k;
}

std::vector<K> distinctKernels(const std::string& prefix, int n)
{
    std::vector<K> k;
    for (int i = 0; i < n; ++i)
        k.push_back({ prefix + std::to_string(i), KernelCategory::Elementwise });
    return k;
}

std::vector<int64_t> inferredStarts(const Timeline& t)
{
    std::vector<int64_t> starts;
    if (const auto inferred = inferSteps(t))
        for (size_t a : inferred->startActivities)
            starts.push_back(t.activities[a].startNs);
    return starts;
}

std::string tracePath(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

} // namespace

class TestTraceSteps : public QObject {
    Q_OBJECT

private slots:
    // Three iterations of the same kernels: three steps starting at each iteration's first kernel; every one
    // launched the same kernels, so all three are kept (a last step is left out only when incomplete), and every
    // activity belongs to the window it starts in.
    void threeIterationsGiveThreeSteps()
    {
        TimelineBuilder b;
        std::vector<int64_t> expected;
        for (int i = 0; i < 3; ++i) {
            expected.push_back(b.startOf(b.add(iteration(4))));
            b.idle(200'000); // host time between iterations
        }
        QCOMPARE(inferredStarts(b.timeline()), expected);
        const StepPlan plan = planSteps(b.timeline());
        QCOMPARE(plan.source, StepSource::Inferred);
        QCOMPARE(stepSourceKey(plan.source), std::string_view("inferred"));
        QVERIFY(!plan.droppedLastStep);
        QCOMPARE(plan.steps.size(), size_t(3));
        const size_t perIteration = iteration(4).size();
        for (size_t s = 0; s < 3; ++s) {
            QCOMPARE(plan.steps[s].number, int64_t(s + 1));
            QCOMPARE(plan.steps[s].windowStartNs, expected[s]);
            if (s < 2) {
                QCOMPARE(plan.steps[s].windowEndNs, expected[s + 1]);
                QCOMPARE(plan.steps[s].annotationDurationNs(), expected[s + 1] - expected[s]);
            }
            QCOMPARE(plan.steps[s].activityCount, static_cast<int64_t>(perIteration));
            QCOMPARE(std::count(plan.activityStep.begin(), plan.activityStep.end(), static_cast<int>(s)),
                static_cast<std::ptrdiff_t>(perIteration));
        }
        // The last ends with its last kernel.
        QCOMPARE(plan.steps[2].windowEndNs, b.timeline().activities.back().endNs);
    }

    // A fourth iteration stops after five kernels (the profiler stopped inside it): left out, and said.
    void truncatedLastIterationIsLeftOut()
    {
        TimelineBuilder b;
        for (int i = 0; i < 3; ++i) {
            b.add(iteration(4));
            b.idle(200'000);
        }
        const std::vector<K> k = iteration(4);
        b.add({ k.begin(), k.begin() + 5 });
        const StepPlan plan = planSteps(b.timeline());
        QCOMPARE(plan.source, StepSource::Inferred);
        QVERIFY(plan.droppedLastStep);
        QCOMPARE(plan.steps.size(), size_t(3));
        QVERIFY(plan.selection.find("left out as incomplete") != std::string::npos);
        QVERIFY(plan.selection.find("has 5 GPU activities against a median of " + std::to_string(k.size()))
            != std::string::npos);
    }

    // Noise must not move the boundaries: an extra kernel inside one iteration, a missing one in another, a long
    // stall in the middle of an iteration (bigger than the gaps between iterations). A host-to-device copy right
    // before an iteration's first kernel opens that step's window.
    void noiseDoesNotMoveBoundaries()
    {
        TimelineBuilder b;
        std::vector<int64_t> kernelStarts;
        std::vector<int64_t> windowStarts;
        size_t copy = 0;
        for (int i = 0; i < 4; ++i) {
            std::vector<K> k = iteration(3);
            if (i == 1) // before the iteration's usual first kernel: the step starts with it
                k.insert(k.begin(), { "triton_poi_fused_cat_0", KernelCategory::Elementwise });
            if (i == 3)
                k.insert(k.begin() + 9, { "triton_poi_fused_cat_0", KernelCategory::Elementwise });
            if (i == 2) {
                k.erase(k.begin() + 20);
                copy = b.memcpy();
            }
            const size_t half = k.size() / 2;
            const size_t first = b.add({ k.begin(), k.begin() + static_cast<std::ptrdiff_t>(half) });
            kernelStarts.push_back(b.startOf(first));
            windowStarts.push_back(b.startOf(i == 2 ? copy : first));
            b.idle(5'000'000); // a data-loader stall inside the iteration
            b.add({ k.begin() + static_cast<std::ptrdiff_t>(half), k.end() });
            b.idle(50'000);
        }
        QCOMPARE(inferredStarts(b.timeline()), kernelStarts);
        const StepPlan plan = planSteps(b.timeline());
        QCOMPARE(plan.source, StepSource::Inferred);
        QCOMPARE(plan.steps.size(), size_t(4)); // the last iteration is whole: it is kept
        for (size_t s = 0; s < 4; ++s)
            QCOMPARE(plan.steps[s].windowStartNs, windowStarts[s]);
        QCOMPARE(plan.activityStep[copy], 2);
    }

    // The profiler started inside an iteration (only its optimizer tail is recorded): steps start after it, and
    // the tail belongs to no step.
    void traceStartingMidIteration()
    {
        TimelineBuilder b;
        const std::vector<K> full = iteration(2);
        b.add({ full.end() - 3, full.end() });
        std::vector<int64_t> expected;
        for (int i = 0; i < 3; ++i)
            expected.push_back(b.startOf(b.add(full)));
        QCOMPARE(inferredStarts(b.timeline()), expected);
        const StepPlan plan = planSteps(b.timeline());
        QCOMPARE(plan.activityStep[0], -1);
        QCOMPARE(plan.activityStep[3], 0);
    }

    // A trace with nothing on its GPUs has no step: not "the whole trace is one step" beside "steps 0".
    void noGpuActivityIsNoStep()
    {
        TimelineBuilder b;
        const StepPlan plan = planSteps(b.timeline());
        QVERIFY(plan.steps.empty());
        QCOMPARE(plan.selection, std::string("no ProfilerStep annotations and no GPU activity: no step to measure"));
    }

    // Gradient accumulation: two micro-batches (forward + backward) then one optimizer step. The micro-batch
    // repeats too, but a training step holds the optimizer: three optimizer periods, three steps.
    void gradientAccumulationStepsAreOptimizerSteps()
    {
        TimelineBuilder b;
        std::vector<K> micro = iteration(2);
        micro.resize(micro.size() - 3); // no optimizer kernels
        std::vector<int64_t> expected;
        for (int i = 0; i < 3; ++i) {
            expected.push_back(b.startOf(b.add(micro)));
            b.add(micro);
            b.add({ { "multi_tensor_apply_adam", KernelCategory::Optimizer } });
        }
        QCOMPARE(inferredStarts(b.timeline()), expected);

        // The same run with the profiler starting in a step's last micro-batch: the micro-batch period now lines
        // up with an optimizer step once, but the steps it would give do not all hold optimizer work.
        TimelineBuilder late;
        late.add(micro);
        late.add({ { "multi_tensor_apply_adam", KernelCategory::Optimizer } });
        expected.clear();
        for (int i = 0; i < 3; ++i) {
            expected.push_back(late.startOf(late.add(micro)));
            late.add(micro);
            late.add({ { "multi_tensor_apply_adam", KernelCategory::Optimizer } });
        }
        QCOMPARE(inferredStarts(late.timeline()), expected);
    }

    // Without optimizer kernels (inference, or optimizer kernels the rules do not know) a repeating sequence still
    // gives steps, starting at the phase of the trace's first kernel.
    void repetitionWithoutOptimizer()
    {
        TimelineBuilder b;
        std::vector<int64_t> expected;
        for (int i = 0; i < 3; ++i) {
            expected.push_back(b.startOf(b.add(distinctKernels("decode_", 12))));
            b.idle(30'000);
        }
        QCOMPARE(inferredStarts(b.timeline()), expected);
    }

    // Nothing repeats: one step, the whole trace.
    void noRepetitionIsOneStep()
    {
        TimelineBuilder b;
        b.add(distinctKernels("k", 40));
        b.add({ { "gemm", KernelCategory::Gemm }, { "add", KernelCategory::Elementwise } });
        QVERIFY(!inferSteps(b.timeline()).has_value());
        const StepPlan plan = planSteps(b.timeline());
        QCOMPARE(plan.source, StepSource::WholeTrace);
        QCOMPARE(plan.steps.size(), size_t(1));
        QVERIFY(!plan.droppedLastStep);
    }

    // One forward pass of an inference trace repeats per layer, but the layers are not steps: the embedding and
    // the output head around them are not explained by the repetition.
    void layersOfOneForwardAreNotSteps()
    {
        TimelineBuilder b;
        b.add({ { "embedding", KernelCategory::Other }, { "rotary_setup", KernelCategory::Elementwise } });
        for (int i = 0; i < 12; ++i)
            b.add(layer("fwd"));
        b.add({ { "final_norm", KernelCategory::Normalization }, { "lm_head_gemm", KernelCategory::Gemm },
            { "argmax", KernelCategory::Other } });
        QVERIFY(!inferSteps(b.timeline()).has_value());
        QCOMPARE(planSteps(b.timeline()).source, StepSource::WholeTrace);
    }

    // A model's layers from the very first kernel on, then an output head: each "step" would look alike, but the
    // head is not explained by the repetition (six kernels that no layer launches).
    void layersThenHeadAreNotSteps()
    {
        TimelineBuilder b;
        for (int i = 0; i < 5; ++i)
            b.add(distinctKernels("layer_kernel_", 60));
        b.add(distinctKernels("head_", 6));
        QVERIFY(!inferSteps(b.timeline()).has_value());
    }

    // One kernel recurring at regular distances is not a repeating sequence: what runs between differs.
    void recurringKernelAloneIsNotARepetition()
    {
        TimelineBuilder b;
        for (const char* phase : { "a", "b", "c", "c" }) {
            b.add({ { "cudaGraphLaunch_marker", KernelCategory::Other } });
            b.add(distinctKernels(phase, 10));
        }
        QVERIFY(!inferSteps(b.timeline()).has_value());
    }

    // A kernel that runs every third iteration (periodic logging) repeats too, more coarsely: the step is still
    // the finest period that holds the optimizer.
    void everyThirdIterationKernelDoesNotMergeSteps()
    {
        TimelineBuilder b;
        std::vector<int64_t> expected;
        for (int i = 0; i < 9; ++i) {
            std::vector<K> k = iteration(2);
            if (i % 3 == 0)
                k.insert(k.end() - 3, { "ncclDevKernel_AllReduce_logging", KernelCategory::CommAllReduce });
            expected.push_back(b.startOf(b.add(k)));
        }
        QCOMPARE(inferredStarts(b.timeline()), expected);
    }

    // Two repetitions are not enough evidence (two gaps are needed to call a kernel regular).
    void twoIterationsAreNotEnough()
    {
        TimelineBuilder b;
        b.add(iteration(2));
        b.add(iteration(2));
        QVERIFY(!inferSteps(b.timeline()).has_value());
    }

    // Annotations win over inference; the JSON names the source next to the fixed keys.
    void annotationsWinAndJsonNamesTheSource()
    {
        TimelineBuilder b;
        for (int i = 0; i < 3; ++i)
            b.add(iteration(2));
        Timeline& t = b.timeline();
        const KernelRules rules = builtInRules();
        Timeline annotated = t;
        annotated.annotations.push_back({ t.activities.front().startNs, t.activities.back().endNs,
            annotated.names.intern("ProfilerStep#7"), true });
        QCOMPARE(planSteps(annotated).source, StepSource::GpuAnnotation);
        const RankAnalysis r = analyzeRank(t, rules);
        QCOMPARE(r.stepSource, StepSource::Inferred);
        const nlohmann::json j = rankToJson(r, GpuPresetContext {});
        QCOMPARE(j.at("step_source").get<std::string>(), std::string("inferred"));
        QCOMPARE(j.at("steps").size(), size_t(3));
        QCOMPARE(j.at("steps")[0].at("step").get<int>(), 1);
        QCOMPARE(j.at("analysed_steps").size(), size_t(3));
    }

    // HTA's NCCL trace (ProfilerStep#4..#6 on the CPU thread) with its annotations stripped: the same steps. Each
    // inferred step starts at the annotated step's first activity (the same kernel: 900 kernels per step), and its
    // duration (GPU window) is within 1% of the annotated CPU step time.
    void realTraceWithoutAnnotations()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        Timeline t = loadTrace(tracePath("hta__nccl_parser_config__nccl_data.json.gz"));
        classifyActivities(t, builtInRules());
        const StepPlan annotated = planSteps(t);
        QCOMPARE(annotated.source, StepSource::CpuAnnotation);
        t.annotations.clear();
        const auto found = inferSteps(t);
        QVERIFY(found.has_value());
        QCOMPARE(found->periodKernels, size_t(900));
        QVERIFY(found->optimizerPhase);
        const StepPlan inferred = planSteps(t);
        QCOMPARE(inferred.source, StepSource::Inferred);
        QCOMPARE(inferred.steps.size(), annotated.steps.size());
        QCOMPARE(inferred.droppedLastStep, annotated.droppedLastStep);
        for (size_t s = 0; s < inferred.steps.size(); ++s) {
            const Step& a = annotated.steps[s];
            const Step& i = inferred.steps[s];
            QCOMPARE(i.windowStartNs, a.windowStartNs);
            QCOMPARE(i.windowEndNs, a.windowEndNs);
            // The last inferred step has no next first kernel: its duration is its GPU work, not the CPU step.
            if (s + 1 < inferred.steps.size())
                QVERIFY(std::abs(static_cast<double>(i.annotationDurationNs() - a.annotationDurationNs()))
                    <= 0.01 * static_cast<double>(a.annotationDurationNs()));
        }
        QCOMPARE(inferred.activityStep, annotated.activityStep);
    }

    // TraceLens's Qwen inference trace (one ProfilerStep, one batch through 24 layers) stripped: no steps inferred.
    void realInferenceTraceIsOneStep()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        Timeline t = loadTrace(tracePath("tracelens__h100__qwen1.5-0.5b-chat.json.gz"));
        classifyActivities(t, builtInRules());
        t.annotations.clear();
        QCOMPARE(planSteps(t).source, StepSource::WholeTrace);
    }
};

QTEST_GUILESS_MAIN(TestTraceSteps)
#include "tst_steps.moc"
