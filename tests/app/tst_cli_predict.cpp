// Contract test of `mfu-explorer predict`, `sweep` and `plan`: the FIXED flags and JSON keys (docs/cli.md), run through
// the real binary.
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/costmodel/planner.h"
#include "core/scenario/settings.h"

namespace {

struct Run {
    int status = -1;
    QString out;
    QString err;
};

Run runCli(const QString& command, const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(MFU_CLI_BINARY), QStringList { command } + args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.status = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

nlohmann::json runJson(const QString& command, const QString& args)
{
    const Run r = runCli(command, args.split(QLatin1Char(' ')) + QStringList { QStringLiteral("--json") });
    if (r.status != 0)
        qWarning("stderr: %s", qPrintable(r.err));
    return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
}

} // namespace

class TestCliPredict : public QObject {
    Q_OBJECT
private slots:
    // A setting stated without effect on the run is named, with why, beside the unchanged prediction.
    void ignoredSettingsAreNamed()
    {
        const auto plain
            = runJson(QStringLiteral("predict"), QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8"));
        QVERIFY(plain["ignored_settings"].is_array() && plain["ignored_settings"].empty());
        const auto moeFlag = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --moe-permute-fusion"));
        QCOMPARE(moeFlag["mfu"].get<double>(), plain["mfu"].get<double>());
        QCOMPARE(moeFlag["ignored_settings"].size(), size_t(1));
        QCOMPARE(moeFlag["ignored_settings"][0]["flag"].get<std::string>(), std::string("--moe-permute-fusion"));
        QCOMPARE(moeFlag["ignored_settings"][0]["setting"].get<std::string>(), std::string("moe_permute_fusion"));
        const Run text = runCli(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --moe-permute-fusion")
                .split(QLatin1Char(' ')));
        QVERIFY2(text.out.contains(QStringLiteral("ignored: --moe-permute-fusion (the model has no experts)")),
            qPrintable(text.out));
    }

    // --help says every setting's help whole (Qt 6.4's wrapper dropped "0" from "--activation-offload ... default 0"
    // when it filled a line's last column) and leaves no line ending in a space.
    void helpKeepsEveryDescriptionWhole()
    {
        const Run r = runCli(QStringLiteral("predict"), { QStringLiteral("--help") });
        QCOMPARE(r.status, 0);
        // Compared with each run of whitespace as one space: the wrapped lines read as the help does, no word cut.
        const auto squeezed = [](QString text) {
            text.replace(QRegularExpression(QStringLiteral("\\s+")), QStringLiteral(" "));
            return text;
        };
        const QString out = squeezed(r.out);
        for (const mfu::Setting& s : mfu::scenarioSettings()) {
            if (s.flag.empty())
                continue;
            const QString help = squeezed(QString::fromUtf8(s.help.data(), qsizetype(s.help.size())));
            const QString flag = QStringLiteral("--") + QString::fromUtf8(s.flag.data(), qsizetype(s.flag.size()));
            QVERIFY2(out.contains(flag + QLatin1Char(' ') + help) || out.contains(flag + QStringLiteral(" <")),
                qPrintable(flag));
            QVERIFY2(out.contains(help), qPrintable(flag + QStringLiteral(": ") + help));
        }
        for (const QString& line : r.out.split(QLatin1Char('\n')))
            QVERIFY2(!line.endsWith(QLatin1Char(' ')), qPrintable(line));
    }

    void predictJsonKeys()
    {
        const auto j = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --seq 8192 --precision bf16 --micro-batch 1 "
                           "--global-batch-tokens 65536 --tp 1 --pp 1 --cp 1 --ep 1 --hsdp-replicas 1 --ac none"));
        QVERIFY(j.is_object());
        for (const char* key : { "mfu", "hfu", "tokens_per_sec", "tflops_per_gpu", "step_time_s", "fits",
                 "peak_memory_bytes", "time_breakdown_s" })
            QVERIFY2(j.contains(key), key);
        QVERIFY(j["mfu"].get<double>() > 0.5 && j["mfu"].get<double>() < 0.6); // Lambda's MFU paper: 55.34%
        QVERIFY(j["fits"].get<bool>());
        double sum = 0;
        for (const auto& [k, v] : j["time_breakdown_s"].items())
            sum += v.get<double>();
        QVERIFY(qAbs(sum - j["step_time_s"].get<double>()) < 1e-9 * sum);
        for (const char* kind :
            { "matmul", "attention", "memory_bound", "recompute", "fsdp_allgather", "fsdp_reducescatter", "tp",
                "pp_p2p", "cp", "dp_allreduce", "ep_alltoall", "host_offload", "pipeline_bubble" })
            QVERIFY2(j["time_breakdown_s"].contains(kind), kind);
    }

