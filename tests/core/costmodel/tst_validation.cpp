// The validation suite (presets/validation/runs.json): every published run loads, fits in memory (it ran), and the
// out-of-sample mean error stays within the bound docs/cost-model.md states. Also the file's error handling and the
// FLOP conventions the papers used, against hand derivations.
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/physical_bounds.h"
#include "core/costmodel/step_context.h"
#include "core/costmodel/validation.h"
#include "core/errors.h"
#include "core/presets/presets.h"
#include "shipped_presets.h"

using namespace mfu;
using mfu::test::shippedPresets;

namespace {
std::string readText(const char* path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const char* kRunsPath = MFU_SOURCE_DIR "/presets/validation/runs.json";

std::string tableText(const ValidationReport& r)
{
    std::string t;
    char line[256];
    for (const ValidationRow& row : r.rows) {
        std::snprintf(line, sizeof line, "%-36s measured %8.1f predicted %8.1f tok/s/GPU  error %+6.1f%%%s\n",
            row.run->id.c_str(), row.run->measuredTokensPerSecPerGpu, row.prediction.tokensPerSecPerGpu,
            100 * row.error, row.prediction.fits ? "" : "  DOES NOT FIT");
        t += line;
        if (std::abs(row.error) > 0.25) {
            const TimeBreakdown& b = row.prediction.time;
            std::string comm;
            for (CommKind k : kAllCommKinds)
                if (b.comm(k) > 0)
                    comm += " " + std::string(commKindKey(k)) + " " + std::to_string(b.comm(k));
            std::snprintf(line, sizeof line,
                "    step %.3f s: matmul %.3f attention %.3f memory-bound %.3f recompute %.3f bubble %.3f overhead "
                "%.3f;",
                row.prediction.stepTimeSeconds, b.matmul, b.attention, b.memoryBound, b.recompute, b.pipelineBubble,
                b.overhead);
            t += line + comm + "\n";
        }
        if (!row.prediction.fits) {
            const MemoryBreakdown& m = row.prediction.memory;
            std::snprintf(line, sizeof line,
                "    memory GB: params %.1f grads %.1f optimizer %.1f activations %.1f temporary %.1f reserved %.1f\n",
                m.parameters / 1e9, m.gradients / 1e9, m.optimizerState / 1e9, m.activations / 1e9, m.temporary / 1e9,
                m.reserved / 1e9);
            t += line;
        }
    }
    for (const ValidationGroup& g : r.groups) {
        std::snprintf(line, sizeof line, "%-12s %-14s %2d runs  mean |error| %5.1f%%  max %5.1f%%  bias %+5.1f%%\n",
            g.axis.c_str(), g.name.c_str(), g.runs, 100 * g.meanAbsError, 100 * g.maxAbsError, 100 * g.meanError);
        t += line;
    }
    return t;
}
} // namespace

class TestValidation : public QObject {
    Q_OBJECT

private slots:
    void tableLoadsWithEnoughSources()
    {
        const std::string text = readText(kRunsPath);
        QVERIFY2(!text.empty(), kRunsPath);
        const auto runs = validationRunsFromJson(text, shippedPresets(), "runs.json");
        QVERIFY(runs.size() >= 30);
        std::set<std::string> papers;
        for (const auto& run : runs) {
            QVERIFY2(run.measuredTokensPerSecPerGpu > 0, run.id.c_str());
            QVERIFY2(!run.source.empty(), run.id.c_str());
            papers.insert(run.source.substr(0, run.source.find(',')));
        }
        QVERIFY2(papers.size() >= 6, qPrintable(QString::number(papers.size())));
    }

    // What the table must cover: at least 40 MoE runs, 10 on AMD GPUs, and Ampere under half of it; every row added
    // with the MoE runs says what its source states and what it assumes.
    void tableCoversMoeAmdAndRecentGpus()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        int moe = 0, amd = 0, ampere = 0, hybrid = 0;
        for (const auto& run : runs) {
            const std::string architecture = architectureOf(run.scenario.model);
            moe += run.scenario.model.isMoe() ? 1 : 0;
            hybrid += architecture == "hybrid" ? 1 : 0;
            const std::string generation = gpuGenerationOf(run.scenario.cluster.hardware);
            amd += generation.rfind("CDNA", 0) == 0 ? 1 : 0;
            ampere += generation == "Ampere" ? 1 : 0;
            if (!run.stated.empty())
                QVERIFY2(!run.assumed.empty(), run.id.c_str());
        }
        QVERIFY2(moe >= 40, qPrintable(QString::number(moe)));
        QVERIFY2(amd >= 10, qPrintable(QString::number(amd)));
        QVERIFY2(2 * ampere < int(runs.size()), qPrintable(QString("%1 of %2").arg(ampere).arg(runs.size())));
        QVERIFY(hybrid >= 1);
    }

