// Steps as PyTorch 2.11 records them, on the real H200 trace of ../shared/traces (its README gives the run and what
// was timed outside the profiler) and on variants of it built here: GPU-side step annotations over part of a step,
// a run whose steps replay CUDA graphs, no CPU annotations, an incomplete last step, and annotations that overlap.
// The expected figures come from the file with Python's json module (CPU ProfilerStep#1..3: 384.620, 383.366 and
// 375.264 ms; 2,569 GPU activities launched in each), independently of this reader.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/presets/presets.h"
#include "core/trace/analysis.h"
#include "core/trace/comparison.h"
#include "core/trace/trace_loader.h"
#include "core/trace/trace_mfu.h"

using namespace mfu::trace;
// Kineto writes each event's "ph", "cat" and "name" before its "args": the variants keep the file's key order.
using json = nlohmann::ordered_json;

namespace {

const char* kCompiled = "pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz";

std::string tracePath(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

std::vector<mfu::HardwareSpec> builtInHardware()
{
    mfu::PresetLibrary library;
    library.loadDirectory(std::filesystem::path(MFU_SOURCE_DIR) / "presets");
    return library.hardware();
}

json readGzipJson(const std::string& path)
{
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f)
        throw std::runtime_error("cannot open " + path);
    std::string text;
    char buffer[1 << 16];
    int n = 0;
    while ((n = gzread(f, buffer, sizeof buffer)) > 0)
        text.append(buffer, static_cast<size_t>(n));
    gzclose(f);
    return json::parse(text);
}

RankAnalysis analyse(const json& trace, const QTemporaryDir& dir, const char* name = "variant.json")
{
    const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
    std::ofstream(path) << trace.dump();
    Timeline t = loadTrace(path);
    return analyzeRank(t, builtInRules());
}

bool isStep(const json& e, const char* cat)
{
    return e.value("cat", "") == cat && e.value("name", "").rfind("ProfilerStep#", 0) == 0;
}

double ts(const json& e)
{
    return e["ts"].get<double>();
}

double end(const json& e)
{
    return e["ts"].get<double>() + e["dur"].get<double>();
}

bool isActivity(const json& e)
{
    const std::string cat = e.value("cat", "");
    return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}

bool isLaunch(const json& e)
{
    const std::string cat = e.value("cat", "");
    return (cat == "cuda_runtime" || cat == "cuda_driver") && e.contains("args") && e["args"].contains("correlation");
}

// The CPU steps of the file, in time order.
std::vector<json> cpuSteps(const json& trace)
{
    std::vector<json> steps;
    for (const auto& e : trace["traceEvents"])
        if (isStep(e, "user_annotation"))
            steps.push_back(e);
    std::sort(steps.begin(), steps.end(), [](const json& a, const json& b) { return ts(a) < ts(b); });
    return steps;
}

constexpr double kCpuStepsMs[] = { 384.619974, 383.366408, 375.263767 };

} // namespace

class TestStepsToday : public QObject {
    Q_OBJECT

    json m_trace;
    QTemporaryDir m_dir;
    RankAnalysis m_real; // the file as written, analysed once

private slots:
    void initTestCase()
    {
        if (!QFile::exists(QString::fromStdString(tracePath(kCompiled))))
            QSKIP("the PyTorch 2.11 trace is not at " MFU_SHARED_TRACES_DIR " (shared/traces is absent here)");
        m_trace = readGzipJson(tracePath(kCompiled));
        Timeline t = loadTrace(tracePath(kCompiled));
        m_real = analyzeRank(t, builtInRules());
    }