    void predictLambda70bLevers()
    {
        const auto tp8 = runJson(
            QStringLiteral("predict"), QStringLiteral("--model llama-3.1-70b --gpu b200 --gpus 16 --tp 8 --ac full"));
        const auto tp1 = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-70b --gpu b200 --gpus 16 --tp 1 --ac selective"));
        QVERIFY(tp8["mfu"].get<double>() < 0.30);
        QVERIFY(tp1["mfu"].get<double>() > 0.45);
    }

    void predictCalibrates()
    {
        const auto j = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --calibrate-mfu 55.34"));
        QVERIFY(qAbs(j["mfu"].get<double>() - 0.5534) < 1e-4);
        QVERIFY(j["calibration"]["scale"].get<double>() > 0);
        // The one MFU rule of every subcommand (cost's too): "55.34%" is the same measurement.
        const auto percent = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --calibrate-mfu 55.34%"));
        QCOMPARE(percent["calibration"]["measured_mfu"].get<double>(), j["calibration"]["measured_mfu"].get<double>());
    }

    // A sequence length is named as contexts are: 8k = 8,192 tokens, in --seq and in a sweep's points alike.
    void sequenceLengthsInBinaryThousands()
    {
        const auto at8k
            = runJson(QStringLiteral("predict"), QStringLiteral("--model llama-3.1-8b --gpu b200 --seq 8k"));
        QCOMPARE(at8k["tokens_per_step"].get<double>(), 8192.0);
        const Run sweep = runCli(QStringLiteral("sweep"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --no-planner --axis seq --values 8k,16k --json")
                .split(QLatin1Char(' ')));
        const auto j = nlohmann::json::parse(sweep.out.toStdString());
        QCOMPARE(j["points"][0]["x"].get<double>(), 8192.0);
        QCOMPARE(j["points"][1]["x"].get<double>(), 16384.0);
    }

    // A layout that does not fit has no MFU: the sweep's text says so where it printed "74.5% (no fit)" and the
    // charts drew that figure; --json keeps the model's figure beside "fits": false.
    void sweepShowsNoMfuForALayoutThatDoesNotFit()
    {
        const QString args
            = QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --no-planner --axis seq --values 8k,128k");
        const Run text = runCli(QStringLiteral("sweep"), args.split(QLatin1Char(' ')));
        QCOMPARE(text.status, 0);
        const QStringList lines = text.out.split(QLatin1Char('\n'));
        const auto line = [&lines](const QString& x) {
            for (const QString& l : lines)
                if (l.trimmed().startsWith(x + QLatin1Char(' ')))
                    return l;
            return QString();
        };
        QVERIFY2(line(QStringLiteral("8192")).contains(QLatin1Char('%')), qPrintable(text.out));
        const QString misfit = line(QStringLiteral("131072"));
        QVERIFY2(
            misfit.contains(QStringLiteral("does not fit")) && !misfit.contains(QLatin1Char('%')), qPrintable(misfit));
        const auto j = runJson(QStringLiteral("sweep"), args + QStringLiteral(" --json"));
        QVERIFY(!j["points"][1]["current"]["fits"].get<bool>());
        QVERIFY(j["points"][1]["current"]["mfu"].get<double>() > 0);
    }

    // Under PaLM's full square, Qwen3.5's linear-attention layers at 128k put many layouts past 100% MFU: the
    // planner leaves them out, and the sweep's best at that point says how many and why (text and JSON), where it
    // had shown the best of the rest as the best. At 32k none is left out and nothing is said.
    void sweepBestSaysWhatWasLeftOut()
    {
        const QString args = QStringLiteral(
            "--model qwen3.5-397b-a17b --gpu gb200 --gpus 64 --seq 32768 --formula palm --axis seq --values 32k,256k");
        const auto j = runJson(QStringLiteral("sweep"), args + QStringLiteral(" --json"));
        QVERIFY(j["points"][0]["best_left_out"].is_null());
        QVERIFY2(j["points"][1]["best"].is_object(), j.dump().c_str());
        const std::string leftOut = j["points"][1]["best_left_out"].get<std::string>();
        QVERIFY2(leftOut.find("left out: under PaLM") != std::string::npos, leftOut.c_str());
        QVERIFY2(leftOut.find("MFU would pass 100%") != std::string::npos, leftOut.c_str());
        const Run text = runCli(QStringLiteral("sweep"), args.split(QLatin1Char(' ')));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("* at 262144: ")), qPrintable(text.out));
        QVERIFY2(!text.out.contains(QStringLiteral("* at 32768")), qPrintable(text.out));
    }

    // A global batch that is not a whole number of micro-steps is predicted rounded up, and says so.
    void predictSaysWhenTheBatchIsRounded()
    {
        const QString base = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --seq 2048 ");
        const auto rounded = runJson(QStringLiteral("predict"), base + QStringLiteral("--global-batch-tokens 100000"));
        QCOMPARE(rounded["tokens_per_step"].get<double>(), 114688.0); // 7 micro-steps of 8 x 2,048
        const std::string note = rounded["global_batch_note"].get<std::string>();
        QVERIFY2(note.find("predicted at 114,688 tokens (7 micro-steps)") != std::string::npos, note.c_str());
        const auto exact = runJson(QStringLiteral("predict"), base + QStringLiteral("--global-batch-tokens 32768"));
        QVERIFY(exact["global_batch_note"].is_null());
    }

    void planJsonKeys()
    {
        const auto j = runJson(
            QStringLiteral("plan"), QStringLiteral("--model llama-3.1-70b --gpu b200 --gpus 16 --seq 8192 --top 5"));
        QVERIFY(j.is_object());
        QVERIFY(j["evaluated"].get<int64_t>() > 100);
        QVERIFY(j["seconds"].get<double>() >= 0);
        QCOMPARE(int(j["configs"].size()), 5);
        // Layouts within the error band of the fastest are ties and come first (simplest first); the rest follow by
        // predicted throughput. Lambda's 70B case: plain FSDP (TP 1, PP 1) with selective checkpointing leads.
        QVERIFY(j["tie_tolerance"].get<double>() > 0);
        // The rule in the words of every surface, and each configuration's memory margin.
        QCOMPARE(j["ranking_rule"].get<std::string>(), mfu::plannerRankingRule(j["tie_tolerance"].get<double>()));
        QVERIFY(j["configs"][0]["headroom_bytes"].get<double>() > 0);
        QCOMPARE(j["configs"][0]["tp"].get<int>(), 1);
        QCOMPARE(j["configs"][0]["pp"].get<int>(), 1);
        QVERIFY(j["configs"][0]["ties_with_best"].get<bool>());
        double previous = 1e300;
        bool inTies = true;
        for (const auto& c : j["configs"]) {
            for (const char* key : { "tp", "pp", "cp", "ep", "hsdp_replicas", "fsdp_shards", "micro_batch", "ac", "mfu",
                     "tokens_per_sec", "peak_memory_bytes", "fits", "ties_with_best" })
                QVERIFY2(c.contains(key), key);
            QVERIFY(c["fits"].get<bool>());
            if (!c["ties_with_best"].get<bool>()) {
                if (inTies)
                    previous = 1e300;
                inTies = false;
                QVERIFY(c["tokens_per_sec"].get<double>() <= previous);
                previous = c["tokens_per_sec"].get<double>();
            } else {
                QVERIFY(inTies); // no tie after a non-tie
            }
            QCOMPARE(c["tp"].get<int>() * c["pp"].get<int>() * c["cp"].get<int>() * c["hsdp_replicas"].get<int>()
                    * c["fsdp_shards"].get<int>(),
                16);
        }
    }

    // A MoE given without EP is the barely validated 'MoE without EP' class; the layouts planned for it have EP, so
    // the band the plan names is the first layout's, not the input's.
    void planNamesTheFirstLayoutsBand()
    {
        const auto j = runJson(
            QStringLiteral("plan"), QStringLiteral("--model deepseek-v3 --gpu gb300 --gpus 256 --seq 4096 --top 3"));
        QVERIFY(j.is_object());
        QVERIFY(!j["configs"].empty());
        QVERIFY(j["configs"][0]["ep"].get<int>() > 1);
        const std::string basis = j["error_band_basis"].get<std::string>();
        QVERIFY2(basis.find("MoE without EP") == std::string::npos, basis.c_str());
        const auto given = runJson(
            QStringLiteral("predict"), QStringLiteral("--model deepseek-v3 --gpu gb300 --gpus 256 --seq 4096"));
        QVERIFY2(given["error_band_basis"].get<std::string>().find("MoE without EP") != std::string::npos,
            given["error_band_basis"].get<std::string>().c_str());
    }

    void planStrictRanksByThroughput()
    {
        const auto j = runJson(QStringLiteral("plan"),
            QStringLiteral("--model llama-3.1-70b --gpu b200 --gpus 16 --seq 8192 --top 5 --strict"));
        QCOMPARE(j["tie_tolerance"].get<double>(), 0.0);
        double previous = 1e300;
        for (const auto& c : j["configs"]) {
            QVERIFY(c["tokens_per_sec"].get<double>() <= previous);
            previous = c["tokens_per_sec"].get<double>();
        }
    }

    // The error band: measured runs like this one (Blackwell, dense) were within it.
    void predictErrorBand()
    {
        const auto j = runJson(QStringLiteral("predict"), QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8"));
        for (const char* key : { "mfu_low", "mfu_high", "tokens_per_sec_per_gpu_low", "tokens_per_sec_per_gpu_high" })
            QVERIFY2(j.contains(key), key);
        QVERIFY(j["mfu_low"].get<double>() < j["mfu"].get<double>());
        QVERIFY(j["mfu_high"].get<double>() > j["mfu"].get<double>());
        const double perGpu = j["tokens_per_sec"].get<double>() / 8;
        QVERIFY(j["tokens_per_sec_per_gpu_low"].get<double>() < perGpu);
        QVERIFY(j["tokens_per_sec_per_gpu_high"].get<double>() > perGpu);
        QVERIFY(QString::fromStdString(j["error_band_basis"].get<std::string>()).contains("Blackwell dense"));
        // Precedent: the best MFU a similar published run measured, and whether this prediction is above it.
        QVERIFY(j["published_best_mfu"].get<double>() > 0);
        QVERIFY(!j["published_best_run"].get<std::string>().empty());
        QVERIFY(j["above_published_best"].is_boolean());
        // Counted as executed (the formula the precedent is counted in), the prediction is above the best it names.
        const auto ampere = runJson(QStringLiteral("predict"),
            QStringLiteral(
                "--model llama-3.1-8b --gpu a100-sxm-80gb --gpus 16 --seq 8192 --formula per_component_causal"));
        QVERIFY(ampere["above_published_best"].get<bool>());
        QVERIFY(ampere["mfu"].get<double>() > ampere["published_best_mfu"].get<double>());
        QVERIFY(QString::fromStdString(ampere["error_band_basis"].get<std::string>())
                    .contains(QString::fromStdString(ampere["published_best_run"].get<std::string>())));
    }

    void predictKernelAndDataParallelFlags()
    {
        const auto flash2 = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --seq 32768 --attention-kernel flash2"));
        const auto flash3 = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --seq 32768 --attention-kernel flash3"));
        QVERIFY(flash2["time_breakdown_s"]["attention"].get<double>()
            > 1.5 * flash3["time_breakdown_s"]["attention"].get<double>());
        // cuDNN on Hopper (what PyTorch 2.11's SDPA ran on an H200): accepted, at 0.95 of FlashAttention 3's speed.
        const auto cudnn = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h200 --gpus 8 --seq 32768 --attention-kernel cudnn"));
        const auto h200fa3 = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h200 --gpus 8 --seq 32768 --attention-kernel flash3"));
        const double ratio = h200fa3["time_breakdown_s"]["attention"].get<double>()
            / cudnn["time_breakdown_s"]["attention"].get<double>();
        QVERIFY2(ratio > 0.93 && ratio < 0.97, qPrintable(QString::number(ratio)));
        const Run bad = runCli(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --attention-kernel flash3").split(QLatin1Char(' ')));
        QCOMPARE(bad.status, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("Hopper")), qPrintable(bad.err));
        const auto ddp = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.2-1b --gpu h100-sxm --gpus 8 --data-parallel ddp"));
        QVERIFY(ddp["time_breakdown_s"]["fsdp_allgather"].get<double>() == 0);
        QVERIFY(ddp["time_breakdown_s"]["dp_allreduce"].get<double>() > 0);
    }

    // The MoE and pipeline-layout flags, each taking effect: folded expert parallelism, the dispatchers, an uneven
    // layout with an MTP layer, the FP8 recipe and Megatron's recompute modules.
    void predictMoeAndLayoutFlags()
    {
        const QString qwen = QStringLiteral("--model qwen3-30b-a3b --gpu b200 --gpus 8 --seq 4096 --micro-batch 8 --ep "
                                            "8 --ac full --expert-balance forced");
        const auto a2a = runJson(QStringLiteral("predict"), qwen + QStringLiteral(" --expert-dispatcher alltoall"));
        const auto deepep = runJson(QStringLiteral("predict"), qwen + QStringLiteral(" --expert-dispatcher deepep"));
        QVERIFY(a2a.is_object() && deepep.is_object());
        QVERIFY(deepep["time_breakdown_s"]["ep_alltoall"].get<double>()
            < a2a["time_breakdown_s"]["ep_alltoall"].get<double>());
        // EP 8 folded over TP 2 x 4 data-parallel ranks (expert TP 1) is a layout, as Megatron-Core writes it.
        const auto folded = runJson(QStringLiteral("predict"),
            QStringLiteral("--model mixtral-8x22b --gpu h100-sxm --gpus 128 --tp 2 --pp 8 --virtual-stages 7 --ep 8 "
                           "--expert-tp 1 --data-parallel zero1 --seq 4096 --global-batch-tokens 1M"));
        QVERIFY2(folded.is_object() && folded["fits"].get<bool>(), qPrintable(QString::fromStdString(folded.dump())));
        // DeepSeek-V3's published layout with its MTP layer, blockwise FP8 and recomputed modules.
        const auto dsv3 = runJson(QStringLiteral("predict"),
            QStringLiteral("--model deepseek-v3 --gpu h100-sxm --gpus 1024 --tp 2 --pp 8 --virtual-stages 4 --ep 64 "
                           "--mtp-layers 1 --pipeline-layout Et*3|(tt|)*29m|L --precision bf16+fp8 --fp8-recipe "
                           "blockwise --ac selective --recompute-modules moe_act,layernorm,mla_up_proj "
                           "--data-parallel zero1 --expert-dispatcher deepep --global-batch-tokens 16M"));
        QVERIFY2(dsv3.is_object() && dsv3["tokens_per_sec_per_gpu"].get<double>() > 0,
            qPrintable(QString::fromStdString(dsv3.dump())));
        const Run badLayout = runCli(QStringLiteral("predict"),
            QStringLiteral("--model deepseek-v3 --gpu h100-sxm --gpus 64 --pp 8 --pipeline-layout Et*3|(tt|*29m|L")
                .split(QLatin1Char(' ')));
        QCOMPARE(badLayout.status, 2);
        QVERIFY2(badLayout.err.contains(QStringLiteral("--pipeline-layout")), qPrintable(badLayout.err));
        const Run wrongCount = runCli(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 16 --pp 2 --stage-layers 10,10")
                .split(QLatin1Char(' ')));
        QCOMPARE(wrongCount.status, 2);
        QVERIFY2(wrongCount.err.contains(QStringLiteral("model's layers")), qPrintable(wrongCount.err));
        const Run mx = runCli(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --precision bf16+fp8 --fp8-recipe mxfp8")
                .split(QLatin1Char(' ')));
        QCOMPARE(mx.status, 2);
        QVERIFY2(mx.err.contains(QStringLiteral("Blackwell")), qPrintable(mx.err));
        const Run module = runCli(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --recompute-modules attention").split(QLatin1Char(' ')));
        QCOMPARE(module.status, 2);
        QVERIFY2(module.err.contains(QStringLiteral("--recompute-modules")), qPrintable(module.err));
    }

    // An uneven layout says which pipeline rank sets its pace: Qwen3-235B on PP 32 x 3 virtual stages (one layer a
    // chunk, the embedding and the loss in the split) waits on the host after each dispatch, so a rank with three MoE
    // layers is slower than the last, with two and the LM head; without the wait the last rank sets the pace. An even
    // layout names none.
    void predictNamesThePacingRank()
    {
        const QString z4 = QStringLiteral(
            "--model qwen3-235b-a22b --gpu h100-sxm --gpus 256 --seq 4096 --tp 2 --pp 32 --virtual-stages 3 --schedule "
            "interleaved_1f1b --ep 8 --expert-tp 1 --pipeline-layout E|(t|)*94L --data-parallel zero1 "
            "--global-batch-tokens 8388608 --ac selective --recompute-modules moe_act,layernorm");
        const auto waits = runJson(QStringLiteral("predict"), z4);
        QVERIFY2(waits["pacing_rank"].is_object(), qPrintable(QString::fromStdString(waits.dump())));
        QCOMPARE(waits["pacing_rank"]["rank_layers"].get<double>(), 3.0);
        QVERIFY(!waits["pacing_rank"]["holds_loss"].get<bool>());
        QVERIFY(waits["pacing_rank"]["pipeline_rank"].get<int>() < 31);
        const auto noWait = runJson(QStringLiteral("predict"), z4 + QStringLiteral(" --expert-host-sync none"));
        QCOMPARE(noWait["pacing_rank"]["pipeline_rank"].get<int>(), 31);
        QVERIFY(noWait["pacing_rank"]["holds_loss"].get<bool>());
        const Run text = runCli(QStringLiteral("predict"), z4.split(QLatin1Char(' ')));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("pace set by                pipeline rank ")), qPrintable(text.out));
        const QString even = QStringLiteral("--model llama-3.1-70b --gpu h100-sxm --gpus 64 --tp 8 --pp 2 --seq 4096");
        QVERIFY(runJson(QStringLiteral("predict"), even)["pacing_rank"].is_null());
        QVERIFY(!runCli(QStringLiteral("predict"), even.split(QLatin1Char(' '))).out.contains(QStringLiteral("pace")));
    }

    // FP4 through the flags: refused on an H100 (no FP4 peak), predicted on a B200 faster than FP8, and a third point
    // of the precision sweep when asked for.
    void predictFp4Flags()
    {
        const Run h100 = runCli(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --precision fp4").split(QLatin1Char(' ')));
        QCOMPARE(h100.status, 2);
        QVERIFY2(h100.err.contains(QStringLiteral("dense FP4 peak")), qPrintable(h100.err));
        const auto fp4 = runJson(QStringLiteral("predict"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --precision fp4 --fp4-recipe mxfp4"));
        const auto fp8 = runJson(
            QStringLiteral("predict"), QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --precision fp8"));
        QVERIFY(fp4["tokens_per_sec_per_gpu"].get<double>() > fp8["tokens_per_sec_per_gpu"].get<double>());
        // MFU against the FP4 peak beside the BF16 one: 9,000 vs 2,250 dense TFLOPS on a B200, a factor of 4 exactly.
        QVERIFY(fp8["mfu_vs_fp4_peak"].is_null());
        QCOMPARE(fp4["mfu_vs_fp4_peak"].get<double>() * 4.0, fp4["mfu"].get<double>());
        const auto sweep = runJson(QStringLiteral("sweep"),
            QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --axis precision --values bf16,fp8,fp4 "
                           "--no-planner"));
        QCOMPARE(sweep["points"].size(), size_t(3));
        QCOMPARE(sweep["points"][2]["precision"].get<std::string>(), std::string("fp4"));
    }

    // "The planner's best" is one configuration in every subcommand: `plan` ranks layouts within the error band as
    // ties, simplest first, and `sweep` and `cost --compare` named the fastest instead (FSDP 128 x TP 2 at 59% against
    // plan's FSDP 256 with full checkpointing at 49%, for the same job).
    void thePlannersBestIsOneConfiguration()
    {
        const QString job = QStringLiteral("--model llama-3.1-70b --gpu h100-sxm --gpus 256");
        const auto plan = runJson(QStringLiteral("plan"), job + QStringLiteral(" --top 1"));
        const auto sweep = runJson(QStringLiteral("sweep"), job + QStringLiteral(" --axis gpus --values 256"));
        const auto cost
            = runJson(QStringLiteral("cost"), job + QStringLiteral(" --days 90 --baseline-mfu 40 --compare h100-sxm"));
        QVERIFY(plan.is_object() && sweep.is_object() && cost.is_object());
        const std::string best = plan["configs"][0]["description"].get<std::string>();
        QCOMPARE(sweep["points"][0]["best"]["description"].get<std::string>(), best);
        QCOMPARE(cost["hardware_comparison"][0]["configuration"].get<std::string>(), best);
        QCOMPARE(sweep["points"][0]["best"]["mfu"].get<double>(), plan["configs"][0]["mfu"].get<double>());
    }

    // A network sweep's point is predict with that network stated: one core call (scenarioAt, setStatedScaleOut),
    // and Llama 3.1 8B with FSDP over 8 H100 nodes is slower on 100 Gb/s NICs than on 800.
    void networkSweepPointIsPredictWithThatNetwork()
    {
        const QString job = QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 64");
        const auto sweep
            = runJson(QStringLiteral("sweep"), job + QStringLiteral(" --axis network --values 100,800 --no-planner"));
        QCOMPARE(QString::fromStdString(sweep["axis"].get<std::string>()), QStringLiteral("network"));
        const auto at100 = runJson(QStringLiteral("predict"), job + QStringLiteral(" --scale-out-gbps 100"));
        QCOMPARE(sweep["points"][0]["x"].get<double>(), 100.0);
        QCOMPARE(sweep["points"][0]["current"]["mfu"].get<double>(), at100["mfu"].get<double>());
        QVERIFY(
            sweep["points"][0]["current"]["mfu"].get<double>() < sweep["points"][1]["current"]["mfu"].get<double>());
        const Run text = runCli(QStringLiteral("sweep"),
            (job + QStringLiteral(" --axis network --values 12.5 --no-planner")).split(QLatin1Char(' ')));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("      12.5  ")), qPrintable(text.out));
        QVERIFY(!text.out.contains(QStringLiteral("scale-up domain")));
        // Inside one NVLink domain the text says why every row reads the same.
        const Run inside = runCli(QStringLiteral("sweep"),
            QStringLiteral("--model llama-3.1-8b --gpu h100-sxm --gpus 8 --axis network --values 100,800 --no-planner")
                .split(QLatin1Char(' ')));
        QVERIFY2(inside.out.contains(QStringLiteral("All 8 GPUs share one scale-up domain")), qPrintable(inside.out));
    }

    // A packed, padded run on the reference's cluster: each lever's prediction with and without it, and --liger-kernel
    // as trainers enable it (the fused loss and the fused norm/activation kernels).
    void predictPackingLevers()
    {
        const auto j = runJson(QStringLiteral("predict"),
            QStringLiteral("--model qwen2.5-7b --gpu a800-sxm-80gb --gpus 32 --packing-length 81920 --doc-length 2643 "
                           "--padding-fraction 0.1 --ac full --eager --liger-kernel"));
        QVERIFY(j.is_object());
        const auto& levers = j["levers"];
        QCOMPARE(levers.size(), size_t(4));
        QCOMPARE(levers[0]["lever"].get<std::string>(), std::string("remove_padding"));
        QVERIFY(!levers[0]["in_scenario"].get<bool>());
        const double removed = levers[0]["with"]["useful_tokens_per_sec_per_gpu"].get<double>();
        const double kept = levers[0]["without"]["useful_tokens_per_sec_per_gpu"].get<double>();
        QVERIFY(qAbs(removed * 0.9 - kept) < 1e-9 * kept);
        QCOMPARE(levers[1]["lever"].get<std::string>(), std::string("document_masking"));
        QCOMPARE(levers[2]["lever"].get<std::string>(), std::string("fused_linear_cross_entropy"));
        QVERIFY(levers[2]["in_scenario"].get<bool>());
        QVERIFY(levers[2]["with"]["fits"].get<bool>());
        QVERIFY(!levers[2]["without"]["fits"].get<bool>());
        QCOMPARE(levers[3]["lever"].get<std::string>(), std::string("fused_norm_activation"));
        QVERIFY(levers[3]["in_scenario"].get<bool>());
        // The scenario's own prediction is each pulled lever's `with` side.
        QCOMPARE(levers[3]["with"]["mfu"].get<double>(), j["mfu"].get<double>());

        const Run text = runCli(QStringLiteral("predict"),
            QStringLiteral("--model qwen2.5-7b --gpu a800-sxm-80gb --gpus 32 --packing-length 81920 --doc-length 2643 "
                           "--ac full --eager --liger-kernel")
                .split(QLatin1Char(' ')));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("Fused linear cross-entropy")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("fits only with it")), qPrintable(text.out));
    }

    // A MoE named with model, GPU and count runs as FSDP without EP: the levers show what the EP inside the rack
    // buys, named as the window names it, and the scenario's own prediction is its `without` side.
    void predictExpertParallelismLever()
    {
        const QString args = QStringLiteral("--model deepseek-v3 --gpu gb300 --gpus 256 --seq 4096");
        const auto j = runJson(QStringLiteral("predict"), args);
        QVERIFY(j.is_object());
        const auto& levers = j["levers"];
        QVERIFY(!levers.empty());
        const auto& ep = levers.back();
        QCOMPARE(ep["lever"].get<std::string>(), std::string("expert_parallelism"));
        QCOMPARE(ep["degree"].get<int>(), 64);
        QCOMPARE(ep["name"].get<std::string>(), std::string("Expert parallelism (EP 64)"));
        QVERIFY(!ep["in_scenario"].get<bool>());
        QCOMPARE(ep["without"]["mfu"].get<double>(), j["mfu"].get<double>());
        // Its `with` side is the prediction with --ep 64.
        const auto withEp = runJson(QStringLiteral("predict"), args + QStringLiteral(" --ep 64"));
        QCOMPARE(ep["with"]["mfu"].get<double>(), withEp["mfu"].get<double>());
        QVERIFY(ep["with"]["peak_memory_bytes"].get<double>() < ep["without"]["peak_memory_bytes"].get<double>());
        QVERIFY(!levers.front().contains("degree")); // a switch has no degree
        const Run text = runCli(QStringLiteral("predict"), args.split(QLatin1Char(' ')));
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("Expert parallelism (EP 64)   (off)")), qPrintable(text.out));
    }

    // mfu-explorer validate: every published run, its error, and the groups; --check holds the documented bound.
    void validateTable()
    {
        const Run text = runCli(QStringLiteral("validate"), {});
        QCOMPARE(text.status, 0);
        qInfo().noquote() << text.out; // CI's log shows the table
        QVERIFY(text.out.contains(QStringLiteral("llama3-405b-16384-h100-8k")));
        QVERIFY(text.out.contains(QStringLiteral("Out-of-sample mean |error|")));
        const auto j = runJson(QStringLiteral("validate"), QStringLiteral("--check"));
        QVERIFY(j["runs"].size() >= 30);
        QCOMPARE(j["not_fitting"].get<int>(), 0);
        QVERIFY(j["out_of_sample"]["mean_abs_error"].get<double>() <= j["mean_abs_error_bound"].get<double>());
        QVERIFY(j["out_of_sample_moe"]["mean_abs_error"].get<double>() <= j["moe_mean_abs_error_bound"].get<double>());
        QVERIFY(j["runs"][0].contains("predicted_time_breakdown_s") && j["runs"][0].contains("architecture"));
        for (const char* key :
            { "id", "source", "measured_tokens_per_sec_per_gpu", "predicted_tokens_per_sec_per_gpu", "error", "fits" })
            QVERIFY2(j["runs"][0].contains(key), key);
        // The out-of-sample error by recipe class (what the error band widens on): six axes, each splitting the same
        // out-of-sample runs; and how many measurements their own prediction's band holds.
        std::set<std::string> axes;
        std::map<std::string, int> runsPerAxis;
        for (const auto& g : j["out_of_sample_by_class"]) {
            axes.insert(g["axis"].get<std::string>());
            runsPerAxis[g["axis"].get<std::string>()] += g["runs"].get<int>();
        }
        QCOMPARE(axes.size(), size_t(6));
        for (const auto& [axis, runs] : runsPerAxis)
            QVERIFY2(runs == j["out_of_sample"]["runs"].get<int>(), axis.c_str());
        int inBand = 0;
        for (const auto& run : j["runs"])
            inBand += run["in_band"].get<bool>() ? 1 : 0;
        QCOMPARE(j["runs_in_band"].get<int>(), inBand);
        QVERIFY(inBand > 0);
        const Run check = runCli(QStringLiteral("validate"), { QStringLiteral("--check") });
        QCOMPARE(check.status, 0);
        const Run missing
            = runCli(QStringLiteral("validate"), { QStringLiteral("--runs"), QStringLiteral("/nonexistent.json") });
        QCOMPARE(missing.status, 2);
        QVERIFY(missing.err.contains(QStringLiteral("/nonexistent.json")));
    }

    void sweepCsvAndJson_data()
    {
        QTest::addColumn<QString>("axis");
        QTest::addColumn<int>("rows");
        QTest::newRow("seq") << "seq" << 7;
        QTest::newRow("gpus") << "gpus" << 15;
        QTest::newRow("precision") << "precision" << 3; // BF16, BF16+FP8 and, on a B200, BF16+FP4
        QTest::newRow("network") << "network" << 8;
    }
    void sweepCsvAndJson()
    {
        QFETCH(QString, axis);
        QFETCH(int, rows);
        const QStringList base
            = QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --no-planner --axis").split(QLatin1Char(' '))
            + QStringList { axis };
        const Run csv = runCli(QStringLiteral("sweep"), base + QStringList { QStringLiteral("--csv") });
        QCOMPARE(csv.status, 0);
        QCOMPARE(csv.out.trimmed().split(QLatin1Char('\n')).size(), rows + 1);
        // The planner was not run, which is not "nothing fits".
        QVERIFY2(csv.out.trimmed().split(QLatin1Char('\n')).last().endsWith(QStringLiteral(",,not run")),
            qPrintable(csv.out));
        const Run json = runCli(QStringLiteral("sweep"), base + QStringList { QStringLiteral("--json") });
        const auto j = nlohmann::json::parse(json.out.toStdString(), nullptr, false);
        QCOMPARE(int(j["points"].size()), rows);
        QCOMPARE(QString::fromStdString(j["axis"].get<std::string>()), axis);
        QCOMPARE(j["points"][0]["best_problem"].get<std::string>(), std::string("not run"));
        // Every valid point carries predict's error band around its prediction.
        for (const auto& point : j["points"]) {
            const auto& cur = point["current"];
            if (cur.contains("invalid"))
                continue;
            for (const char* key : { "mfu_low", "mfu_high", "tokens_per_sec_per_gpu_low", "tokens_per_sec_per_gpu_high",
                     "error_band_basis" })
                QVERIFY2(cur.contains(key), key);
            QVERIFY(cur["mfu_low"].get<double>() < cur["mfu"].get<double>());
            QVERIFY(cur["mfu"].get<double>() < cur["mfu_high"].get<double>());
        }
        if (axis == QStringLiteral("seq")) {
            const auto predict = runJson(
                QStringLiteral("predict"), QStringLiteral("--model llama-3.1-8b --gpu b200 --gpus 8 --seq 8192"));
            const auto& at8k = j["points"][2]["current"];
            QCOMPARE(j["points"][2]["x"].get<double>(), 8192.0);
            QCOMPARE(at8k["mfu_low"].get<double>(), predict["mfu_low"].get<double>());
            QCOMPARE(at8k["tokens_per_sec_per_gpu_high"].get<double>(),
                predict["tokens_per_sec_per_gpu_high"].get<double>());
        }
    }

    void errorsAreOneLine_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad ac") << "predict"
                                << "--model llama-3.1-8b --gpu b200 --ac sometimes"
                                << "--ac";
        QTest::newRow("tp not dividing") << "predict"
                                         << "--model llama-3.1-8b --gpu b200 --gpus 8 --tp 3"
                                         << "divide";
        QTest::newRow("no axis") << "sweep"
                                 << "--model llama-3.1-8b --gpu b200"
                                 << "--axis";
        QTest::newRow("bad axis") << "sweep"
                                  << "--model llama-3.1-8b --gpu b200 --axis batch"
                                  << "--axis";
        QTest::newRow("bare model") << "plan"
                                    << "--params 7B --gpu b200 --gpus 8"
                                    << "architecture";
        // A precision the sweep cannot draw was silently drawn as BF16.
        QTest::newRow("unknown precision point") << "sweep"
                                                 << "--model llama-3.1-8b --gpu b200 --axis precision --values int8"
                                                 << "'int8' is not a training precision";
        QTest::newRow("network point beyond any fabric")
            << "sweep"
            << "--model llama-3.1-8b --gpu b200 --axis network --values 0.5"
            << "--values: 0.5 Gb/s is not a network per GPU";
        // A figure beyond any fabric is written as typed, not as 31 digits.
        QTest::newRow("network far beyond any fabric")
            << "predict"
            << "--model llama-3.1-8b --gpu b200 --scale-out-gbps 1e30"
            << "--scale-out-gbps: 1e+30 Gb/s is not a network per GPU (from 1 to 800,000 Gb/s)";
        QTest::newRow("prefetch beyond the layers") << "predict"
                                                    << "--model llama-3.1-8b --gpu b200 --gpus 8 --fsdp-prefetch 64"
                                                    << "FSDP prefetch";
    }
    void errorsAreOneLine()
    {
        QFETCH(QString, command);
        QFETCH(QString, args);
        QFETCH(QString, expected);
        const Run r = runCli(command, args.split(QLatin1Char(' ')));
        QVERIFY(r.status != 0);
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(r.err.startsWith(QStringLiteral("mfu-explorer ") + command + QStringLiteral(": error: ")),
            qPrintable(r.err));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliPredict)
#include "tst_cli_predict.moc"
