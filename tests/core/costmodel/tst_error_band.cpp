// Error bands from the validation residuals, and the planner treating configurations inside the band as ties.
#include <QtTest>

#include <fstream>
#include <sstream>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/planner.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {
ErrorBandModel shippedBands()
{
    std::ifstream in(MFU_SOURCE_DIR "/presets/validation/runs.json");
    std::stringstream ss;
    ss << in.rdbuf();
    static const std::vector<ValidationRun> runs = validationRunsFromJson(ss.str(), shippedPresets(), "runs.json");
    return errorBandModelFrom(runValidation(runs));
}
} // namespace

class TestErrorBand : public QObject {
    Q_OBJECT

private slots:
    // Residuals -0.10, 0, +0.10, +0.20, +0.30 (hand): the 10th percentile is -0.10 + 0.4 x 0.10 = -0.06, the 90th
    // +0.20 + 0.6 x 0.10 = +0.26, so the measurement likely lies between P / 1.26 and P / 0.94.
    void percentilesOfSimilarRuns()
    {
        ErrorBandModel m;
        for (double e : { 0.0, 0.20, -0.10, 0.30, 0.10 })
            m.residuals.push_back({ "Hopper", false, e });
        m.residuals.push_back({ "Ampere", false, 5.0 }); // another generation: not similar
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        StepPrediction p;
        p.mfu = 0.5;
        p.tokensPerSecPerGpu = 1000;
        const ErrorBand b = errorBandFor(s, p, m);
        QCOMPARE(b.similarRuns, 5);
        QVERIFY(std::abs(b.tokensPerSecPerGpuLow - 1000 / 1.26) < 1e-9);
        QVERIFY(std::abs(b.tokensPerSecPerGpuHigh - 1000 / 0.94) < 1e-9);
        QVERIFY(std::abs(b.mfuLow - 0.5 / 1.26) < 1e-12);
        QCOMPARE(b.basis, std::string("5 published Hopper dense runs"));

        // At 95% predicted the upper end would be 101%: it stops at the peak, for MFU and throughput alike.
        p.mfu = 0.95;
        const ErrorBand capped = errorBandFor(s, p, m);
        QCOMPARE(capped.mfuHigh, 1.0);
        QVERIFY(std::abs(capped.tokensPerSecPerGpuHigh - 1000 / 0.95) < 1e-9);
        QVERIFY(std::abs(capped.mfuLow - 0.95 / 1.26) < 1e-12); // the lower end is untouched

        // HFU counts recompute: at 99% predicted it stops the band first, and every figure scales by the same capped
        // factor (the Predict panel's HFU band reached 111% and 2,501 TFLOPS on a 2,250 TFLOPS B200 before).
        p.hfu = 0.99;
        p.tflopsPerGpu = 900;
        p.stepTimeSeconds = 2.0;
        p.tokensPerSec = 8000;
        const ErrorBand byHfu = errorBandFor(s, p, m);
        QVERIFY(std::abs(byHfu.highFactor - 1 / 0.99) < 1e-12);
        QVERIFY(std::abs(byHfu.hfuHigh - 1.0) < 1e-12);
        QVERIFY(std::abs(byHfu.mfuHigh - 0.95 / 0.99) < 1e-12);
        QVERIFY(std::abs(byHfu.tflopsPerGpuHigh - 900 / 0.99) < 1e-9);
        QVERIFY(std::abs(byHfu.tokensPerSecHigh - 8000 / 0.99) < 1e-9);
        QVERIFY(std::abs(byHfu.stepTimeSecondsLow - 2.0 * 0.99) < 1e-12);
        QVERIFY(std::abs(byHfu.stepTimeSecondsHigh - 2.0 * 1.26) < 1e-12);
        QVERIFY(std::abs(byHfu.hfuLow - 0.99 / 1.26) < 1e-12);
    }
    void fallsBackAndHasAMinimumWidth()
    {
        ErrorBandModel m;
        m.residuals.push_back({ "Hopper", true, 0.0 });
        Scenario s = scenarioFor(llama31_8b(), "b200", 8, 8192);
        StepPrediction p;
        p.tokensPerSecPerGpu = 100;
        const ErrorBand b = errorBandFor(s, p, m); // no dense run anywhere: all runs, +-5% at least
        QCOMPARE(b.similarRuns, 1);
        QVERIFY(std::abs(b.tokensPerSecPerGpuLow - 100 / 1.05) < 1e-9);
        QVERIFY(std::abs(b.tokensPerSecPerGpuHigh - 100 / 0.95) < 1e-9);
        QCOMPARE(errorBandFor(s, p, ErrorBandModel {}).basis, std::string("no validation runs"));
    }
    // A model with layers beyond attention (Qwen3.5's Gated DeltaNet) gets the band of its dense peers, and the basis
    // says how few published runs measure such layers: none (unvalidated), or the hybrid class's count and miss.
    void hybridLayersAreMarkedUnvalidated()
    {
        ErrorBandModel m;
        for (double e : { 0.0, 0.1, -0.1 })
            m.residuals.push_back({ "Hopper", false, e });
        StepPrediction p;
        p.mfu = 0.5;
        p.tokensPerSecPerGpu = 1000;
        ModelSpec hybrid = llama31_8b();
        hybrid.linearAttention = GatedDeltaNetSpec { 8, 16, 128, 128, 4 };
        hybrid.layerPattern = { { 24, { TokenMixer::LinearAttention, ChannelMixer::DenseMlp, 0 } },
            { 8, { TokenMixer::FullAttention, ChannelMixer::DenseMlp, 0 } } };
        validateModelSpec(hybrid);
        const ErrorBand b = errorBandFor(scenarioFor(hybrid, "h100-sxm", 8, 8192), p, m);
        QVERIFY2(b.basis.find("unvalidated for this model's linear-attention") != std::string::npos, b.basis.c_str());
        const ErrorBand dense = errorBandFor(scenarioFor(llama31_8b(), "h100-sxm", 8, 8192), p, m);
        QVERIFY(dense.basis.find("unvalidated") == std::string::npos);
        QCOMPARE(b.mfuLow, dense.mfuLow);
        // Once the table has hybrid runs, the basis says how many and how far they missed, not "no published run".
        m.classes.push_back({ "token mixers", "hybrid", 3, 0.49, 0.556, 0.49, 0.556, 0.44 });
        const ErrorBand seen = errorBandFor(scenarioFor(hybrid, "h100-sxm", 8, 8192), p, m);
        QVERIFY2(seen.basis.find("linear-attention, Mamba or sparse-attention layers barely validated: 3 out-of-sample "
                                 "runs, missed by 49% on average (optimistic)")
                != std::string::npos,
            seen.basis.c_str());
        QVERIFY(seen.basis.find("no published run") == std::string::npos);
        // No well-covered class here to set the other side: only the side the hybrid runs missed on is named.
        QVERIFY2(seen.basis.find("at least 56% optimistic (class hybrid") != std::string::npos, seen.basis.c_str());
        QVERIFY(errorBandFor(scenarioFor(llama31_8b(), "h100-sxm", 8, 8192), p, m).basis.find("barely")
            == std::string::npos);
    }
    // The class widening (error_band.h): Hopper dense residuals within +-2% give the 5% minimum; classes with enough
    // out-of-sample runs leave it there (the similar runs speak for them); a class with too few runs widens it to the
    // widest expected miss of any class that has enough, or to its own runs' largest miss if that is larger.
    void classesWidenTheBand()
    {
        ErrorBandModel m;
        for (double e : { -0.02, -0.01, 0.0, 0.01, 0.02 })
            m.residuals.push_back({ "Hopper", false, e });
        const Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        StepPrediction p;
        p.mfu = 0.4;
        p.tokensPerSecPerGpu = 1000;
        QCOMPARE(errorBandFor(s, p, m).tokensPerSecPerGpuLow, 1000 / 1.05);

        const auto group = [](const char* axis, const char* name, int runs, double meanAbs) {
            return ValidationGroup { axis, name, runs, meanAbs, meanAbs, 0.0 };
        };
        m.classes = { group("gpu class", "Hopper", 40, 0.12), group("expert parallel span", "no EP", 60, 0.08),
            group("precision", "bf16", 50, 0.10), group("token mixers", "attention only", 90, 0.09),
            group("experts", "dense", 45, 0.11), group("experts", "MoE", 30, 0.30),
            group("host", "GPU-bound", 200, 0.1), group("host", "host-bound MoE", 1, 0.06) };
        const ErrorBand covered = errorBandFor(s, p, m); // every class of the scenario well covered: no widening
        QCOMPARE(covered.classOptimisticWidth, 0.0);
        QCOMPARE(covered.classPessimisticWidth, 0.0);
        QCOMPARE(covered.tokensPerSecPerGpuLow, 1000 / 1.05);
        // The same scenario predicted to wait on the host after its MoE dispatches for a fifth of the step is of the
        // host-bound class, which one run measures: the widest well-covered class's 30% on both sides.
        StepPrediction hostBound = p;
        hostBound.stepTimeSeconds = 1.0;
        hostBound.time.moeHostStall = 0.2;
        QCOMPARE(validationClassesOf(s, hostBound).host, std::string("host-bound MoE"));
        QCOMPARE(validationClassesOf(s, p).host, std::string("GPU-bound"));
        const ErrorBand waits = errorBandFor(s, hostBound, m);
        QVERIFY(std::abs(waits.classOptimisticWidth - 0.30) < 1e-12);
        QVERIFY(std::abs(waits.classPessimisticWidth - 0.30) < 1e-12);
        QVERIFY2(
            waits.basis.find("class host-bound MoE: 1 out-of-sample runs") != std::string::npos, waits.basis.c_str());
        hostBound.time.moeHostStall = 0.05; // a twentieth: GPU-bound
        QCOMPARE(errorBandFor(s, hostBound, m).classOptimisticWidth, 0.0);

        m.classes.front().runs = kMinClassRuns - 1; // too few Hopper runs: the widest class with enough, MoE's 30%
        const ErrorBand few = errorBandFor(s, p, m);
        QVERIFY(std::abs(few.classOptimisticWidth - kClassBandFactor * 0.30) < 1e-12);
        QVERIFY(std::abs(few.classPessimisticWidth - kClassBandFactor * 0.30) < 1e-12);
        QVERIFY2(few.basis.find("fewer than") != std::string::npos, few.basis.c_str());
        // The planner's tie tolerance stays the similar runs' band (5% here), whatever the classes say.
        QVERIFY(std::abs(plannerTieTolerance(s, m) - (1 - 1 / 1.05)) < 1e-12);

        // When the few Hopper runs themselves missed by more (45% optimistic at worst), their largest miss sets the
        // width on the side they missed on; the other side keeps the widest class's 30%.
        m.classes.front().maxAbsError = 0.45;
        m.classes.front().maxError = 0.45;
        m.classes.front().minError = 0.10;
        const ErrorBand ownMiss = errorBandFor(s, p, m);
        QVERIFY(std::abs(ownMiss.classOptimisticWidth - 0.45) < 1e-12);
        QVERIFY(std::abs(ownMiss.classPessimisticWidth - 0.30) < 1e-12);
        QVERIFY(std::abs(ownMiss.tokensPerSecPerGpuLow - 1000 / 1.45) < 1e-9);
        QVERIFY(std::abs(ownMiss.tokensPerSecPerGpuHigh - 1000 / 0.70) < 1e-9);
        QVERIFY2(ownMiss.basis.find("at least 45% optimistic, 30% pessimistic (class Hopper: 4 out-of-sample runs, "
                                    "fewer than 5, so their largest miss)")
                != std::string::npos,
            ownMiss.basis.c_str());
        // Runs on both sides (+30%, +30%, -50%: a mean near 0) widen each side by its own worst run, not the mean's
        // side by the largest magnitude.
        m.classes.front().maxError = 0.30;
        m.classes.front().minError = -0.50;
        m.classes.front().maxAbsError = 0.50;
        m.classes.front().meanError = 0.03;
        const ErrorBand mixed = errorBandFor(s, p, m);
        QVERIFY(std::abs(mixed.classOptimisticWidth - 0.30) < 1e-12);
        QVERIFY(std::abs(mixed.classPessimisticWidth - 0.50) < 1e-12);
        QVERIFY(std::abs(mixed.tokensPerSecPerGpuLow - 1000 / 1.30) < 1e-9);
        QVERIFY(std::abs(mixed.tokensPerSecPerGpuHigh - 1000 / 0.50) < 1e-9);
        // A class with no run at all has no miss of its own: the widest class's width, as before.
        m.classes.front().runs = 0;
        QVERIFY(std::abs(errorBandFor(s, p, m).classPessimisticWidth - kClassBandFactor * 0.30) < 1e-12);

        // A widening on the side the similar runs left narrow is named even when their other side is wider: similar
        // runs from -40% to +10%, a class of 31% each way widens only the optimistic side.
        ErrorBandModel skewed;
        for (double e : { -0.40, -0.40, -0.40, 0.10, 0.10 })
            skewed.residuals.push_back({ "Hopper", false, e });
        skewed.classes = m.classes;
        skewed.classes.front().runs = 1;
        skewed.classes.front().maxError = skewed.classes.front().minError = 0.0;
        for (ValidationGroup& g : skewed.classes)
            if (g.name == "MoE")
                g.meanAbsError = 0.31;
        const ErrorBand named = errorBandFor(s, p, skewed);
        QVERIFY2(named.basis.find("at least \u00B131%") != std::string::npos, named.basis.c_str());
    }

