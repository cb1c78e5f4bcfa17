// The planner against the rules of thumb of Lambda's MFU paper. Each test checks the planner's choice for a situation
// where the rule applies; none of the rules is coded in the planner, they come out of the cost model.
#include <QtTest>

#include <array>
#include <atomic>
#include <cmath>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/planner.h"
#include "core/units.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;
using AC = ActivationCheckpointing;

namespace {
PlannedConfig best(const Scenario& s, const PlannerOptions& o = {})
{
    const PlanResult r = planConfigurations(s, o);
    if (r.configs.empty())
        qFatal("nothing fits");
    return r.configs.front();
}
} // namespace

class TestPlanner : public QObject {
    Q_OBJECT
private slots:
    // A layout is named by the parallelism it runs: one shard is no FSDP ("FSDP 1" on one GPU, or in front of an
    // all-TP group, named a data parallelism that does not run), and no checkpointing is "no AC", not "none AC".
    void configNamesOnlyTheParallelismThatRuns()
    {
        PlannedConfig one;
        one.fsdpShards = 1;
        one.microBatch = 1;
        QCOMPARE(describeConfig(one), std::string("one GPU, no parallelism, no AC, micro-batch 1"));
        PlannedConfig tp = one;
        tp.parallelism.tp = 8;
        tp.parallelism.pp = 2;
        tp.activationCheckpointing = ActivationCheckpointing::Full;
        QCOMPARE(describeConfig(tp), std::string("TP 8 x PP 2, full AC, micro-batch 1"));
        PlannedConfig sharded = tp;
        sharded.fsdpShards = 2;
        QCOMPARE(describeConfig(sharded), std::string("FSDP 2 x TP 8 x PP 2, full AC, micro-batch 1"));
        PlannedConfig replicas = one;
        replicas.parallelism.hsdpReplicas = 4;
        QCOMPARE(describeConfig(replicas), std::string("4 HSDP replicas x FSDP 1, no AC, micro-batch 1"));
        // Ranks that hold whole weights are named by their kind, never as FSDP.
        PlannedConfig ddp = sharded;
        ddp.parallelism.dataParallel = DataParallelKind::Ddp;
        QCOMPARE(describeConfig(ddp), std::string("DDP 2 x TP 8 x PP 2, full AC, micro-batch 1"));
        ddp.parallelism.dataParallel = DataParallelKind::Zero1;
        QCOMPARE(describeConfig(ddp), std::string("ZeRO-1 2 x TP 8 x PP 2, full AC, micro-batch 1"));
        ddp.parallelism.dataParallel = DataParallelKind::MegatronFsdp;
        QCOMPARE(describeConfig(ddp), std::string("Megatron-FSDP 2 x TP 8 x PP 2, full AC, micro-batch 1"));
    }