    // The file as PyTorch 2.11 wrote it: the CPU ProfilerStep is the step; the GPU copies (under 1 us each) are
    // compared, not used; all three steps launched the same work, so none is left out.
    void realCompiledTrace()
    {
        Timeline t = loadTrace(tracePath(kCompiled));
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(r.gpuStepAnnotations, GpuStepAnnotations::Partial);
        QVERIFY(!r.droppedLastStep);
        QCOMPARE(r.steps.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) {
            QCOMPARE(r.steps[i].step.number, int64_t(i + 1));
            QCOMPARE(r.steps[i].step.activityCount, int64_t(2569));
            QVERIFY(std::abs(r.steps[i].step.annotationDurationNs() / 1e6 - kCpuStepsMs[i]) < 1e-3);
        }
        const double cpuMean = (kCpuStepsMs[0] + kCpuStepsMs[1] + kCpuStepsMs[2]) / 3 / 1e3;
        QVERIFY(std::abs(r.meanStepSeconds - cpuMean) < 1e-6);
        // Timed outside the profiler: 378.9 ms per step (median of 5).
        QVERIFY(std::abs(r.meanStepSeconds / 0.3789 - 1) < 0.02);
        // The GPU worked through nearly all of each step (compiled, no host gaps to speak of).
        QVERIFY(r.meanGpuWorkSeconds > 0.95 * r.meanStepSeconds && r.meanGpuWorkSeconds < 1.01 * r.meanStepSeconds);
        QVERIFY(r.meanGpuBusySeconds <= r.meanGpuWorkSeconds * 1.0001);
        QVERIFY(r.stepSelection.find("CPU ProfilerStep") != std::string::npos);
        QVERIFY(r.stepSelection.find("not used") != std::string::npos);
        // The trace's own MFU from its operators' shapes: 48-56% counted independently for runs like this one.
        const RunTraceMfu m = traceMfuOfRun(finishRun({ r }), builtInHardware());
        QVERIFY2(m.mfu && *m.mfu > 0.40 && *m.mfu < 0.56, m.note.c_str());
        QVERIFY(!m.abovePeak);
        QVERIFY(m.unattributedShare < kUnattributedTolerance);

        // The same file rewritten with every object's keys sorted ("args" before "cat" and "name", as jq -S or
        // nlohmann::json write it) reads the same shapes and gives the same figures.
        const nlohmann::json sorted = nlohmann::json::parse(m_trace.dump());
        const std::string path = m_dir.filePath(QStringLiteral("sorted.json")).toStdString();
        std::ofstream(path) << sorted.dump();
        Timeline st = loadTrace(path);
        const RankAnalysis s = analyzeRank(st, builtInRules());
        QCOMPARE(s.meanStepSeconds, r.meanStepSeconds);
        QCOMPARE(s.opFlops.matmulFlops, r.opFlops.matmulFlops);
        QCOMPARE(s.opFlops.unattributedMatrixNs, r.opFlops.unattributedMatrixNs);
        QCOMPARE(*traceMfuOfRun(finishRun({ s }), builtInHardware()).mfu, *m.mfu);
    }

