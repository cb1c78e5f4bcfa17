// Calibration from a trace (core/calibration/): the factors a synthetic trace was built with come back exactly, a
// calibrated replay of the traced run lands on its measured step, other layouts say which terms the trace measured,
// interpolated or never saw, the file round-trips, and a real PyTorch 2.11 trace recorded on an H200 replays within
// 3% of the step measured outside the profiler.
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/calibration/calibrated_sweep.h"
#include "core/calibration/calibration_file.h"
#include "core/calibration/trace_calibration.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/sweep.h"
#include "core/errors.h"
#include "core/model/hardware_spec.h"
#include "core/presets/hf_config.h"
#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/run_reader.h"
#include "input_error_of.h"
#include "shipped_presets.h"

using namespace mfu;
using trace::KernelCategory;

namespace {

Scenario llamaOnH100(int gpus, int tp)
{
    Scenario s;
    s.model = *test::shippedPresets().findModel("llama-3.1-8b");
    s.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
    s.cluster.gpuCount = gpus;
    s.workload.seqLen = 8192;
    s.workload.microBatch = 1;
    s.parallelism.tp = tp;
    return s;
}

int64_t ns(double seconds)
{
    return static_cast<int64_t>(seconds * 1e9);
}

// One rank whose terms are the model's prediction times known factors: what a trace of such a run would measure.
trace::RunAnalysis syntheticTrace(
    const Scenario& s, double matmul, double attention, double memory, double idle, double exposedComm = 1)
{
    const StepPrediction p = evaluate(s);
    trace::RankAnalysis r;
    r.gpuName = "NVIDIA H100 80GB HBM3";
    r.sourceFile = "synthetic";
    r.steps.resize(2);
    const double steps = 2;
    auto& e = r.total.exclusiveNs;
    e[static_cast<size_t>(KernelCategory::Gemm)] = ns(steps * matmul * (p.time.matmul + p.time.recompute));
    e[static_cast<size_t>(KernelCategory::AttentionFwd)] = ns(steps * attention * p.time.attention / 3);
    e[static_cast<size_t>(KernelCategory::AttentionBwd)] = ns(steps * attention * p.time.attention * 2 / 3);
    e[static_cast<size_t>(KernelCategory::Elementwise)] = ns(steps * memory * p.time.memoryBound);
    e[static_cast<size_t>(KernelCategory::CommAllReduce)] = ns(steps * exposedComm * p.time.exposedCommTotal());
    for (const int64_t v : e)
        r.total.busyNs += v;
    // Half the all-reduce hidden under computation; the idle time in one host-bound gap a step.
    r.total.categoryNs[static_cast<size_t>(KernelCategory::CommAllReduce)]
        = 2 * e[static_cast<size_t>(KernelCategory::CommAllReduce)];
    r.total.commNs = r.total.categoryNs[static_cast<size_t>(KernelCategory::CommAllReduce)];
    r.total.idleGapCount = 2;
    // Two all-reduces of 64 MB over the 8 ranks, 1 ms each: 112 GB/s bus bandwidth (2 x 7/8 x 64 MB / 1 ms).
    r.collectives = { { KernelCategory::CommAllReduce, 0, 1'000'000, 64e6, 8 },
        { KernelCategory::CommAllReduce, 5'000'000, 1'000'000, 64e6, 8 } };
    r.total.idleGapNs = ns(steps * idle * p.time.overhead);
    const double busy = static_cast<double>(r.total.busyNs) * 1e-9 / steps;
    r.meanStepSeconds = busy + idle * p.time.overhead + p.time.pipelineBubble;
    r.stepSpreadSeconds = 0.01 * r.meanStepSeconds;
    return trace::finishRun({ r });
}

double factorOf(const TraceCalibration& c, CalibratedTerm t)
{
    return c.fits[static_cast<size_t>(t)].factor;
}

} // namespace