    // Widening only: every published run whose measurement the similar runs' band held is still held by the band with
    // the classes, and the class band holds at least as many.
    void classBandHoldsWhatTheBandHeldBefore()
    {
        std::ifstream in(MFU_SOURCE_DIR "/presets/validation/runs.json");
        std::stringstream ss;
        ss << in.rdbuf();
        const std::vector<ValidationRun> runs = validationRunsFromJson(ss.str(), shippedPresets(), "runs.json");
        const ValidationReport report = runValidation(runs);
        const ErrorBandModel withClasses = errorBandModelFrom(report);
        ErrorBandModel without = withClasses;
        without.classes.clear();
        int before = 0, after = 0;
        for (const ValidationRow& row : report.rows) {
            const double measured = row.run->measuredTokensPerSecPerGpu;
            const auto holds = [&](const ErrorBand& b) {
                return b.tokensPerSecPerGpuLow <= measured && measured <= b.tokensPerSecPerGpuHigh;
            };
            const bool was = holds(errorBandFor(row.run->scenario, row.prediction, without));
            const bool is = holds(errorBandFor(row.run->scenario, row.prediction, withClasses));
            QVERIFY2(!was || is, row.run->id.c_str());
            before += was ? 1 : 0;
            after += is ? 1 : 0;
        }
        qInfo("measurement inside its own band: %d of %zu runs with the classes, %d without", after, report.rows.size(),
            before);
        QVERIFY(after >= before);
        QVERIFY(!withClasses.classes.empty());
    }
    void shippedBandContainsThePrediction()
    {
        const Scenario s = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192, 1, ActivationCheckpointing::Selective);
        const StepPrediction p = evaluate(s);
        const ErrorBand b = errorBandFor(s, p, shippedBands());
        QVERIFY(b.similarRuns >= kMinSimilarRuns);
        QVERIFY(b.mfuLow < p.mfu && p.mfu < b.mfuHigh);
        QVERIFY(b.tokensPerSecPerGpuLow < p.tokensPerSecPerGpu && p.tokensPerSecPerGpu < b.tokensPerSecPerGpuHigh);
    }

    // A MoE that every rank computes whole (FSDP over its experts, no all-to-all) is a class of its own on the EP axis,
    // not the dense runs' "no EP": the table has no such run, so its band is the widest class's, where the MoE runs
    // with EP, all of them, would have set a narrow one. With EP it joins the runs that have it.
    void moeWithoutExpertParallelismIsItsOwnClass()
    {
        const ErrorBandModel shipped = shippedBands();
        Scenario s = scenarioFor(mixtral_8x7b(), "b200", 8, 4096);
        QCOMPARE(validationClassesOf(s, evaluate(s)).expertParallel, std::string("MoE without EP"));
        const ErrorBand whole = errorBandFor(s, evaluate(s), shipped);
        QVERIFY2(
            whole.basis.find("class MoE without EP: 0 out-of-sample runs") != std::string::npos, whole.basis.c_str());
        double widest = 0;
        for (const ValidationGroup& g : shipped.classes)
            if (g.runs >= kMinClassRuns)
                widest = std::max(widest, kClassBandFactor * g.meanAbsError);
        QVERIFY(widest > 0.2);
        QVERIFY(whole.classOptimisticWidth >= widest && whole.classPessimisticWidth >= widest);

        s.parallelism.ep = 8;
        const StepPrediction withEp = evaluate(s);
        QCOMPARE(validationClassesOf(s, withEp).expertParallel, std::string("EP inside the NVLink domain"));
        QVERIFY2(errorBandFor(s, withEp, shipped).basis.find("MoE without EP") == std::string::npos,
            errorBandFor(s, withEp, shipped).basis.c_str());
        const Scenario dense = scenarioFor(llama31_8b(), "b200", 8, 4096);
        QCOMPARE(validationClassesOf(dense, evaluate(dense)).expertParallel, std::string("no EP"));
    }

    // Precedent: the highest MFU a published run of the same generation, architecture and precision measured, and
    // whether the prediction (by the same count) is above it. Hand residuals: the best Hopper dense BF16 run measured
    // 0.60; an Ampere run, an FP8 run and a MoE run measured more but are not like it.
    void precedentOfTheSimilarRuns()
    {
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        ErrorBandModel m;
        m.residuals.push_back({ "Hopper", false, 0.0, false, 0.40, "a" });
        m.residuals.push_back({ "Hopper", false, 0.1, false, 0.60, "run-b" });
        m.residuals.push_back({ "Hopper", false, -0.1, false, 0.0, "unknown" }); // no measurement known: never best
        m.residuals.push_back({ "Ampere", false, 0.0, false, 0.95, "other generation" });
        m.residuals.push_back({ "Hopper", false, 0.0, false, 0.90, "fp8", TrainingPrecision::BF16_FP8 });
        m.residuals.push_back({ "Hopper", true, 0.0, false, 0.90, "moe" });
        StepPrediction p;
        const double perThousand = executedMfuOf(s, 1000);
        QVERIFY(perThousand > 0);
        p.tokensPerSecPerGpu = 1000 * 0.55 / perThousand; // 55% of the peak executed: below the best
        ErrorBand b = errorBandFor(s, p, m);
        QCOMPARE(b.publishedBestRun, std::string("run-b"));
        QCOMPARE(b.publishedBestMfu, 0.60);
        QVERIFY(!b.abovePublishedBest);
        QCOMPARE(b.basis, std::string("4 published Hopper dense runs"));
        p.tokensPerSecPerGpu = 1000 * 0.65 / perThousand; // 65%: above every one of them
        b = errorBandFor(s, p, m);
        QVERIFY(b.abovePublishedBest);
        QCOMPARE(b.basis,
            std::string(
                "4 published Hopper dense runs; above every Hopper dense BF16 run in the validation table, "
                "counting the FLOPs executed (attention halved by the causal mask, as the table compares runs): "
                "65.0% predicted, where the best, run-b, measured 60.0%"));

        // Residuals without measurements (a hand-made model): no precedent, nothing said.
        ErrorBandModel bare;
        for (double e : { 0.0, 0.1, -0.1 })
            bare.residuals.push_back({ "Hopper", false, e });
        b = errorBandFor(s, p, bare);
        QCOMPARE(b.publishedBestMfu, 0.0);
        QVERIFY(!b.abovePublishedBest);
        QVERIFY(b.publishedBestRun.empty());
    }

    // executedMfuOf is the prediction's own MFU when the scenario reports the executed count: one figure, one function.
    void executedMfuIsThePredictionsUnderTheCausalCount()
    {
        Scenario s = scenarioFor(llama31_8b(), "b200", 8, 32768);
        s.mfuFormula = FlopFormula::PerComponentCausal;
        const StepPrediction p = evaluate(s);
        QVERIFY(std::abs(executedMfuOf(s, p.tokensPerSecPerGpu) - p.mfu) < 1e-12 * p.mfu);
    }

    // Llama 3.1 8B on 16 A100 at 8k with torch.compile reads above every published Ampere dense BF16 run, and the
    // band's basis says so; eager, it reads below the best of them.
    void shippedPrecedentOnAmpere()
    {
        Scenario s = scenarioFor(llama31_8b(), "a100-sxm-80gb", 16, 8192);
        const StepPrediction compiledPrediction = evaluate(s);
        const ErrorBand compiled = errorBandFor(s, compiledPrediction, shippedBands());
        QVERIFY(!compiled.publishedBestRun.empty());
        QVERIFY(compiled.publishedBestMfu > 0.5 && compiled.publishedBestMfu < 0.7);
        QVERIFY(compiled.abovePublishedBest);
        QVERIFY(compiled.basis.find("above every Ampere dense BF16 run in the validation table") != std::string::npos);
        s.flags.compiled = false;
        const ErrorBand eager = errorBandFor(s, evaluate(s), shippedBands());
        QCOMPARE(eager.publishedBestRun, compiled.publishedBestRun);
        QVERIFY(!eager.abovePublishedBest);
        QVERIFY(eager.basis.find("above every") == std::string::npos);
    }

    // Lambda's MFU paper (Llama 3.1 70B on 16 HGX B200): plain FSDP (TP 1) with selective checkpointing measured
    // best. Within the error band of the fastest predicted layout it ties, and as the simplest it ranks first.
    void plannerPrefersTheSimplerLayoutInsideTheBand()
    {
        const Scenario s = scenarioFor(llama31_70b(), "b200", 16, 8192);
        const PlanResult strict = planConfigurations(s);
        QVERIFY(!strict.configs.empty());
        PlannerOptions o;
        o.tieTolerance = plannerTieTolerance(s, shippedBands());
        QVERIFY(o.tieTolerance > 0.04);
        const PlanResult tied = planConfigurations(s, o);
        QVERIFY(!tied.configs.empty());
        const PlannedConfig& first = tied.configs.front();
        QCOMPARE(first.parallelism.tp, 1);
        QCOMPARE(first.parallelism.pp, 1);
        QCOMPARE(first.parallelism.cp, 1);
        QVERIFY(first.tiesWithBest);
        QVERIFY2(QString::fromStdString(first.reason).contains("error band"), first.reason.c_str());
        // Ties come first, each at least (1 - tolerance) of the fastest.
        const double fastest = strict.configs.front().prediction.tokensPerSec;
        for (const auto& c : tied.configs)
            if (c.tiesWithBest)
                QVERIFY(c.prediction.tokensPerSec >= fastest * (1 - o.tieTolerance) - 1e-9);
        // The fastest layout says it is the fastest, not that it lies within the band of the fastest.
        for (const auto& c : tied.configs) {
            const bool isFastest = c.prediction.tokensPerSec >= fastest;
            QVERIFY2(isFastest == QString::fromStdString(c.reason).contains("; the fastest"), c.reason.c_str());
            if (isFastest)
                QVERIFY2(!QString::fromStdString(c.reason).contains("of the fastest, so a tie"), c.reason.c_str());
        }
        // Without a tolerance the order is by throughput alone (unchanged behaviour).
        for (size_t i = 1; i < strict.configs.size(); ++i)
            QVERIFY(strict.configs[i - 1].prediction.tokensPerSec >= strict.configs[i].prediction.tokensPerSec);
    }
};

QTEST_APPLESS_MAIN(TestErrorBand)
#include "tst_error_band.moc"