    // The regression guard: the bound is stated in docs/cost-model.md (Validation). Every published layout ran, so
    // every one must fit.
    void meanErrorWithinTheDocumentedBound()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        const ValidationReport r = runValidation(runs);
        qInfo().noquote() << QString::fromStdString(tableText(r));
        QCOMPARE(r.rows.size(), runs.size());
        for (const ValidationRow& row : r.rows)
            QVERIFY2(row.prediction.fits, row.run->id.c_str());
        QCOMPARE(r.notFitting, 0);
        QVERIFY2(r.outOfSample.meanAbsError <= kValidationMeanErrorBound,
            qPrintable(QString("out-of-sample mean |error| %1").arg(r.outOfSample.meanAbsError)));
        QVERIFY(r.outOfSample.runs >= 30);
        // The MoE bounds (out-of-sample mean 12%, no MoE run beyond 65%) and the mean over every run (20%).
        QVERIFY(r.outOfSampleMoe.runs >= 30);
        std::string broken;
        for (const std::string& b : validationBoundsBroken(r))
            broken += b + "; ";
        QVERIFY2(broken.empty(), broken.c_str());
    }

    // HFU above ~75% is a sign of a missing cost: no published run reaches it, and no row may be predicted to.
    // (Llama 3.1 8B at 32k on 8 H100 with full checkpointing is predicted at 75%: with no published 32k-64k run in
    // the table, docs/cost-model.md lists long-sequence attention as unvalidated.)
    void noHfuAboveSeventyFivePercent()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        // Against the peak of the run's precision: an FP8 or FP4 run's HFU against the BF16 peak may pass 75%.
        for (const ValidationRow& row : runValidation(runs).rows) {
            const HardwareSpec& hw = row.run->scenario.cluster.hardware;
            const double bf16 = hw.mfuPeak().value_or(1.0); // HFU's denominator (FP16 on a GPU without BF16)
            const double peak = precisionPeakFlops(hw, row.run->scenario.precision);
            const double hfu = row.prediction.hfu * bf16 / peak;
            QVERIFY2(hfu < 0.75, qPrintable(QString("%1: HFU %2").arg(row.run->id.c_str()).arg(hfu)));
        }
    }

    // Narayanan et al. 2021, Table 1 and eq. 3: the 1T model at 163 TFLOPS/GPU. Per token: 96 l h^2 (1 + s/6h +
    // V/16lh) = 96 x 128 x 25600^2 x (1 + 2048/153600 + 51200/52428800) = 8.0531e12 x 1.014310 = 8.1683e12 FLOP,
    // so 163e12 / 8.1683e12 = 19.96 tokens/s per GPU.
    void megatronFlopConventions()
    {
        ModelSpec m;
        m.id = "gpt-1t";
        m.layers = 128;
        m.hidden = 25600;
        m.heads = 160;
        m.ffnDim = int64_t { 4 } * 25600;
        m.vocab = 51200;
        const double recompute = validationFlopsPerToken(m, 2048, ValidationFlopFormula::MegatronRecompute);
        QVERIFY(std::abs(recompute / 8.1683e12 - 1) < 1e-4);
        // Without recompute: 72 l h^2 (1 + s/6h + V/12lh) is three quarters of the matmul part.
        const double model = validationFlopsPerToken(m, 2048, ValidationFlopFormula::Megatron);
        QVERIFY(
            std::abs(model / (72.0 * 128 * 25600.0 * 25600 * (1 + 2048 / 153600.0 + 51200 / 39321600.0)) - 1) < 1e-12);
    }

    // Megatron-Core counts the causal half of the attention square: the Megatron-Core MoE report (Yan, Bai, Yao et al.
    // 2026) gives Qwen3-235B-A22B at 131,072 tokens as 1,150 TFLOPS/GPU and 1,556 tokens/s per GPU, 739.1 GFLOP a
    // token, and the ModelZoo's 4k run as 245 TFLOPS at 1,663 tokens/s, 147.3 GFLOP; the product's causal count gives
    // both within 1%, where PaLM's full square is 38% above the first.
    void megatronCoreCausalCount()
    {
        const ModelSpec* qwen = shippedPresets().findModel("qwen3-235b-a22b");
        QVERIFY(qwen);
        const double at128k = validationFlopsPerToken(*qwen, 131072, ValidationFlopFormula::PerComponentCausal);
        QVERIFY2(std::abs(at128k / (1150e12 / 1556) - 1) < 0.01, qPrintable(QString::number(at128k)));
        const double at4k = validationFlopsPerToken(*qwen, 4096, ValidationFlopFormula::PerComponentCausal);
        QVERIFY2(std::abs(at4k / (245e12 / 1663) - 1) < 0.01, qPrintable(QString::number(at4k)));
        QVERIFY(validationFlopsPerToken(*qwen, 131072, ValidationFlopFormula::PaLM) > 1.35 * at128k);
        // MoE Parallel Folding's Mixtral 8x22B at 128k on 1,024 H100: 42.9% MFU of 989 TFLOPS over that count.
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        const auto it = std::find_if(
            runs.begin(), runs.end(), [](const auto& r) { return r.id == "folding-mixtral-8x22b-1024xh100-128k"; });
        QVERIFY(it != runs.end());
        const double causal
            = validationFlopsPerToken(it->scenario.model, 131072, ValidationFlopFormula::PerComponentCausal);
        QVERIFY(std::abs(it->measuredTokensPerSecPerGpu - 0.429 * 989e12 / causal) < 1e-6);
        QCOMPARE(it->scenario.parallelism.cpComm, ContextParallelComm::P2p);
    }

    // The Megatron-MoE-ModelZoo's eager H100 layouts of Qwen3-235B-A22B (DeepEP, no CUDA graphs): TP 4 with EP 8
    // (Z5) ran 1,130 tokens/s per GPU against TP 2 with EP 32's 1,663 (Z1), although it moves fewer bytes across
    // nodes and recomputes nothing. Without the host's time after each dispatch the model had them level (+53% and
    // +4%). moe_layer_host_seconds was fitted on Z5; Z1 and its overlapped twin Z2 stay out of sample and within 10%,
    // the order holds, and Z5's diagnosis names the host.
    void moeHostSetsThePaceOfThinLayouts()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        const ValidationReport r = runValidation(runs);
        const auto row = [&](const char* id) -> const ValidationRow& {
            const auto it = std::find_if(r.rows.begin(), r.rows.end(), [&](const auto& w) { return w.run->id == id; });
            if (it == r.rows.end())
                throw std::runtime_error(std::string("no validation row ") + id);
            return *it;
        };
        const ValidationRow& thin = row("modelzoo-qwen3-235b-256xh100-tp4-ep8");
        const ValidationRow& wide = row("modelzoo-qwen3-235b-256xh100-cross-node-ep");
        const ValidationRow& overlapped = row("modelzoo-qwen3-235b-256xh100-cross-node-ep-overlap");
        QVERIFY(thin.run->inSample && !wide.run->inSample && !overlapped.run->inSample);
        QVERIFY2(std::abs(wide.error) < 0.10, qPrintable(QString::number(wide.error)));
        QVERIFY2(std::abs(overlapped.error) < 0.10, qPrintable(QString::number(overlapped.error)));
        const double ratio = thin.prediction.tokensPerSecPerGpu / wide.prediction.tokensPerSecPerGpu;
        QVERIFY2(ratio < 0.8, qPrintable(QString::number(ratio))); // measured 1,130 / 1,663 = 0.68
        QVERIFY(thin.prediction.time.moeHostStall > 0.25 * thin.prediction.stepTimeSeconds);
        const std::string why = bottleneckSentence(thin.prediction);
        QVERIFY2(why.find("The host sets the pace") == 0, why.c_str());
    }

    // Z4 (the same model on PP 32 x 3 virtual stages, one layer a chunk, NCCL's all-to-all): the loss rank holds two
    // MoE layers and the LM head, the most forward FLOPs (the head's GEMM weighs 2.4 layers); the other ranks hold
    // three MoE layers each and wait on the host after each dispatch. Picked by FLOPs, the loss rank set the pace and
    // no rank waited (+30%); timing every rank finds the three-layer ranks slower.
    void slowestPipelineRankSetsThePace()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        const auto it = std::find_if(runs.begin(), runs.end(),
            [](const auto& r) { return r.id == "modelzoo-qwen3-235b-256xh100-pp32-alltoall"; });
        QVERIFY(it != runs.end() && !it->inSample);
        const Scenario& s = it->scenario;
        const CostModel model(s);
        QVERIFY(criticalRank(s, model.shape(), resolvedExpertTp(s.parallelism)).loss);
        const StepPrediction p = model.evaluate(s);
        QVERIFY(p.time.moeHostStall > 0.05 * p.stepTimeSeconds);
        QVERIFY(p.pacingRank && !p.pacingRank->loss && p.pacingRank->layers == 3);
        Scenario noWait = s;
        noWait.parallelism.expertHostSync = ExpertHostSync::None;
        const StepPrediction eager = CostModel(noWait).evaluate(noWait);
        QVERIFY(p.stepTimeSeconds > 1.05 * eager.stepTimeSeconds);
        QVERIFY(eager.pacingRank && eager.pacingRank->loss && eager.pacingRank->rank == 31);
        QCOMPARE(pacingRankText(*eager.pacingRank, 32),
            std::string("pipeline rank 31 (of 0-31): 2 layers, the LM head "
                        "and the loss"));
        const double error = p.tokensPerSecPerGpu / it->measuredTokensPerSecPerGpu - 1.0;
        QVERIFY2(std::abs(error) < 0.25, qPrintable(QString::number(error)));
    }

    // Async TP by its implementation: NeMo's MLPerf configs run Transformer Engine's userbuffers overlap, TorchTitan
    // PyTorch's symmetric-memory async TP; the table says which, and the reader keeps it.
    void asyncTpByImplementation()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        int mlperf = 0, torchtitan = 0;
        for (const auto& r : runs) {
            const Parallelism& p = r.scenario.parallelism;
            if (!p.asyncTp)
                continue;
            if (r.id.rfind("mlperf-", 0) == 0) {
                QVERIFY2(p.tpOverlap == TpOverlap::Userbuffers, r.id.c_str());
                ++mlperf;
            } else if (r.id.rfind("torchtitan-", 0) == 0) {
                QVERIFY2(p.tpOverlap == TpOverlap::SymmetricMemory, r.id.c_str());
                ++torchtitan;
            }
        }
        QCOMPARE(mlperf, 25);
        QCOMPARE(torchtitan, 11);
    }

    // Megatron-Turing NLG 530B on 280 nodes: 1,920 x 2,048 tokens in 60.1 s over 2,240 GPUs = 29.21 tokens/s per
    // GPU, which the paper's 126 TFLOPS/GPU confirms under eq. 3 (4.30e12 FLOP per token with recompute).
    void iterationTimeConversion()
    {
        const auto runs = validationRunsFromJson(readText(kRunsPath), shippedPresets(), "runs.json");
        const auto it
            = std::find_if(runs.begin(), runs.end(), [](const auto& r) { return r.id == "mt-nlg-530b-280-nodes"; });
        QVERIFY(it != runs.end());
        QVERIFY(std::abs(it->measuredTokensPerSecPerGpu - 1920.0 * 2048 / 60.1 / 2240) < 1e-9);
        const double tflops = it->measuredTokensPerSecPerGpu
            * validationFlopsPerToken(it->scenario.model, 2048, ValidationFlopFormula::MegatronRecompute) / 1e12;
        QVERIFY2(std::abs(tflops - 126) < 1.5, qPrintable(QString::number(tflops)));
    }

    // A table's own GPU may carry its cluster's cost-model constants (the playbook's EFA cluster does): the run
    // predicts with them, and the same GPU entry without them predicts as the defaults do.
    void ownGpuCarriesItsClusterConstants()
    {
        const std::string gpu = R"("peak_dense_tflops":{"bf16":989},"memory_gb":80,"hbm_bandwidth_gbps":3350,)"
                                R"("scale_up":{"domain_gpus":8,"bandwidth_gbps":450},"scale_out_gbitps":400,)"
                                R"("sources":{"peak_dense_tflops":"s","memory_gb":"s","hbm_bandwidth_gbps":"s",)"
                                R"("scale_up.domain_gpus":"s","scale_up.bandwidth_gbps":"s","scale_out_gbitps":"s"})";
        const std::string run = R"("source":"s","model":"llama-3.1-8b","gpus":64,"data_parallel":"ddp",)"
                                R"("micro_batch":1,"global_batch":64,"seq":8192,)"
                                R"("measured":{"tokens_per_sec_per_gpu":9000}})";
        const std::string table = R"({"format":"mfu-explorer-validation","version":1,"hardware":[)"
                                  R"({"id":"ib","name":"IB cluster",)"
            + gpu + "}," + R"({"id":"slow","name":"slow fabric","cost_model":{"scale_out_efficiency":0.2},)" + gpu
            + "}]," + R"("runs":[{"id":"on-ib","gpu":"ib",)" + run + R"(,{"id":"on-slow","gpu":"slow",)" + run + "]}";
        const auto runs = validationRunsFromJson(table, shippedPresets(), "runs.json");
        QCOMPARE(runs.size(), size_t(2));
        QVERIFY(!runs[0].scenario.costModel);
        QVERIFY(runs[1].scenario.costModel);
        QCOMPARE(runs[1].scenario.costModel->scaleOutEfficiency, 0.2);
        const PresetLibrary own = validationTableDefinitions(table, "runs.json");
        QCOMPARE(own.costModelFor("slow")->scaleOutEfficiency, 0.2);
        QVERIFY(!own.costModelFor("ib"));
        // `--gpu slow` takes the table GPU's constants; a preset's id is the preset's, whatever a table names it.
        QCOMPARE(costModelNamedBy("slow", shippedPresets(), &own)->scaleOutEfficiency, 0.2);
        QVERIFY(!costModelNamedBy("ib", shippedPresets(), &own));
        QVERIFY(!costModelNamedBy("slow", shippedPresets(), nullptr));
        PresetLibrary shadowing;
        CostModelConstants fitted;
        fitted.scaleOutEfficiency = 0.2;
        shadowing.addHardware(*shippedPresets().findHardware("h100-sxm"), fitted);
        QVERIFY(!shippedPresets().costModelFor("h100-sxm")); // the preset keeps the defaults
        QVERIFY(!costModelNamedBy("h100-sxm", shippedPresets(), &shadowing));
        // DDP over 8 nodes: the gradient all-reduce crosses the fabric, 4x slower at 0.2 than at the default 0.8.
        const StepPrediction ib = evaluate(runs[0].scenario);
        const StepPrediction slow = evaluate(runs[1].scenario);
        const auto allReduce = static_cast<size_t>(CommKind::DpAllReduce);
        QVERIFY(ib.commSeconds[allReduce] > 0);
        QVERIFY2(std::abs(slow.commSeconds[allReduce] / ib.commSeconds[allReduce] - 4.0) < 0.05,
            qPrintable(QString::number(slow.commSeconds[allReduce] / ib.commSeconds[allReduce])));
        QVERIFY(slow.stepTimeSeconds > ib.stepTimeSeconds);
        // A constant the product does not know is refused with its place.
        std::string bad = table;
        bad.replace(bad.find("scale_out_efficiency"), 20, "scale_out_efficiencx");
        try {
            validationRunsFromJson(bad, shippedPresets(), "runs.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains("hardware[1].cost_model") && message.contains("scale_out_efficiencx"),
                qPrintable(message));
        }
    }

    void badInputNamesTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        const QString head = R"({"format":"mfu-explorer-validation","version":1,"runs":[)";
        const QString run = R"({"id":"r","source":"s","model":"llama-3.1-8b","gpu":"h100-sxm","gpus":8,)"
                            R"("data_parallel":"fsdp","seq":8192,)";
        QTest::newRow("not json") << "{"
                                  << "not valid JSON";
        QTest::newRow("format") << R"({"format":"x","version":1})"
                                << "format";
        QTest::newRow("format a number") << R"({"format":1,"version":1})"
                                         << "format";
        QTest::newRow("version beyond int") << R"({"format":"mfu-explorer-validation","version":4294967297})"
                                            << "version: expected 1";
        QTest::newRow("no runs") << head + "]}"
                                 << "runs: no runs";
        QTest::newRow("model") << head + QString(run).replace("llama-3.1-8b", "nope")
                + R"("measured":{"mfu":0.4,"flop_formula":"palm"}}]})"
                               << "runs[0] (r).model: no model 'nope'";
        QTest::newRow("measured twice") << head + run
                + R"("measured":{"mfu":0.4,"tokens_per_sec_per_gpu":9,"flop_formula":"palm"}}]})"
                                        << "measured: needs exactly one";
        QTest::newRow("formula") << head + run + R"("measured":{"mfu":0.4,"flop_formula":"6n"}}]})"
                                 << "measured.flop_formula: '6n'";
        QTest::newRow("percent") << head + run + R"("measured":{"mfu":40,"flop_formula":"palm"}}]})"
                                 << "fraction of 1";
        QTest::newRow("layout") << head + QString(run).replace("\"gpus\":8", "\"gpus\":8,\"tp\":3")
                + R"("measured":{"mfu":0.4,"flop_formula":"palm"}}]})"
                                << "tp x pp x cp x hsdp replicas must divide";
        QTest::newRow("dp kind") << head + QString(run).replace("fsdp", "zero3")
                + R"("measured":{"mfu":0.4,"flop_formula":"palm"}}]})"
                                 << "data_parallel: 'zero3'";
        QTest::newRow("cp exchange") << head
                + QString(run).replace("\"gpus\":8", "\"gpus\":8,\"cp\":2,\"cp_comm\":\"ring\"")
                + R"("measured":{"mfu":0.4,"flop_formula":"per_component_causal"}}]})"
                                     << "cp_comm: 'ring' is not one of allgather or p2p";
        QTest::newRow("tp overlap") << head
                + QString(run).replace(
                    "\"gpus\":8", "\"gpus\":8,\"tp\":2,\"async_tp\":true,\"tp_overlap_kind\":\"nccl\"")
                + R"("measured":{"mfu":0.4,"flop_formula":"palm"}}]})"
                                    << "tp_overlap_kind: 'nccl' is not one of symmetric_memory or userbuffers";
        QTest::newRow("typo") << head + run + R"("micro_bach":2,"measured":{"mfu":0.4,"flop_formula":"palm"}}]})"
                              << "micro_bach";
    }
    void badInputNamesTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        try {
            validationRunsFromJson(json.toStdString(), shippedPresets(), "runs.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.startsWith("runs.json: "), qPrintable(message));
            QVERIFY2(message.contains(expected), qPrintable(message));
        }
    }

    void groups()
    {
        QCOMPARE(sequenceRangeOf(2048), std::string("<= 4k"));
        QCOMPARE(sequenceRangeOf(8192), std::string("8k-16k"));
        QCOMPARE(sequenceRangeOf(65536), std::string("32k-64k"));
        QCOMPARE(sequenceRangeOf(131072), std::string(">= 128k"));
        HardwareSpec h;
        h.id = "h800";
        QCOMPARE(gpuGenerationOf(h), std::string("Hopper"));
        h.id = "a100-sxm-80gb";
        QCOMPARE(gpuGenerationOf(h), std::string("Ampere"));
        h.id = "mi325x";
        QCOMPARE(gpuGenerationOf(h), std::string("CDNA 3"));
        h.id = "mi355x";
        QCOMPARE(gpuGenerationOf(h), std::string("CDNA 4"));
        // Architectures: plain attention dense or MoE; DeepSeek-V4's compressed attention (or any mixer beyond
        // full, sliding and chunked attention) is hybrid.
        const PresetLibrary& presets = shippedPresets();
        QCOMPARE(architectureOf(*presets.findModel("llama-3.1-8b")), std::string("dense"));
        QCOMPARE(architectureOf(*presets.findModel("mixtral-8x22b")), std::string("MoE"));
        QCOMPARE(architectureOf(*presets.findModel("gpt-oss-120b")), std::string("MoE")); // sliding-window layers
        QCOMPARE(architectureOf(*presets.findModel("deepseek-v4-flash")), std::string("hybrid"));
        // The EP group's span: EP 8 with expert TP 1 is a node of 8; with Megatron's default expert TP = TP 2 it is
        // two nodes.
        Scenario s;
        s.model = *presets.findModel("mixtral-8x22b");
        s.cluster.hardware = *presets.findHardware("h100-sxm");
        s.cluster.gpuCount = 128;
        QCOMPARE(expertParallelSpanOf(s), std::string());
        s.parallelism.tp = 2;
        s.parallelism.ep = 8;
        QCOMPARE(expertParallelSpanOf(s), std::string("EP inside a node"));
        s.parallelism.expertTp = 2;
        QCOMPARE(expertParallelSpanOf(s), std::string("EP across nodes"));
    }
};

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