    // DDP and ZeRO-1 replicate or shard no weight group: the planner searches no HSDP replicas for them (a DDP plan
    // listed one layout three times, as "2 HSDP replicas x FSDP 2", "4 HSDP replicas x FSDP 1" and "FSDP 4", each
    // at the same MFU), and the scenario's own layout reads in the same words.
    void ranksWithWholeWeightsHaveNoReplicas()
    {
        for (const DataParallelKind kind : { DataParallelKind::Ddp, DataParallelKind::Zero1 }) {
            Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 16, 8192);
            s.parallelism.dataParallel = kind;
            const PlanResult r = planConfigurations(s);
            QVERIFY(!r.configs.empty());
            for (const PlannedConfig& c : r.configs) {
                QCOMPARE(c.parallelism.hsdpReplicas, 1);
                QVERIFY2(describeConfig(c).find("FSDP") == std::string::npos, describeConfig(c).c_str());
                QVERIFY2(c.reason.find("FSDP") == std::string::npos, c.reason.c_str()); // "DDP spans 2 domains"
            }
            QCOMPARE(describeLayout(s).substr(0, 6), std::string(kind == DataParallelKind::Ddp ? "DDP 16" : "ZeRO-1"));
        }
    }

    // Rule 1: prefer no AC, no TP/CP/PP, maximise data parallelism - while memory allows.
    void noModelParallelismWhileMemoryAllows_data()
    {
        QTest::addColumn<int>("seq");
        QTest::newRow("8k") << 8192;
        QTest::newRow("16k") << 16384;
        QTest::newRow("32k") << 32768;
    }
    void noModelParallelismWhileMemoryAllows()
    {
        QFETCH(int, seq);
        const PlannedConfig c = best(scenarioFor(llama31_8b(), "b200", 8, seq));
        QCOMPARE(c.parallelism.tp, 1);
        QCOMPARE(c.parallelism.pp, 1);
        QCOMPARE(c.parallelism.cp, 1);
        QCOMPARE(c.activationCheckpointing, AC::None);
        QCOMPARE(c.fsdpShards * c.parallelism.hsdpReplicas, 8); // every GPU is a data-parallel rank
    }

    // Rule 2: TP only inside NVSwitch domains. The search is allowed to cross; the planner still does not.
    void tpStaysInsideTheDomain_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::newRow("70B on 16 H100") << "h100-sxm" << 16;
        QTest::newRow("70B on 16 B200") << "b200" << 16;
        QTest::newRow("70B on 32 H100") << "h100-sxm" << 32;
    }
    void tpStaysInsideTheDomain()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        PlannerOptions o;
        o.tpWithinDomain = false;
        const Scenario s = scenarioFor(llama31_70b(), qPrintable(gpu), gpus, 8192);
        const PlanResult r = planConfigurations(s, o);
        QVERIFY(!r.configs.empty());
        for (const auto& c : r.configs)
            QVERIFY2(c.parallelism.tp <= s.cluster.domainSize(), qPrintable(QString::fromStdString(describeConfig(c))));
    }

    // Rule 3a: as memory per GPU shrinks, checkpointing grows from selective to full (70B at 8k on H100s).
    void checkpointingGrowsAsMemoryShrinks()
    {
        const PlannedConfig roomy = best(scenarioFor(llama31_70b(), "h100-sxm", 64, 8192));
        const PlannedConfig tight = best(scenarioFor(llama31_70b(), "h100-sxm", 16, 8192));
        QCOMPARE(roomy.activationCheckpointing, AC::Selective);
        QCOMPARE(tight.activationCheckpointing, AC::Full);
    }

    // Rule 3b: CP comes after TP - whenever the planner splits sequences, it has already split the weights.
    void contextParallelOnlyAfterTensorParallel_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("seq");
        for (int seq : { 8192, 16384, 32768, 65536, 131072 }) {
            QTest::newRow(qPrintable(QString("8B on 8 H100 at %1").arg(seq))) << "8b" << 8 << seq;
            QTest::newRow(qPrintable(QString("70B on 64 H100 at %1").arg(seq))) << "70b" << 64 << seq;
        }
    }
    void contextParallelOnlyAfterTensorParallel()
    {
        QFETCH(QString, model);
        QFETCH(int, gpus);
        QFETCH(int, seq);
        const PlannedConfig c = best(scenarioFor(model == "8b" ? llama31_8b() : llama31_70b(), "h100-sxm", gpus, seq));
        if (c.parallelism.cp > 1)
            QVERIFY2(c.parallelism.tp > 1, qPrintable(QString::fromStdString(describeConfig(c))));
    }

    // Rule 4: with HSDP, one replica per rack: the FSDP group fills an NVL72 rack and only gradients cross racks.
    void oneHsdpReplicaPerRack()
    {
        const Scenario s = scenarioFor(llama31_405b(), "gb300", 128, 8192);
        double bestTokens = 0;
        int bestReplicas = 0;
        for (int replicas : { 2, 4, 8, 16 }) {
            PlannerOptions o;
            o.fixedHsdpReplicas = replicas;
            const PlanResult r = planConfigurations(s, o);
            if (!r.configs.empty() && r.configs.front().prediction.tokensPerSec > bestTokens) {
                bestTokens = r.configs.front().prediction.tokensPerSec;
                bestReplicas = replicas;
            }
        }
        QCOMPARE(bestReplicas, 2);
        // A model small enough to leave memory free keeps every FSDP group inside one rack.
        const PlannedConfig small = best(scenarioFor(llama31_8b(), "gb300", 144, 8192));
        QVERIFY(small.parallelism.hsdpReplicas > 1);
        QVERIFY(small.fsdpShards * small.parallelism.cp * small.parallelism.tp <= 72);
    }

    // Left free, the default constants let flat FSDP x TP 2 win for 405B on two racks (docs/cost-model.md says why).
    // When rings cross a rack at one or two NICs' speed, one HSDP replica per rack comes out on top.
    void hsdpPerRackWhenCrossRackRingsAreSlow_data()
    {
        QTest::addColumn<int>("rings");
        QTest::newRow("1 ring") << 1;
        QTest::newRow("2 rings") << 2;
    }
    void hsdpPerRackWhenCrossRackRingsAreSlow()
    {
        QFETCH(int, rings);
        Scenario s = scenarioFor(llama31_405b(), "gb300", 128, 8192);
        CostModelConstants c = costModelConstantsFor(s);
        c.crossDomainRings = rings;
        s.costModel = c;
        const PlannedConfig choice = best(s);
        QCOMPARE(choice.parallelism.hsdpReplicas, 2);
        QVERIFY(choice.fsdpShards * choice.parallelism.cp * choice.parallelism.tp <= 72);
    }

    // Lambda's MFU paper, 2.5.2: on large clusters moderate TP pays, because it shrinks the FSDP world.
    void tensorParallelPaysAtScale()
    {
        Scenario s = scenarioFor(llama31_405b(), "h100-sxm", 16384, 8192);
        s.workload.globalBatchTokens = 16 * 1024 * 1024;
        const PlannedConfig c = best(s);
        QVERIFY(c.parallelism.tp > 1);
        QVERIFY(c.fsdpShards * c.parallelism.cp < 16384 / c.parallelism.tp);
    }

    void resultsAreRankedAndApplicable()
    {
        const Scenario s = scenarioFor(llama31_70b(), "b200", 16, 8192);
        const PlanResult r = planConfigurations(s);
        QVERIFY(r.evaluated > 1000);
        QVERIFY(r.fitting > 0 && r.fitting <= r.evaluated);
        QCOMPARE(r.globalBatchTokens, int64_t(16) * 8192);
        QCOMPARE(int(r.configs.size()), PlannerOptions {}.topN);
        for (size_t i = 1; i < r.configs.size(); ++i)
            QVERIFY(r.configs[i - 1].prediction.tokensPerSec >= r.configs[i].prediction.tokensPerSec);
        for (const auto& c : r.configs) {
            QVERIFY(c.prediction.fits);
            QVERIFY(!c.reason.empty());
            Scenario applied = withConfig(s, c);
            applied.workload.globalBatchTokens = r.globalBatchTokens;
            QCOMPARE(evaluate(applied).tokensPerSec, c.prediction.tokensPerSec);
        }
    }

    // Every layout runs the batch the plan says it compared at: a micro-batch of 4 on 8 data-parallel ranks (65,536
    // tokens at 2k) ranked first for a 16,384-token batch, because larger micro-batches run faster.
    void everyLayoutRunsTheStatedBatch()
    {
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 2048);
        s.workload.globalBatchTokens = 16384;
        const PlanResult r = planConfigurations(s);
        QCOMPARE(r.globalBatchTokens, int64_t(16384));
        QVERIFY(!r.configs.empty());
        QVERIFY(r.offBatch > 0);
        for (const auto& c : r.configs) {
            QCOMPARE(c.prediction.tokensPerStep, 16384.0);
            QVERIFY(c.microBatch * 2048 * c.fsdpShards * c.parallelism.hsdpReplicas <= 16384);
        }
        QVERIFY(whyNothingPlanned(r).empty());

        // "A 4M-token batch" of 4,000,000 is 488.3 sequences of 8,192: every layout rounds it up to whole micro-steps
        // within 5% (65,536-token micro-steps: 62 of them, 4,063,232 tokens), none runs far more.
        Scenario big = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        big.workload.globalBatchTokens = 4'000'000;
        const PlanResult rounded = planConfigurations(big);
        QVERIFY(!rounded.configs.empty());
        for (const auto& c : rounded.configs)
            QVERIFY2(c.prediction.tokensPerStep >= 4e6 && c.prediction.tokensPerStep <= 4.2e6,
                qPrintable(QString::number(c.prediction.tokensPerStep)));
        QVERIFY(runsBatch(4'000'000, 65'536));
        QVERIFY(!runsBatch(100'000, 16'384)); // 7 micro-steps: 114,688, 15% over
        QVERIFY(!runsBatch(16'384, 32'768)); // one micro-step is already twice the batch

        // Half a sequence per step: no layout can run it, and the plan says why instead of "nothing fits".
        s.workload.globalBatchTokens = 1024;
        const PlanResult none = planConfigurations(s);
        QVERIFY(none.configs.empty());
        QCOMPARE(none.evaluated, int64_t(0));
        const std::string why = whyNothingPlanned(none);
        QVERIFY2(why.find("No layout runs a global batch of 1,024 tokens") == 0, why.c_str());
        QVERIFY2(why.find("multiple of 16,384 tokens") != std::string::npos, why.c_str());

        // When no layout can be laid out at all, the plan says why instead of blaming memory.
        s.workload.globalBatchTokens = 16384;
        s.flags.fsdpPrefetchLayers = 33; // beyond Llama 3.1 8B's 32 layers
        const PlanResult invalid = planConfigurations(s);
        QVERIFY(invalid.configs.empty());
        const std::string because = whyNothingPlanned(invalid);
        QVERIFY2(because.find("No layout can be laid out: FSDP prefetch") == 0, because.c_str());
        // With the figures that break it, as every refusal (issue 35).
        QVERIFY2(because.find("(prefetch 33, 32 layers per stage)") != std::string::npos, because.c_str());
    }

    void progressAndCancel()
    {
        const Scenario s = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192);
        std::vector<double> seen;
        const PlanResult full = planConfigurations(s, {}, [&](double f) { seen.push_back(f); });
        QVERIFY(seen.size() > 2);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(!full.cancelled);

        std::atomic<bool> cancel { false };
        int calls = 0;
        const PlanResult stopped = planConfigurations(
            s, {}, [&](double) { cancel = ++calls >= 3; }, &cancel);
        QVERIFY(stopped.cancelled);
        QVERIFY(stopped.evaluated < full.evaluated);
    }

    void mixtureOfExpertsSearchesExpertParallelism()
    {
        const Scenario s = scenarioFor(mixtral_8x7b(), "h100-sxm", 64, 4096);
        PlannerOptions o;
        o.topN = 50;
        const PlanResult r = planConfigurations(s, o);
        QVERIFY(!r.configs.empty());
        bool sawEp = false;
        for (const auto& c : r.configs) {
            QCOMPARE(8 % c.parallelism.ep, 0);
            sawEp = sawEp || c.parallelism.ep > 1;
        }
        QVERIFY(sawEp);
    }

    // The ranking rule (plannerRankingRule) is obeyed: inside the band every configuration is no less simple than the
    // one after it, key by key in the rule's order; a layout with more headroom ranks before one that reads the
    // same otherwise. An MoE on 64 H100 at a 17% band, where the earlier sum of TP + PP + CP + EP + checkpointing
    // ranked a checkpointed layout using all of its memory above a faster one without checkpointing.
    void tiesFollowTheStatedRule()
    {
        const Scenario s = scenarioFor(mixtral_8x7b(), "h100-sxm", 64, 4096);
        PlannerOptions o;
        o.topN = 30;
        o.tieTolerance = 0.17;
        const PlanResult r = planConfigurations(s, o);
        QVERIFY(r.configs.size() > 5);
        const auto keys = [](const PlannedConfig& c) {
            const auto& p = c.parallelism;
            return std::array<long long, 5> { memoryHeadroomBytes(c.prediction)
                    < kTightMemoryFraction * c.prediction.memoryCapacityBytes,
                static_cast<long long>(p.tp) * p.pp * p.cp,
                static_cast<long long>(c.activationCheckpointing) * 2 + (c.recomputeModules ? 1 : 0),
                static_cast<long long>(p.ep) * std::max(1, p.expertTp),
                static_cast<long long>(p.virtualStages) + (p.embeddingStage ? 1 : 0) };
        };
        const auto tenths
            = [](const PlannedConfig& c) { return std::floor(memoryHeadroomBytes(c.prediction) / kGiB * 10); };
        int ties = 0;
        for (size_t i = 1; i < r.configs.size(); ++i) {
            const PlannedConfig& a = r.configs[i - 1];
            const PlannedConfig& b = r.configs[i];
            if (!b.tiesWithBest)
                break;
            ++ties;
            const QString at = QStringLiteral("#%1 %2 / #%3 %4")
                                   .arg(i)
                                   .arg(QString::fromStdString(describeConfig(a)))
                                   .arg(i + 1)
                                   .arg(QString::fromStdString(describeConfig(b)));
            QVERIFY2(keys(a) <= keys(b), qPrintable(at));
            if (keys(a) == keys(b))
                QVERIFY2(tenths(a) >= tenths(b), qPrintable(at));
        }
        QVERIFY(ties > 3);
        // The first is the simplest of every fitting layout in the band, not only of the fastest few.
        PlannerOptions all = o;
        all.tieTolerance = 0;
        all.topN = 5000;
        const PlanResult every = planConfigurations(s, all);
        const double threshold = every.configs.front().prediction.tokensPerSec * (1 - o.tieTolerance);
        // The list covers the band: it reaches below it, or it holds every layout that fits.
        QVERIFY2(every.configs.back().prediction.tokensPerSec < threshold
                || every.configs.size() < static_cast<size_t>(all.topN),
            qPrintable(QString::number(every.configs.size())));
        auto simplest = keys(r.configs.front());
        for (const auto& c : every.configs)
            if (c.prediction.tokensPerSec >= threshold)
                simplest = std::min(simplest, keys(c));
        QVERIFY(keys(r.configs.front()) == simplest);
        // The rule is said in words, naming the band, and every tie's reason points to it.
        const std::string rule = plannerRankingRule(o.tieTolerance);
        QVERIFY2(rule.find("17%") != std::string::npos && rule.find("model-parallel") != std::string::npos
                && rule.find("headroom") != std::string::npos
                && rule.find("2% of the GPU's memory free") != std::string::npos,
            rule.c_str());
        QCOMPARE(plannerRankingRule(0), std::string("Ranked by predicted tokens/s alone."));
    }

    // When the band ties every configuration shown, the order carries no speed information: one sentence says so.
    void allTiedIsSaid()
    {
        const Scenario s = scenarioFor(mixtral_8x7b(), "h100-sxm", 64, 4096);
        PlannerOptions o;
        o.topN = 5;
        o.tieTolerance = 0.5;
        const PlanResult wide = planConfigurations(s, o);
        QCOMPARE(wide.configs.size(), size_t(5));
        const std::string note = planOrderNote(wide, o.tieTolerance);
        QVERIFY2(note.find("All 5 layouts shown lie within the 50% error band") != std::string::npos, note.c_str());
        o.tieTolerance = 0;
        QVERIFY(planOrderNote(planConfigurations(s, o), 0).empty()); // ranked by speed: nothing to say
    }

    // A fitting layout never reads as over its capacity: both figures to 0.1 GiB, the headroom rounded down.
    // A FLOP count that charges attention the kernels skip (PaLM's full attention on Qwen3.5's linear-attention layers
    // at 256k) puts the fastest layouts' MFU past 100%: they are left out, counted, and the plan says so and how to
    // rank them all. The count the plan reports in changes which layouts are shown, never the speed of the first.
    void layoutsBeyondPhysicsAreCountedAndSaid()
    {
        const ModelSpec* model = shippedPresets().findModel("qwen3.5-397b-a17b");
        QVERIFY(model);
        Scenario s = scenarioFor(*model, "gb200", 64, 262144);
        s.mfuFormula = FlopFormula::PerLayer;
        const PlanResult executed = planConfigurations(s);
        QVERIFY(!executed.configs.empty());
        QCOMPARE(executed.beyondPhysics, int64_t(0));
        QVERIFY(beyondPhysicsLeftOutNote(executed).empty());
        s.mfuFormula = FlopFormula::PaLM;
        const PlanResult palm = planConfigurations(s);
        QVERIFY2(palm.beyondPhysics > 0, qPrintable(QString::number(palm.beyondPhysics)));
        QCOMPARE(palm.fitting + palm.beyondPhysics, executed.fitting);
        const std::string note = beyondPhysicsLeftOutNote(palm);
        QVERIFY2(note.find("under PaLM") != std::string::npos, note.c_str());
        QVERIFY2(note.find("MFU would pass 100%") != std::string::npos, note.c_str());
        // One layout or several, the sentence agrees with its count.
        QVERIFY2(note.find(palm.beyondPhysics == 1 ? " its MFU" : " their MFU") != std::string::npos, note.c_str());
        QVERIFY2(note.find("per_layer") != std::string::npos, note.c_str());
        if (!palm.configs.empty())
            QVERIFY(palm.configs.front().prediction.tokensPerSec
                <= executed.configs.front().prediction.tokensPerSec * (1 + 1e-9));
    }

    // On GPUs without NVLink (an L40S is a domain of its own) TP stays inside the one-GPU domain, so the planner's
    // layouts split by pipeline: their reason names the model parallelism after a colon, as it does when TP leads
    // ("model parallelism: PP 4 ...", not "model parallelism, PP 4").
    void reasonNamesPipelineOnlyParallelism()
    {
        Scenario s = scenarioFor(llama31_8b(), "l40s", 16, 4096);
        setStatedScaleOut(s.cluster.hardware, 200);
        const PlanResult r = planConfigurations(s);
        QVERIFY(!r.configs.empty());
        bool sawPipeline = false;
        for (const PlannedConfig& c : r.configs) {
            if (c.parallelism.pp == 1 && c.parallelism.cp == 1 && c.parallelism.tp == 1)
                continue;
            QVERIFY2(c.reason.starts_with("model parallelism: "), c.reason.c_str());
            sawPipeline = sawPipeline || (c.parallelism.tp == 1 && c.parallelism.pp > 1);
        }
        QVERIFY(sawPipeline);
    }

    // Expert parallelism's span is the scale-up domain's: on GB200 NVL72 an EP group of 8 is inside one 72-GPU
    // domain (it had read "inside a node", where a node holds 4 of those GPUs).
    void expertSpanNamesTheDomain()
    {
        const ModelSpec* model = shippedPresets().findModel("deepseek-v3");
        QVERIFY(model);
        const PlanResult r = planConfigurations(scenarioFor(*model, "gb200", 144, 4096));
        bool sawEp = false;
        for (const PlannedConfig& c : r.configs) {
            if (c.parallelism.ep <= 1)
                continue;
            sawEp = true;
            QVERIFY2(c.reason.find("inside a node") == std::string::npos, c.reason.c_str());
            QVERIFY2(c.reason.find("-GPU domain") != std::string::npos, c.reason.c_str());
        }
        QVERIFY(sawEp);
    }

    void memoryReadsWithItsHeadroom()
    {
        StepPrediction p;
        p.memoryCapacityBytes = 141e9; // the H200's 141 GB: 131.32 GiB
        p.memory.parameters = p.memoryCapacityBytes - 0.01 * kGiB; // fits with 0.01 GiB to spare
        p.fits = true;
        QCOMPARE(memoryUseText(p), std::string("131.3 of 131.3 GiB, under 0.1 GiB free"));
        p.memory.parameters = 102.7 * kGiB;
        QCOMPARE(memoryUseText(p), std::string("102.7 of 131.3 GiB, 28.6 GiB free"));
        p.memory.parameters = 132.0 * kGiB;
        p.fits = false;
        QCOMPARE(memoryUseText(p), std::string("132.0 of 131.3 GiB, 0.7 GiB over"));
    }
};

QTEST_GUILESS_MAIN(TestPlanner)
#include "tst_planner.moc"