class TestTraceCalibration : public QObject {
    Q_OBJECT
private slots:
    void factorsComeBackAndTheReplayLandsOnTheStep()
    {
        const Scenario s = llamaOnH100(8, 1);
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 0.8, 1.1, 2.5, 0.5), { "synthetic" });
        QVERIFY(std::abs(factorOf(c, CalibratedTerm::Matmul) - 0.8) < 1e-6);
        QVERIFY(std::abs(factorOf(c, CalibratedTerm::Attention) - 1.1) < 1e-6);
        QVERIFY(std::abs(factorOf(c, CalibratedTerm::MemoryBound) - 2.5) < 1e-6);
        QVERIFY(std::abs(factorOf(c, CalibratedTerm::Overhead) - 0.5) < 1e-6);
        QVERIFY2(std::abs(c.replayError()) < 0.01, std::to_string(c.replayError()).c_str());
        QCOMPARE(c.steps, 2);
        QVERIFY(c.fits[static_cast<size_t>(CalibratedTerm::Matmul)].evidence.find("per step") != std::string::npos);
        // Each communication kind's time and exposed share; the idle time's host-bound gaps.
        const std::string& comm = c.fits[static_cast<size_t>(CalibratedTerm::Communication)].evidence;
        QVERIFY2(comm.find("a step, 50% exposed") != std::string::npos, comm.c_str());
        QVERIFY2(
            comm.find(
                "on all ranks and steps, All-reduce over 8 ranks: 2 calls of 64.0 MB, bus bandwidth 112.0 GB/s median")
                != std::string::npos,
            comm.c_str());
        const std::string& idle = c.fits[static_cast<size_t>(CalibratedTerm::Overhead)].evidence;
        QVERIFY2(idle.find("of it 1 gap of 0.1 ms or more a step") != std::string::npos, idle.c_str());
    }

    // The links measured slower than the model's: the factor stretches what they carry, and the overlap decides what
    // the step waits. The replay waits what the trace measured, with less stretch than wait where some of the traffic
    // hid; less compute under it never waits longer (scaling the wait itself had let a faster GEMM lengthen the step).
    void slowerLinksStretchTheTrafficNotTheWait()
    {
        Scenario s = llamaOnH100(16, 1); // FSDP over two nodes at 2k: part of its traffic exposed
        s.workload.seqLen = 2048;
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 0.8, 1, 1, 1, 2.0), { "synthetic" });
        const TermFit& comm = c.fits[static_cast<size_t>(CalibratedTerm::Communication)];
        QVERIFY2(comm.fitted, comm.evidence.c_str());
        QVERIFY(std::abs(comm.factor - 2.0) < 1e-6); // what the trace measured over the model's wait
        const CostModel model(s);
        const StepPrediction replay = model.evaluateValid(s, c.scales);
        QVERIFY2(std::abs(replay.time.exposedCommTotal() / comm.measuredSeconds - 1) < 1e-6,
            qPrintable(QString::number(replay.time.exposedCommTotal() / comm.measuredSeconds)));
        QVERIFY2(c.scales.communication > 1 && c.scales.communication < 2,
            qPrintable(QString::number(c.scales.communication)));
        QVERIFY2(std::abs(c.replayError()) < 0.01, std::to_string(c.replayError()).c_str());
        for (double TermScales::*compute : { &TermScales::matmul, &TermScales::attention, &TermScales::memoryBound }) {
            TermScales less = c.scales;
            less.*compute *= 0.5;
            QVERIFY(model.evaluateValid(s, less).stepTimeSeconds <= replay.stepTimeSeconds);
        }
    }

    void theSameRunIsMeasuredAndAnotherLayoutSaysWhatItNeverSaw()
    {
        const Scenario s = llamaOnH100(8, 1);
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 0.8, 1.1, 2.5, 0.5), { "synthetic" });
        const CalibratedPrediction same = calibratedPrediction(s, c, evaluate(s), 0.1);
        QVERIFY(std::abs(same.measuredShare - 1.0) < 1e-9);
        QVERIFY(same.bandHalfWidth < 0.05);
        QVERIFY(same.mfuLow <= same.calibrated.mfu && same.calibrated.mfu <= same.mfuHigh);

        Scenario longer = s;
        longer.workload.seqLen = 16384;
        const CalibratedPrediction interpolated = calibratedPrediction(longer, c, evaluate(longer), 0.1);
        QVERIFY(interpolated.interpolatedShare > 0.99);
        QVERIFY(interpolated.terms[0].why.find("sequence 16,384 (traced 8,192)") != std::string::npos);

        const Scenario split = llamaOnH100(8, 2);
        const CalibratedPrediction tp = calibratedPrediction(split, c, evaluate(split), 0.1);
        QCOMPARE(tp.terms[static_cast<size_t>(CalibratedTerm::Matmul)].basis, TermBasis::Extrapolated);
        QVERIFY(tp.extrapolatedShare > 0.3);
        QVERIFY(tp.bandHalfWidth > same.bandHalfWidth);
        // Calibration never replaces the uncalibrated figure: both are there.
        QCOMPARE(tp.uncalibrated.stepTimeSeconds, evaluate(split).stepTimeSeconds);
    }

    void anotherModelOrGpuIsRefused()
    {
        const Scenario s = llamaOnH100(8, 1);
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 1, 1, 1, 1), { "synthetic" });
        Scenario other = s;
        other.cluster.hardware = *test::shippedPresets().findHardware("b200");
        QVERIFY_THROWS_EXCEPTION(InputError, calibratedPrediction(other, c, evaluate(other), 0.1));
        Scenario onB200 = other;
        QVERIFY_THROWS_EXCEPTION(InputError, calibrateFromTrace(onB200, syntheticTrace(s, 1, 1, 1, 1), {}));
        // A model of the same name with another shape (an edited copy of a config): the dimension is named.
        Scenario halfDepth = s;
        halfDepth.model.layers /= 2;
        const QString why = test::errorOf([&] { calibratedPrediction(halfDepth, c, evaluate(halfDepth), 0.1); });
        QVERIFY2(why.contains(QStringLiteral("(layers 16, traced 32)")), qPrintable(why));
    }

    // A trace of another GPU count than the scenario's: one that records its world size is refused with that count;
    // one of a lone GPU (no world size, no collective) given for eight is refused, where its matmul factor would have
    // taken in the difference between the model's lone-GPU and multi-GPU constants. A rank of eight without a
    // recorded world size but with its all-reduces is still one rank of the scenario's eight.
    void anotherGpuCountIsRefused()
    {
        const Scenario s = llamaOnH100(8, 1);
        trace::RunAnalysis sixteen = syntheticTrace(s, 1, 1, 1, 1);
        sixteen.ranks.front().worldSize = 16;
        const QString world = test::errorOf([&] { calibrateFromTrace(s, sixteen, { "synthetic" }); });
        QVERIFY2(world.startsWith(QStringLiteral("the trace ran on 16 GPUs (the world size synthetic records), the "
                                                 "scenario on 8: set the traced run's GPU count (--gpus 16")),
            qPrintable(world));

        trace::RunAnalysis lone = syntheticTrace(s, 1, 1, 1, 1, 0);
        lone.ranks.front().collectives.clear();
        lone.ranks.front().total.categoryNs = {};
        lone.ranks.front().total.commNs = 0;
        const QString one = test::errorOf([&] { calibrateFromTrace(s, lone, { "synthetic" }); });
        QVERIFY2(one.startsWith(QStringLiteral("the trace records one GPU (no world size, no collective), the scenario "
                                               "8 GPUs: calibrate as the run that was traced (--gpus 1")),
            qPrintable(one));

        trace::RunAnalysis rankOfEight = syntheticTrace(s, 1, 1, 1, 1);
        QVERIFY(!rankOfEight.ranks.front().worldSize);
        QCOMPARE(calibrateFromTrace(s, rankOfEight, { "synthetic" }).ranks, 1);
        rankOfEight.ranks.front().worldSize = 8;
        QCOMPARE(calibrateFromTrace(s, rankOfEight, { "synthetic" }).ranks, 1);
    }

    // The weights the trace's matrices read against the scenario's: a trace that cast FP32 weights every step ran
    // under autocast and is refused as a 16-bit run; one whose shapes reach its GEMMs and cast none is refused as an
    // autocast run; one that cannot tell (shapes missing the matrix kernels, as a CUDA graph's replay) is taken as
    // stated.
    void weightsAreTakenAsTheTraceCastThem()
    {
        Scenario s = llamaOnH100(8, 1);
        trace::RunAnalysis casting = syntheticTrace(s, 1, 1, 1, 1);
        casting.ranks.front().fp32MatrixCasts = trace::Fp32MatrixCasts { 224, 4, 4096, 4096, 2 };
        const QString fp32 = test::errorOf([&] { calibrateFromTrace(s, casting, { "synthetic" }); });
        QVERIFY2(fp32.startsWith(QStringLiteral("the trace casts FP32 weights to 16 bits every step (224 matrices a "
                                                "step, such as 4,096 x 4,096): it ran under torch.autocast")),
            qPrintable(fp32));
        Scenario autocast = s;
        autocast.flags.autocast = true;
        QCOMPARE(calibrateFromTrace(autocast, casting, { "synthetic" }).ranks, 1);

        trace::RunAnalysis sixteenBit = syntheticTrace(s, 1, 1, 1, 1);
        trace::RankAnalysis& r = sixteenBit.ranks.front();
        r.fp32MatrixCasts = trace::Fp32MatrixCasts { 0, 0, 0, 0, 2, true };
        r.opFlops.recordsShapes = true;
        r.opFlops.matrixKernelNs = 1'000'000;
        r.opFlops.byPrecision = { { "bf16", trace::GemmPrecision {}, true, 1e15 } };
        const QString bf16 = test::errorOf([&] { calibrateFromTrace(autocast, sixteenBit, { "synthetic" }); });
        QVERIFY2(bf16.startsWith(QStringLiteral("the trace records its casts and casts no FP32 weight to 16 bits, "
                                                "where autocast over FP32 weights casts every one each step: its "
                                                "weights were 16-bit")),
            qPrintable(bf16));
        QCOMPARE(calibrateFromTrace(s, sixteenBit, { "synthetic" }).ranks, 1);
        // What it cannot tell is taken as stated: casts recorded without their types, an FP32 run, GEMMs replayed
        // without operators.
        r.fp32MatrixCasts->castsRead = false;
        QCOMPARE(calibrateFromTrace(autocast, sixteenBit, { "synthetic" }).ranks, 1);
        r.fp32MatrixCasts->castsRead = true;
        r.opFlops.byPrecision = { { "fp32", trace::GemmPrecision { NumberFormat::FP32 }, true, 1e15 } };
        QCOMPARE(calibrateFromTrace(autocast, sixteenBit, { "synthetic" }).ranks, 1);
        r.opFlops.byPrecision = { { "bf16", trace::GemmPrecision {}, true, 1e15 } };
        r.opFlops.unattributedMatrixNs = 500'000; // half the GEMMs replayed without operators
        QCOMPARE(calibrateFromTrace(autocast, sixteenBit, { "synthetic" }).ranks, 1);
    }

    // However wide the band, its short end is a step the GPU can run: MFU and HFU at the short end stay within the
    // utilisation ceiling, and the band's MFU is the step's.
    void theBandsShortEndStopsWhereTheGpuDoes()
    {
        const Scenario s = llamaOnH100(8, 1);
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 0.7, 0.7, 0.7, 0.7), { "synthetic" });
        const CalibratedPrediction p = calibratedPrediction(s, c, evaluate(s), 0.9);
        const double ceiling = utilisationCeiling(s.cluster.hardware, s.precision);
        const double atShortEnd = p.calibrated.stepTimeSeconds / p.stepSecondsLow;
        QVERIFY2(p.calibrated.mfu * atShortEnd <= ceiling * (1 + 1e-12),
            std::to_string(p.calibrated.mfu * atShortEnd).c_str());
        QVERIFY(p.calibrated.hfu * atShortEnd <= ceiling * (1 + 1e-12));
        QCOMPARE(p.mfuHigh, p.calibrated.mfu * atShortEnd);
        QVERIFY(p.mfuLow > 0);
    }

    // A sweep's point calibrated (sweep --calibration, the Predict panel's calibrated line) is the prediction of that
    // point's scenario calibrated at its own uncalibrated band, as predict --calibration makes it; the traced
    // sequence is measured; a point that cannot be laid out has none.
    void aSweepsPointsAreCalibratedAsPredictCalibratesThem()
    {
        const Scenario s = llamaOnH100(8, 1);
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 0.8, 1.1, 2.5, 0.5), { "synthetic" });
        ErrorBandModel bands;
        for (const double e : { -0.2, -0.1, 0.0, 0.1, 0.3 })
            bands.residuals.push_back({ "Hopper", false, e });
        const SweepResult r = scenarioSweep(s, SweepAxis::SeqLen, &bands, { 4096, 8192, 2048 }, false);
        QCOMPARE(r.points.size(), size_t(3));
        for (const SweepPoint& p : r.points) {
            QVERIFY(p.currentValid && p.currentBand);
            const Scenario at = scenarioAt(s, SweepAxis::SeqLen, p.x);
            const StepPrediction uncalibrated = evaluate(at);
            const CalibratedPrediction expected = calibratedPrediction(
                at, c, uncalibrated, relativeStepBandHalfWidth(errorBandFor(at, uncalibrated, bands), uncalibrated));
            const CalibratedPrediction got = calibratedAtPoint(s, SweepAxis::SeqLen, p, c);
            QCOMPARE(got.calibrated.mfu, expected.calibrated.mfu);
            QCOMPARE(got.mfuLow, expected.mfuLow);
            QCOMPARE(got.mfuHigh, expected.mfuHigh);
        }
        QVERIFY(calibratedAtPoint(s, SweepAxis::SeqLen, r.points[1], c).measuredShare > 0.99);
        QVERIFY(calibratedAtPoint(s, SweepAxis::SeqLen, r.points[2], c).measuredShare < 0.01);
        // A point that does not fit has no MFU, calibrated or not.
        const SweepResult longer = scenarioSweep(s, SweepAxis::SeqLen, &bands, { 32768 }, false);
        QVERIFY(longer.points.front().currentMisfits());
        QVERIFY(test::errorOf([&] {
            calibratedAtPoint(s, SweepAxis::SeqLen, longer.points.front(), c);
        }).startsWith(QStringLiteral("does not fit in memory")));

        const SweepResult tp = scenarioSweep(llamaOnH100(8, 8), SweepAxis::GpuCount, nullptr, { 4 }, false);
        QVERIFY(!tp.points.front().currentValid); // TP 8 on 4 GPUs
        QVERIFY(!test::errorOf([&] {
            calibratedAtPoint(llamaOnH100(8, 8), SweepAxis::GpuCount, tp.points.front(), c);
        }).startsWith(QLatin1Char('<')));
    }

    void theFileRoundTripsAndRefusesAnEditedFactor()
    {
        const Scenario s = llamaOnH100(8, 1);
        const TraceCalibration c = calibrateFromTrace(s, syntheticTrace(s, 0.8, 1.1, 2.5, 0.5), { "a.json.gz" });
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("cal.json")).toStdString();
        writeCalibrationFile(path, c);
        const TraceCalibration back = readCalibrationFile(path);
        QCOMPARE(back.scales.matmul, c.scales.matmul);
        QCOMPARE(back.scales.memoryBound, c.scales.memoryBound);
        QVERIFY(std::abs(back.scales.overhead / c.scales.overhead - 1) < 1e-9); // solved again from the file's figures
        QCOMPARE(back.tracePaths, c.tracePaths);
        QCOMPARE(back.traced.workload.seqLen, s.workload.seqLen);
        QCOMPARE(calibratedPrediction(s, back, evaluate(s), 0.1).calibrated.stepTimeSeconds,
            calibratedPrediction(s, c, evaluate(s), 0.1).calibrated.stepTimeSeconds);
        nlohmann::json edited = calibrationToJson(c);
        edited["terms"][0]["factor"] = 0.5;
        QVERIFY_THROWS_EXCEPTION(InputError, calibrationFromJson(edited, "edited.json"));
        // The figures a band is built of: a spread below 0 or as long as the step, a replay error that is not the
        // two steps', a term listed twice (each gave bands below 0% MFU or a second factor in silence).
        const auto refusedAt = [&](const std::function<void(nlohmann::json&)>& edit) {
            nlohmann::json j = calibrationToJson(c);
            edit(j);
            return test::errorOf([&] { (void)calibrationFromJson(j, "edited.json"); });
        };
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["step_spread_s"] = -1;
        }).startsWith(QStringLiteral("edited.json: step_spread_s: must be at least 0")));
        QVERIFY(refusedAt([&](nlohmann::json& j) {
            j["step_spread_s"] = c.measuredStepSeconds;
        }).startsWith(QStringLiteral("edited.json: step_spread_s:")));
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["replay_error"] = -0.47;
        }).startsWith(QStringLiteral("edited.json: replay_error: is not replay_step_s / measured_step_s - 1")));
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["terms"].push_back(j["terms"][0]);
        }).contains(QStringLiteral("'matmul' is listed twice")));
        // The scenario the terms were measured on, edited afterwards: the measured times are another run's, and
        // each edit is refused by its key, never carried into the factors.
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["scenario"]["cluster"]["gpu_count"] = 64;
        }).startsWith(QStringLiteral("edited.json: uncalibrated_step_s: the scenario in the file predicts")));
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["scenario"]["workload"]["micro_batch"] = 2;
        }).contains(QStringLiteral("edited after calibrate wrote it")));
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["terms"][1]["predicted_s"] = 2 * j["terms"][1]["predicted_s"].get<double>();
            j["terms"][1].erase("factor");
        }).startsWith(QStringLiteral("edited.json: terms[attention].predicted_s: the scenario in the file predicts")));
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["ranks"] = 9;
        }).startsWith(QStringLiteral("edited.json: ranks: 9 traced ranks, more than the scenario's 8 GPUs")));
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["gpu_name"] = "NVIDIA H200";
        }).startsWith(QStringLiteral("edited.json: gpu_name: the trace ran on 'NVIDIA H200', the scenario's GPU is")));
        // A device name of any length is quoted short, not made the message.
        QVERIFY(refusedAt([](nlohmann::json& j) {
            j["gpu_name"] = std::string(100000, 'X');
        }).contains(QStringLiteral("(100,000 characters), the scenario's GPU is")));
        // The host's stretch is solved on the traced run: a scenario edited so that none can be predicted is refused.
        nlohmann::json unshaped = calibrationToJson(c);
        unshaped["scenario"]["parallelism"]["tp"] = 3; // 32 heads do not split 3 ways
        QVERIFY_THROWS_EXCEPTION(InputError, calibrationFromJson(unshaped, "unshaped.json"));
        // A traced shape faster than the GPU's peak, or slower than 1 GFLOP/s, is an edited file, refused by key
        // (its ratios would carry infinities into predictions).
        TraceCalibration shaped = c;
        shaped.gemmShapes = { { 8192, 4096, 4096, "bf16", 32, 0.2, 1e14 } };
        nlohmann::json fast = calibrationToJson(shaped);
        QVERIFY(calibrationFromJson(fast, "shaped.json").gemmShapes.size() == 1);
        fast["gemm_shapes"][0]["seconds_per_step"] = 1e-9;
        fast["gemm_shapes"][0].erase("tflops");
        QVERIFY_THROWS_EXCEPTION(InputError, calibrationFromJson(fast, "fast.json"));
        fast["gemm_shapes"][0]["seconds_per_step"] = 1e6;
        fast["gemm_shapes"][0]["flops_per_step"] = 1e-290;
        QVERIFY_THROWS_EXCEPTION(InputError, calibrationFromJson(fast, "slow.json"));
        // A folder in the way is refused, never replaced.
        QVERIFY_THROWS_EXCEPTION(InputError, writeCalibrationFile(dir.path().toStdString(), c));
    }

    // A trace faster than the GPU can run the described scenario (the flags describe another run), or a calibration
    // file edited to such factors, is refused naming the calibration, its factors and the cause, not blamed on the
    // FLOP count as an uncalibrated prediction beyond physics would be.
    void factorsBeyondPhysicsAreTheCalibrationsFault()
    {
        const Scenario s = llamaOnH100(8, 1);
        const auto refusedFor = [](const std::function<void()>& run, const char* cause) {
            try {
                run();
                QFAIL("a calibrated MFU beyond 100% was given");
            } catch (const InputError& e) {
                const QString what = QString::fromUtf8(e.what());
                QVERIFY2(what.startsWith(QLatin1String("calibration: ")), e.what());
                QVERIFY2(what.contains(QLatin1String("matmul x 0.1")), e.what());
                QVERIFY2(what.contains(QLatin1String(cause)), e.what());
                QVERIFY2(!what.contains(QLatin1String("per_component_causal")), e.what());
            }
        };
        refusedFor([&] { calibrateFromTrace(s, syntheticTrace(s, 0.1, 1, 1, 1), { "synthetic" }); },
            "the scenario does not describe the traced run");
        nlohmann::json edited
            = calibrationToJson(calibrateFromTrace(s, syntheticTrace(s, 0.8, 1, 1, 1), { "synthetic" }));
        edited["terms"][0]["measured_s"] = 0.1 * edited["terms"][0]["predicted_s"].get<double>();
        edited["terms"][0].erase("factor");
        const TraceCalibration c = calibrationFromJson(edited, "edited.json");
        refusedFor([&] { calibratedPrediction(s, c, evaluate(s), 0.1); }, "an edited file?");
    }

    // The PyTorch 2.11 trace recorded on an H200 (Qwen3-0.6B shape, compiled, 32,768 tokens a step): measured
    // outside the profiler at 378.9 ms a step (../shared/traces/README.md).
    void aRealTraceReplaysWithinThreePercent()
    {
        const QString folder = QStringLiteral(MFU_SHARED_TRACES_DIR);
        const std::string trace
            = folder.toStdString() + "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz";
        const std::string config = folder.toStdString() + "/pytorch211__h200__qwen3-0.6b-shape.config.json";
        if (!QFile::exists(QString::fromStdString(trace)) || !QFile::exists(QString::fromStdString(config)))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        std::ifstream in(config);
        std::stringstream text;
        text << in.rdbuf();
        Scenario s;
        s.model = modelFromHfConfigText(text.str(), "qwen3-0.6b-shape");
        s.cluster.hardware = *test::shippedPresets().findHardware("h200");
        s.workload.seqLen = 4096;
        s.workload.microBatch = 8;
        s.flags.attentionKernel = AttentionKernel::Cudnn;
        const trace::RunAnalysis run = trace::readAndAnalyzeRun({ trace }, trace::kernelRulesWithUserFiles({}), {});
        const double measuredOutside = 0.3789;
        // Stated with 16-bit weights, refused: the trace casts its FP32 weights every step (autocast), and a fit
        // would have put those casts into a memory-bound factor of three for every scenario it is carried to.
        const QString weights = test::errorOf([&] { calibrateFromTrace(s, run, { trace }); });
        QVERIFY2(weights.contains(QStringLiteral("casts FP32 weights to 16 bits every step (197 matrices a step")),
            qPrintable(weights));
        QVERIFY2(weights.contains(
                     QStringLiteral("turn on torch.autocast (FP32 weights), or give --autocast on the command line")),
            qPrintable(weights));
        // Stated as it ran (FP32 weights under autocast), each compute term is within 5% of what the trace measured.
        Scenario asRun = s;
        asRun.flags.autocast = true;
        const TraceCalibration a = calibrateFromTrace(asRun, run, { trace });
        for (const CalibratedTerm term :
            { CalibratedTerm::Matmul, CalibratedTerm::Attention, CalibratedTerm::MemoryBound })
            QVERIFY2(std::abs(factorOf(a, term) - 1) < 0.05,
                (std::to_string(static_cast<int>(term)) + ": " + std::to_string(factorOf(a, term))).c_str());
        QVERIFY2(
            std::abs(a.replayStepSeconds / measuredOutside - 1) < 0.03, std::to_string(a.replayStepSeconds).c_str());
        QVERIFY(!a.fits[static_cast<size_t>(CalibratedTerm::Communication)].fitted); // one GPU: no collective
        // Its 13 GEMM shapes, the longest the gate and up projections' forward and the down projection's input
        // gradient, [32,768 x 1,024] x [1,024 x 3,072], 84 a step at 693 TFLOPS.
        QCOMPARE(a.gemmShapes.size(), size_t(13));
        // Memory-bound work by the bytes its operators' shapes say it moved: 95% of it, 237 GB a step at 2,495 GB/s.
        const std::string& memory = a.fits[static_cast<size_t>(CalibratedTerm::MemoryBound)].evidence;
        QVERIFY2(memory.find("95% of it by kernels whose operators recorded shapes: 237.2 GB a step at 2,495 GB/s (52% "
                             "of HBM)")
                != std::string::npos,
            memory.c_str());
        const GemmShapeBin& longest = a.gemmShapes.front();
        QVERIFY(longest.m == 32768 && longest.n == 3072 && longest.k == 1024 && longest.precision == "bf16");
        QCOMPARE(longest.callsPerStep, 84.0);
        QVERIFY2(std::abs(longest.flopsPerSecond() / 692.7e12 - 1) < 0.002,
            std::to_string(longest.flopsPerSecond()).c_str());
        const auto matmulBasis = [&](const Scenario& x) {
            return calibratedPrediction(x, a, evaluate(x), 0.1).terms[static_cast<size_t>(CalibratedTerm::Matmul)];
        };
        QCOMPARE(matmulBasis(asRun).basis, TermBasis::Measured);
        // Carried to 16-bit weights, the memory-bound work the trace measured (its casts, its FP32 traffic) is not
        // the scenario's: extrapolated, not measured.
        Scenario sixteenBit = asRun;
        sixteenBit.flags.autocast = false;
        const CalibratedTermTime memoryBound = calibratedPrediction(sixteenBit, a, evaluate(sixteenBit), 0.1)
                                                   .terms[static_cast<size_t>(CalibratedTerm::MemoryBound)];
        QCOMPARE(memoryBound.basis, TermBasis::Extrapolated);
        QVERIFY2(
            memoryBound.why.find("16-bit weights where the trace ran FP32 weights under autocast") != std::string::npos,
            memoryBound.why.c_str());
        Scenario halfBatch = asRun;
        halfBatch.workload.microBatch = 4;
        QCOMPARE(matmulBasis(halfBatch).basis, TermBasis::Interpolated);
        // Attention: its forward and backward at 4,096 (cuDNN's flash kernels, 557 and 446 TFLOPS by the trace's
        // count). Half the micro-batch at the same sequence runs the shapes it ran; twice the sequence goes beyond.
        QCOMPARE(a.attentionShapes.size(), size_t(2));
        const auto attention = [&](const Scenario& x) {
            return calibratedPrediction(x, a, evaluate(x), 0.1).terms[static_cast<size_t>(CalibratedTerm::Attention)];
        };
        QCOMPARE(attention(halfBatch).basis, TermBasis::Measured);
        Scenario longer = halfBatch;
        longer.workload.seqLen = 8192;
        longer.workload.microBatch = 4;
        const CalibratedTermTime beyond = attention(longer);
        QCOMPARE(beyond.basis, TermBasis::Extrapolated);
        QVERIFY2(
            beyond.why.find("sequence 8,192: the trace's largest is 4,096") != std::string::npos, beyond.why.c_str());
        QCOMPARE(matmulBasis(longer).basis, TermBasis::Measured); // as many tokens: the GEMMs' shapes are the trace's
        // Another attention kernel keeps its own speed: the trace's factor on it, not the traced kernel's time.
        Scenario flash2 = asRun;
        flash2.flags.attentionKernel = AttentionKernel::FlashAttention2;
        const auto attentionRatio = [&](const Scenario& x) {
            return calibratedPrediction(x, a, evaluate(x), 0.1).calibrated.time.attention / evaluate(x).time.attention;
        };
        QVERIFY2(std::abs(attentionRatio(flash2) / attentionRatio(asRun) - 1) < 1e-6,
            std::to_string(attentionRatio(flash2)).c_str());
        QCOMPARE(attention(flash2).basis, TermBasis::Extrapolated);
        // The same shapes on two GPUs, data-parallel: the GEMMs take what the trace measured, not the published fit
        // (fitted on GPUs shared with collectives) times the lone GPU's factor.
        Scenario twoGpus = asRun;
        twoGpus.cluster.gpuCount = 2;
        const CalibratedTermTime sameShapes = matmulBasis(twoGpus);
        QCOMPARE(sameShapes.basis, TermBasis::Interpolated);
        const double tracedMatmul = a.fits[static_cast<size_t>(CalibratedTerm::Matmul)].measuredSeconds;
        QVERIFY2(std::abs(sameShapes.seconds / tracedMatmul - 1) < 0.005,
            (std::to_string(sameShapes.seconds) + " against " + std::to_string(tracedMatmul)).c_str());
        // TP 2 halves the 8 key/value heads' projections to 512 wide, narrower than any GEMM the trace ran.
        Scenario tp2 = asRun;
        tp2.cluster.gpuCount = 2;
        tp2.parallelism.tp = 2;
        const CalibratedTermTime split = matmulBasis(tp2);
        QCOMPARE(split.basis, TermBasis::Extrapolated);
        QVERIFY2(split.why.find("k_proj forward N 512") != std::string::npos, split.why.c_str());
        // A scenario of another model is refused by the work the trace's operators did, not fitted into nonsense.
        Scenario wrongModel = asRun;
        wrongModel.model = *test::shippedPresets().findModel("llama-3.1-8b");
        // In words the window's user can act on (its fields), the command line's flags beside them.
        try {
            calibrateFromTrace(wrongModel, run, { trace });
            QFAIL("a trace of another model was calibrated");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("set the traced model, sequence length and micro-batch (--model, --seq, --micro-batch "
                               "on the command line)")
                    != std::string::npos,
                e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestTraceCalibration)
#include "tst_trace_calibration.moc"