    // GPU-side annotations that do cover their steps (older PyTorch) are still not needed: the CPU steps are the
    // same; with no CPU annotations at all, the GPU ones are the steps.
    void gpuAnnotationsOnlyWhenNoCpuOnes()
    {
        json variant = m_trace;
        json& events = variant["traceEvents"];
        const std::vector<json> steps = cpuSteps(m_trace);
        // Widen every GPU annotation to its CPU step's range shifted onto the GPU's work: from the step's first
        // activity to the next step's first (the launches' kernels).
        const RankAnalysis& real = m_real;
        for (auto& e : events)
            if (isStep(e, "gpu_user_annotation"))
                for (const auto& s : real.steps)
                    if (e["name"] == "ProfilerStep#" + std::to_string(s.step.number)) {
                        e["ts"] = static_cast<double>(s.step.workStartNs) / 1e3;
                        e["dur"] = static_cast<double>(s.step.workDurationNs()) / 1e3;
                    }
        const RankAnalysis agreeing = analyse(variant, m_dir, "agreeing.json");
        QCOMPARE(agreeing.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(agreeing.gpuStepAnnotations, GpuStepAnnotations::Agree);
        QCOMPARE(agreeing.meanStepSeconds, real.meanStepSeconds);

        json noCpu = variant;
        json kept = json::array();
        for (const auto& e : noCpu["traceEvents"])
            if (!isStep(e, "user_annotation"))
                kept.push_back(e);
        noCpu["traceEvents"] = kept;
        const RankAnalysis gpuOnly = analyse(noCpu, m_dir, "gpu-only.json");
        QCOMPARE(gpuOnly.stepSource, StepSource::GpuAnnotation);
        QCOMPARE(gpuOnly.steps.size(), size_t(3));
        QVERIFY(gpuOnly.stepSelection.find("no CPU ones") != std::string::npos);
        QVERIFY(std::abs(gpuOnly.meanStepSeconds / real.meanGpuWorkSeconds - 1) < 1e-6);
    }

    // An eager-style run's GPU annotations cover a third of each step: steps, MFU and trace MFU do not move.
    void partialGpuAnnotationsChangeNothing()
    {
        json variant = m_trace;
        const RankAnalysis& real = m_real;
        for (auto& e : variant["traceEvents"])
            if (isStep(e, "gpu_user_annotation"))
                for (const auto& s : real.steps)
                    if (e["name"] == "ProfilerStep#" + std::to_string(s.step.number)) {
                        e["ts"] = static_cast<double>(s.step.workStartNs) / 1e3;
                        e["dur"] = static_cast<double>(s.step.workDurationNs()) / 3e3;
                    }
        const RankAnalysis r = analyse(variant, m_dir, "partial.json");
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(r.gpuStepAnnotations, GpuStepAnnotations::Partial);
        QCOMPARE(r.meanStepSeconds, real.meanStepSeconds);
        QCOMPARE(r.total.busyNs, real.total.busyNs);
        QCOMPARE(r.opFlops.inSteps.size(), real.opFlops.inSteps.size());
        QCOMPARE(totalFlops(r.opFlops.inSteps), totalFlops(real.opFlops.inSteps));
    }

    // A run compiled with CUDA graphs: each step launches its kernels through one cudaGraphLaunch, and the replayed
    // kernels carry that launch's correlation id; no operator inside the graph records shapes. The kernels belong
    // to the launching step, and the trace MFU says it could count nothing rather than print a number without them.
    void cudaGraphReplaysBelongToTheirStep()
    {
        const std::vector<json> steps = cpuSteps(m_trace);
        json variant = m_trace;
        json kept = json::array();
        std::map<int64_t, double> launchTs; // correlation -> launch time
        for (const auto& e : m_trace["traceEvents"])
            if (isLaunch(e))
                launchTs[e["args"]["correlation"].get<int64_t>()] = ts(e);
        // One graph launch per step, 1 ms into it, correlation 900000 + step index.
        for (const auto& e : m_trace["traceEvents"]) {
            const std::string cat = e.value("cat", "");
            if (isLaunch(e) || cat == "cpu_op" || cat == "ac2g")
                continue; // the graph replaces the launches and the operators that made them
            json copy = e;
            if (isActivity(e) && e["args"].contains("correlation")) {
                const auto it = launchTs.find(e["args"]["correlation"].get<int64_t>());
                const double launched = it != launchTs.end() ? it->second : ts(e);
                for (size_t s = 0; s < steps.size(); ++s)
                    if (launched >= ts(steps[s]) && launched < end(steps[s]))
                        copy["args"]["correlation"] = 900000 + static_cast<int64_t>(s);
            }
            kept.push_back(copy);
        }
        for (size_t s = 0; s < steps.size(); ++s)
            kept.push_back({ { "ph", "X" }, { "cat", "cuda_runtime" }, { "name", "cudaGraphLaunch" },
                { "pid", steps[s]["pid"] }, { "tid", steps[s]["tid"] }, { "ts", ts(steps[s]) + 1000.0 },
                { "dur", 20.0 }, { "args", { { "correlation", 900000 + static_cast<int64_t>(s) } } } });
        variant["traceEvents"] = kept;
        const RankAnalysis r = analyse(variant, m_dir, "graphs.json");
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(r.steps.size(), size_t(3));
        for (const auto& s : r.steps)
            QCOMPARE(s.step.activityCount, int64_t(2569));
        const RankAnalysis& real = m_real;
        QCOMPARE(r.meanStepSeconds, real.meanStepSeconds);
        QCOMPARE(r.total.busyNs, real.total.busyNs);
        // Every GEMM and attention kernel of the steps is there, none with shapes: no figure, and the reason.
        QCOMPARE(r.opFlops.matrixKernelNs, real.opFlops.matrixKernelNs);
        QCOMPARE(r.opFlops.unattributedMatrixNs, r.opFlops.matrixKernelNs);
        const RunTraceMfu m = traceMfuOfRun(finishRun({ r }), builtInHardware());
        QVERIFY(!m.mfu);
        // No operator at all records shapes here; a graph inside a run that does is a lower bound (below).
        QVERIFY(m.note.find("not available") == 0);
        // The critical path walks the replayed kernels too.
        QVERIFY(!r.criticalPath.steps.empty());
        QVERIFY(r.criticalPath.steps.front().spanNs > 0);
    }

    // Part of each step replayed by a graph (the kernels launched in its second half, 12% of its GEMM and
    // attention time): the trace MFU counts the rest and says it is a lower bound, with the share it left out.
    void partlyGraphedStepsGiveALowerBound()
    {
        const std::vector<json> steps = cpuSteps(m_trace);
        json variant = m_trace;
        std::map<int64_t, double> launchTs;
        for (const auto& e : m_trace["traceEvents"])
            if (isLaunch(e))
                launchTs[e["args"]["correlation"].get<int64_t>()] = ts(e);
        json kept = json::array();
        for (const auto& e : m_trace["traceEvents"]) {
            json copy = e;
            if (isActivity(e) && e["args"].contains("correlation")) {
                const auto it = launchTs.find(e["args"]["correlation"].get<int64_t>());
                for (size_t s = 0; s < steps.size() && it != launchTs.end(); ++s) {
                    const double middle = (ts(steps[s]) + end(steps[s])) / 2;
                    if (it->second >= middle && it->second < end(steps[s]))
                        copy["args"]["correlation"] = 900000 + static_cast<int64_t>(s);
                }
            }
            kept.push_back(copy);
        }
        for (size_t s = 0; s < steps.size(); ++s) // at the step's very start, inside no operator
            kept.push_back({ { "ph", "X" }, { "cat", "cuda_runtime" }, { "name", "cudaGraphLaunch" },
                { "pid", steps[s]["pid"] }, { "tid", steps[s]["tid"] }, { "ts", ts(steps[s]) + 0.001 },
                { "dur", 0.001 }, { "args", { { "correlation", 900000 + static_cast<int64_t>(s) } } } });
        variant["traceEvents"] = kept;
        const RankAnalysis r = analyse(variant, m_dir, "half-graphs.json");
        QCOMPARE(r.steps.size(), size_t(3));
        const double share = r.opFlops.unattributedMatrixShare();
        QVERIFY2(share > 0.05 && share < 0.95,
            qPrintable(
                QStringLiteral("%1 of %2 ns").arg(r.opFlops.unattributedMatrixNs).arg(r.opFlops.matrixKernelNs)));
        const RunTraceMfu m = traceMfuOfRun(finishRun({ r }), builtInHardware());
        QVERIFY(m.mfu);
        QVERIFY(m.lowerBound);
        QVERIFY(m.note.rfind("at least", 0) == 0);
        const RunTraceMfu full = traceMfuOfRun(finishRun({ m_real }), builtInHardware());
        QVERIFY(*m.mfu < *full.mfu);
    }

    // The profiler stopped inside a fourth step: it launched a handful of kernels, so it is left out and the
    // selection says why; the three complete steps stay.
    void incompleteLastStepIsLeftOut()
    {
        const std::vector<json> steps = cpuSteps(m_trace);
        json variant = m_trace;
        const double start = end(steps.back());
        variant["traceEvents"].push_back({ { "ph", "X" }, { "cat", "user_annotation" }, { "name", "ProfilerStep#4" },
            { "pid", steps.back()["pid"] }, { "tid", steps.back()["tid"] }, { "ts", start }, { "dur", 5000.0 } });
        variant["traceEvents"].push_back({ { "ph", "X" }, { "cat", "cuda_runtime" }, { "name", "cudaLaunchKernel" },
            { "pid", steps.back()["pid"] }, { "tid", steps.back()["tid"] }, { "ts", start + 10 }, { "dur", 5.0 },
            { "args", { { "correlation", 990001 } } } });
        variant["traceEvents"].push_back({ { "ph", "X" }, { "cat", "kernel" }, { "name", "triton_poi_fused_add_0" },
            { "pid", 0 }, { "tid", 7 }, { "ts", start + 50 }, { "dur", 20.0 },
            { "args", { { "correlation", 990001 }, { "device", 0 }, { "stream", 7 } } } });
        const RankAnalysis r = analyse(variant, m_dir, "stopped.json");
        QVERIFY(r.droppedLastStep);
        QCOMPARE(r.steps.size(), size_t(3));
        QCOMPARE(r.steps.back().step.number, int64_t(3));
        QVERIFY(
            r.stepSelection.find("ProfilerStep#4 has 1 GPU activities against a median of 2569") != std::string::npos);
    }

    // Annotations a loop cannot have (a repeated number, one step inside another, two overlapping) are resolved
    // and said; the step time stays the loop's.
    void impossibleAnnotationsAreSaid()
    {
        const std::vector<json> steps = cpuSteps(m_trace);
        json variant = m_trace;
        json& events = variant["traceEvents"];
        // ProfilerStep#2 again, later, and a ProfilerStep#9 nested inside #1.
        json again = steps[1];
        again["ts"] = end(steps[2]) + 1000;
        again["dur"] = 10.0;
        events.push_back(again);
        json nested = steps[0];
        nested["name"] = "ProfilerStep#9";
        nested["ts"] = ts(steps[0]) + 100;
        nested["dur"] = 50.0;
        events.push_back(nested);
        const RankAnalysis r = analyse(variant, m_dir, "odd.json");
        QCOMPARE(r.steps.size(), size_t(3));
        const RankAnalysis& real = m_real;
        QCOMPARE(r.meanStepSeconds, real.meanStepSeconds);
        QCOMPARE(r.warnings.size(), real.warnings.size() + 2);
        bool repeated = false, inside = false;
        for (const auto& w : r.warnings) {
            repeated = repeated || w.find("ProfilerStep#2 is annotated more than once") != std::string::npos;
            inside = inside || w.find("ProfilerStep#9 lies inside ProfilerStep#1") != std::string::npos;
        }
        QVERIFY(repeated && inside);

        // #2 starting 10 ms before #1 ends: #1 ends where #2 begins.
        json overlapping = m_trace;
        for (auto& e : overlapping["traceEvents"])
            if (isStep(e, "user_annotation") && e["name"] == "ProfilerStep#2")
                e["ts"] = ts(e) - 10000;
        const RankAnalysis o = analyse(overlapping, m_dir, "overlap.json");
        QCOMPARE(o.steps.size(), size_t(3));
        QVERIFY(o.steps[0].step.annotationDurationNs() < real.steps[0].step.annotationDurationNs());
        bool said = false;
        for (const auto& w : o.warnings)
            said = said || w.find("ProfilerStep#1 and ProfilerStep#2 overlap") != std::string::npos;
        QVERIFY(said);
    }

    // The comparison of two runs names the faster by step time and says, per category, the milliseconds saved.
    void comparisonSaysMillisecondsPerCategory()
    {
        const RankAnalysis& real = m_real;
        // The same run with every Triton pointwise kernel half as long and the loop's steps 10% shorter.
        json faster = m_trace;
        for (auto& e : faster["traceEvents"]) {
            if (e.value("cat", "") == "kernel" && e.value("name", "").rfind("triton_poi", 0) == 0)
                e["dur"] = e["dur"].get<double>() / 2;
            if (isStep(e, "user_annotation"))
                e["dur"] = e["dur"].get<double>() * 0.9;
        }
        const RankAnalysis optimised = analyse(faster, m_dir, "faster.json");
        const RunComparison c = compareRuns(finishRun({ real }), finishRun({ optimised }));
        QCOMPARE(c.faster(), std::string("optimised"));
        QVERIFY(std::abs(c.speedup - 1 / 0.9) < 1e-6);
        const std::string verdict = comparisonVerdict(c);
        QVERIFY2(verdict.find("1.11x faster") != std::string::npos, verdict.c_str());
        QVERIFY2(verdict.find("Per step this run saves") != std::string::npos, verdict.c_str());
        QVERIFY2(verdict.find(" less") != std::string::npos, verdict.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStepsToday)
#include "tst_steps_today.moc"
