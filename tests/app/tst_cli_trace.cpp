// Contract test of `mfu-explorer trace`: runs the real binary and checks the FIXED JSON keys (a contract), the exact
// figures of a synthetic trace, --compare, measured MFU, the GPU preset proposed from the trace's GPU name (built-in
// and user presets, the real traces in ../shared/traces), the one-line error on a bad file, and `trace merge` of
// per-rank summaries against the run.
#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>

#include "file_size_limit.h"

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// `presetsDir`: the user presets folder (MFU_EXPLORER_PRESETS_DIR); empty = a folder that does not exist.
Run runCli(const QStringList& args, const QString& presetsDir = QStringLiteral("/nonexistent/mfu-presets"))
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("MFU_EXPLORER_PRESETS_DIR"), presetsDir);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(MFU_CLI_BINARY), QStringList { QStringLiteral("trace") } + args);
    p.waitForFinished(60000);
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return path;
}

QByteArray kernel(const char* name, const char* ts, const char* dur, int stream)
{
    return QByteArray("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"") + name
        + "\", \"pid\": 0, \"tid\": " + QByteArray::number(stream) + ", \"ts\": " + ts + ", \"dur\": " + dur
        + ", \"args\": {\"device\": 0, \"stream\": " + QByteArray::number(stream) + "}}";
}

// GEMM [0,100) and all-reduce [50,150) on two streams, then ProfilerStep#1 [0,200) and #2 [200,400) on the GPU.
// Step 1 (kept): span 200 us, busy 150, idle 50, comm 100 of which 50 under the GEMM.
QByteArray syntheticTrace(const QByteArray& gpuName = "NVIDIA H100 80GB HBM3")
{
    return "{\"deviceProperties\": [{\"id\": 0, \"name\": \"" + gpuName
        + "\"}],"
          " \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"traceEvents\": ["
        + kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "0", "100", 7) + ","
        + kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", "50", "100", 20) + ","
        + kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "200", "100", 7) + ","
        + "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 0, \"dur\": 200},"
        + "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 200, \"dur\": 200}]}";
}

// The trace PyTorch 2.11 wrote on an H200 and the config of the model it ran (shared/traces).
QString pytorch211Trace()
{
    return QStringLiteral(MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
}

QString pytorch211Config()
{
    return QStringLiteral(MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape.config.json");
}

} // namespace

class TestCliTrace : public QObject {
    Q_OBJECT

private slots:
    void fixedKeysAndFigures()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace());
        const Run r = runCli({ path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["ranks"].size(), size_t(1));
        const auto& rank = j["ranks"][0];
        QCOMPARE(rank["rank"].get<int>(), 0);
        QCOMPARE(rank["gpu_name"].get<std::string>(), std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(rank["kernel_count"].get<int>(), 2);
        QCOMPARE(rank["steps"].size(), size_t(1));
        QCOMPARE(rank["steps"][0]["step"].get<int>(), 1);
        QCOMPARE(rank["steps"][0]["start_ns"].get<int64_t>(), int64_t(0));
        QCOMPARE(rank["steps"][0]["duration_s"].get<double>(), 200e-6);
        QCOMPARE(rank["busy_s"].get<double>(), 150e-6);
        QCOMPARE(rank["idle_s"].get<double>(), 50e-6);
        QCOMPARE(rank["categories"]["gemm"]["seconds"].get<double>(), 100e-6);
        QCOMPARE(rank["categories"]["gemm"]["share"].get<double>(), 0.5);
        QCOMPARE(rank["categories"]["comm_allreduce"]["seconds"].get<double>(), 100e-6);
        QCOMPARE(rank["comm_s"].get<double>(), 100e-6);
        QCOMPARE(rank["comm_overlap_fraction"].get<double>(), 0.5);
        QCOMPARE(rank["exposed_comm_s"].get<double>(), 50e-6);
        QVERIFY(!rank.contains("measured_mfu"));
    }

    // A file cut off in the middle says it is probably truncated; a trace with no GPU activity says so in the text
    // as well as in its JSON warnings, instead of a summary of zeros alone.
    void cutOffAndEmptyTraces()
    {
        QTemporaryDir dir;
        const QByteArray whole = syntheticTrace();
        const Run cut = runCli({ writeFile(dir, QStringLiteral("cut.json"), whole.left(whole.size() / 2)) });
        QCOMPARE(cut.exitCode, 2);
        QVERIFY2(cut.err.contains("truncated"), cut.err.constData());
        // Cut between two events: the reader meets the end where an event belongs.
        const Run between
            = runCli({ writeFile(dir, QStringLiteral("between.json"), whole.left(whole.indexOf("}},") + 3)) });
        QCOMPARE(between.exitCode, 2);
        QVERIFY2(between.err.contains("the file ends there, so it is probably truncated"), between.err.constData());
        const Run empty = runCli({ writeFile(dir, QStringLiteral("empty.json"), "{\"traceEvents\": []}") });
        QCOMPARE(empty.exitCode, 0);
        QVERIFY2(empty.out.contains("warning: no GPU activity"), empty.out.constData());
    }

    // A bare 1e9-parameter model (6N = 6e9 FLOP/token), 10 tokens per 200 us step on one GPU: 5e4 tokens/s,
    // 3e14 FLOP/s against the H100 SXM's 989 TFLOPS dense BF16 = 30.33%.
    void measuredMfu()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace());
        const Run r = runCli({ path, QStringLiteral("--params"), QStringLiteral("1e9"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("10"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j["ranks"][0].contains("measured_mfu"));
        // The GPU preset comes from deviceProperties (h100-sxm, 989 TFLOPS dense BF16).
        QCOMPARE(j["measured_mfu"]["inputs"]["gpu"].get<std::string>(), std::string("h100-sxm"));
        QCOMPARE(j["measured_mfu"]["peak_dense_tflops_per_gpu"].get<double>(), 989.0);
        QVERIFY(qAbs(j["ranks"][0]["measured_mfu"].get<double>() - 3e14 / 989e12) < 1e-12);
        QVERIFY(qAbs(j["measured_mfu"]["mfu"].get<double>() - 3e14 / 989e12) < 1e-12);
        QCOMPARE(j["measured_mfu"]["inputs"]["tokens_per_step_from"].get<std::string>(), std::string("flag"));
        QCOMPARE(j["measured_mfu"]["inputs"]["seq_from"].get<std::string>(), std::string("default"));
        // A model alone takes the tokens per step from the trace's token ids; this trace recorded none: the error says
        // which flag to give and why.
        const Run noTokens = runCli({ path, QStringLiteral("--params"), QStringLiteral("1e9") });
        QCOMPARE(noTokens.exitCode, 2);
        QVERIFY2(noTokens.err.contains("measured MFU needs --tokens-per-step: the trace records no usable token ids"),
            noTokens.err.constData());
        const Run noModel = runCli({ path, QStringLiteral("--tokens-per-step"), QStringLiteral("10") });
        QCOMPARE(noModel.exitCode, 2);
        QVERIFY2(noModel.err.contains("measured MFU needs a model (--model or --params)"), noModel.err.constData());
    }

    // The GPU name maps to a preset through the presets' "match" patterns.
    void proposedGpuPreset_data()
    {
        QTest::addColumn<QByteArray>("gpuName");
        QTest::addColumn<QString>("preset");
        QTest::newRow("H100 SXM") << QByteArray("NVIDIA H100 80GB HBM3") << "h100-sxm";
        QTest::newRow("V100 32GB") << QByteArray("Tesla V100-SXM2-32GB") << "v100-sxm2-32gb";
        QTest::newRow("RTX 3090") << QByteArray("NVIDIA GeForce RTX 3090") << "rtx-3090";
        QTest::newRow("MI210") << QByteArray("AMD Instinct MI210") << "mi210";
    }
    void proposedGpuPreset()
    {
        QFETCH(QByteArray, gpuName);
        QFETCH(QString, preset);
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace(gpuName));
        const Run r = runCli({ path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto rank = nlohmann::json::parse(r.out.toStdString())["ranks"][0];
        QCOMPARE(QString::fromStdString(rank["proposed_gpu_preset"].get<std::string>()), preset);
        QVERIFY(!rank.contains("gpu_preset_hint"));
        const Run text = runCli({ path });
        QVERIFY2(text.out.contains("GPU preset " + preset.toUtf8()), text.out.constData());
    }

    // No preset matches: null, the name kept, and a hint (JSON and text) naming the user presets folder; a preset
    // file there with the name in its "match" list makes it match, and measured MFU then finds the GPU itself.
    void unmatchedGpuSaysHowToAddAPreset()
    {
        QTemporaryDir dir;
        QTemporaryDir presets;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace("NVIDIA RTX A6000"));
        Run r = runCli({ path, QStringLiteral("--json") }, presets.path());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        auto rank = nlohmann::json::parse(r.out.toStdString())["ranks"][0];
        QVERIFY(rank["proposed_gpu_preset"].is_null());
        QCOMPARE(rank["gpu_name"].get<std::string>(), std::string("NVIDIA RTX A6000"));
        const QString hint = QString::fromStdString(rank["gpu_preset_hint"].get<std::string>());
        QVERIFY2(hint.contains(presets.path()) && hint.contains("\"match\"") && hint.contains("NVIDIA RTX A6000"),
            qPrintable(hint));
        r = runCli({ path }, presets.path());
        QVERIFY2(r.out.contains("GPU preset: no hardware preset matches 'NVIDIA RTX A6000'"), r.out.constData());
        r = runCli({ path, QStringLiteral("--params"), QStringLiteral("1e9"), QStringLiteral("--tokens-per-step"),
                       QStringLiteral("10"), QStringLiteral("--json") },
            presets.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no hardware preset matches"), r.err.constData());

        // 300 TFLOPS dense BF16 (a made-up test figure): 3e14 FLOP/s achieved / 300e12 = MFU 1.0 exactly.
        const QByteArray user = R"({"format": "mfu-explorer-hardware", "version": 1, "hardware": [
            {"id": "rtx-a6000", "name": "Our RTX A6000", "match": ["NVIDIA RTX A6000"],
             "peak_dense_tflops": {"bf16": 300}, "memory_gb": 48, "hbm_bandwidth_gbps": 768,
             "sources": {"peak_dense_tflops": "test figure", "memory_gb": "test figure",
                         "hbm_bandwidth_gbps": "test figure"}}]})";
        writeFile(presets, QStringLiteral("a6000.json"), user);
        r = runCli({ path, QStringLiteral("--params"), QStringLiteral("1e9"), QStringLiteral("--tokens-per-step"),
                       QStringLiteral("10"), QStringLiteral("--json") },
            presets.path());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["ranks"][0]["proposed_gpu_preset"].get<std::string>(), std::string("rtx-a6000"));
        QCOMPARE(j["measured_mfu"]["inputs"]["gpu"].get<std::string>(), std::string("rtx-a6000"));
        QCOMPARE(j["measured_mfu"]["mfu"].get<double>(), 1.0);
    }

    // Ambiguous: a bare "NVIDIA A100" could be three presets; none is proposed and the candidates are listed.
    void ambiguousGpuListsCandidates()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace("NVIDIA A100"));
        const Run r = runCli({ path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto rank = nlohmann::json::parse(r.out.toStdString())["ranks"][0];
        QVERIFY(rank["proposed_gpu_preset"].is_null());
        QCOMPARE(rank["gpu_preset_candidates"].size(), size_t(3));
        QVERIFY(rank["gpu_preset_hint"].get<std::string>().find("could be any of") != std::string::npos);
    }

    // V100 has no BF16: measured MFU is against its 125 TFLOPS FP16 tensor peak, and the JSON says FP16.
    // 6e9 FLOP/token x 5e4 tokens/s = 3e14 FLOP/s / 125e12 = 2.4 (the synthetic step is tiny).
    void v100MeasuresAgainstFp16()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace("Tesla V100-SXM2-16GB"));
        const Run r = runCli({ path, QStringLiteral("--params"), QStringLiteral("1e9"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("10"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["measured_mfu"]["inputs"]["gpu"].get<std::string>(), std::string("v100-sxm2-16gb"));
        QCOMPARE(j["measured_mfu"]["peak_dense_tflops_per_gpu"].get<double>(), 125.0);
        QCOMPARE(j["measured_mfu"]["peak_format"].get<std::string>(), std::string("fp16"));
        // 240% is no GPU's MFU: withheld as in the window and the report, the figure kept on record beside the reason.
        QVERIFY(j["measured_mfu"]["mfu"].is_null());
        QVERIFY(qAbs(j["measured_mfu"]["withheld_mfu"].get<double>() - 3e14 / 125e12) < 1e-12);
        QVERIFY(j["measured_mfu"]["withheld"].get<std::string>().find("above 100%") != std::string::npos);
        QVERIFY(!j["ranks"][0].contains("measured_mfu"));
    }

    // An H100 trace read with --gpu b200: the step ran on an H100, so MFU against the B200's peak means nothing. The
    // window withholds it; the command line and its JSON do the same, with the reason (core/facts/shown_mfu.h).
    void otherGpuWithholdsMeasuredMfu()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("t.json"), syntheticTrace());
        const QStringList args { path, QStringLiteral("--params"), QStringLiteral("1e9"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("10"), QStringLiteral("--gpu"),
            QStringLiteral("b200") };
        const Run r = runCli(args + QStringList { QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j["measured_mfu"]["mfu"].is_null());
        QVERIFY(j["measured_mfu"]["withheld"].get<std::string>().find("its peak does not apply") != std::string::npos);
        QVERIFY(j["measured_mfu"]["withheld_mfu"].get<double>() < 1.0); // plausible, and still not the run's MFU
        QVERIFY(!j.contains("mfu_check"));
        const Run text = runCli(args);
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("measured MFU not shown: the file ran on NVIDIA H100"), text.out.constData());
        QVERIFY(!text.out.contains("measured MFU 13.33%")); // 3e14 FLOP/s over the B200's 2,250 TFLOPS
    }

    // The real public traces: Meta's A100-PG509-200 (40 GB: totalGlobalMem 42,297,524,224), TraceLens's H100 SXM,
    // and HTA's sampled pair that records no GPU.
    void realTracesProposeTheirPreset_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("preset");
        QTest::newRow("A100 PG509-200") << "hta__nccl_parser_config__nccl_data.json.gz"
                                        << "a100-sxm-40gb";
        QTest::newRow("H100 80GB HBM3") << "tracelens__h100__qwen1.5-0.5b-chat.json.gz"
                                        << "h100-sxm";
        QTest::newRow("none recorded") << "hta__trace_filter__sampled_rank-0.json.gz"
                                       << "";
    }
    void realTracesProposeTheirPreset()
    {
        QFETCH(QString, file);
        QFETCH(QString, preset);
        const QString path = QStringLiteral(MFU_SHARED_TRACES_DIR "/") + file;
        if (!QFile::exists(path))
            QSKIP(qPrintable(
                QStringLiteral("real trace not found: %1 (shared/traces is absent in this checkout)").arg(path)));
        const Run r = runCli({ path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto rank = nlohmann::json::parse(r.out.toStdString())["ranks"][0];
        if (preset.isEmpty()) {
            QVERIFY(rank["gpu_name"].is_null());
            QVERIFY(rank["proposed_gpu_preset"].is_null());
            QVERIFY(!rank.contains("gpu_preset_hint"));
            // No GPU, no roof: the marks' attainable TFLOPS were 0.0 beside an achieved 54.9.
            QVERIFY(rank["roofline"]["ceilings"].empty() && !rank["roofline"]["marks"].empty());
            for (const auto& mark : rank["roofline"]["marks"])
                QVERIFY(mark["attainable_tflops"].is_null());
            const QString text = QString::fromUtf8(runCli({ path }).out);
            QVERIFY2(
                text.contains(QStringLiteral("no roof: the trace names no GPU")) && !text.contains(" /       0.0 "),
                qPrintable(text));
        } else {
            QCOMPARE(QString::fromStdString(rank["proposed_gpu_preset"].get<std::string>()), preset);
        }
    }

    // HTA's sampled pair is a recommender (fbgemm embeddings, FP32 GEMMs): read as Llama 3.1 8B on 128 B200 it gave
    // 34% measured MFU. Its operators did under a TFLOP of matrix work a step per GPU, the model 474: withheld, with
    // both figures, on the command line as in the window and the report (core/facts/shown_mfu.h).
    void recommenderTraceIsNoStepOfLlama()
    {
        const QString dir = QStringLiteral(MFU_SHARED_TRACES_DIR "/");
        const QStringList traces { dir + QStringLiteral("hta__trace_filter__sampled_rank-0.json.gz"),
            dir + QStringLiteral("hta__trace_filter__sampled_rank-1.json.gz") };
        if (!QFile::exists(traces[0]) || !QFile::exists(traces[1]))
            QSKIP("HTA's sampled traces are not in shared/traces in this checkout");
        const QStringList scenario { QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"),
            QStringLiteral("b200"), QStringLiteral("--gpus"), QStringLiteral("128"), QStringLiteral("--seq"),
            QStringLiteral("8192"), QStringLiteral("--tokens-per-step"), QStringLiteral("1048576") };
        const Run r = runCli(traces + scenario);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("measured MFU not shown: the trace's operators did 0.")), qPrintable(out));
        QVERIFY2(
            out.contains(QStringLiteral("x more): the trace is not a step of this model and batch")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("measured MFU 34.")), qPrintable(out));
    }

    void compareTwoRuns()
    {
        QTemporaryDir dir;
        const QString base = writeFile(dir, QStringLiteral("base.json"), syntheticTrace());
        QByteArray faster = syntheticTrace();
        faster.replace("\"dur\": 200}", "\"dur\": 100}"); // both steps annotated half as long
        const QString opt = writeFile(dir, QStringLiteral("opt.json"), faster);
        const Run r = runCli({ base, QStringLiteral("--compare"), opt, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j.contains("compare"));
        QCOMPARE(j["comparison"]["baseline_step_s"].get<double>(), 200e-6);
        QCOMPARE(j["comparison"]["optimised_step_s"].get<double>(), 100e-6);
        QCOMPARE(j["comparison"]["speedup"].get<double>(), 2.0);
    }

    // Without --json: the straggler table and the collective-wait summary for several ranks, the top kernel diffs
    // for --compare. Rank 1's clock starts 30 us later (baseTimeNanoseconds), so its all-reduce starts at 80 us
    // against rank 0's 50 us: rank 0 waits 0.030 ms, rank 1 is the one waited for.
    void textOutputAcrossRanksAndKernelDiff()
    {
        QTemporaryDir dir;
        QByteArray first = syntheticTrace();
        first.replace("\"distributedInfo\": {\"rank\": 0, \"world_size\": 1}",
            "\"distributedInfo\": {\"rank\": 0, \"world_size\": 2}");
        const QString r0 = writeFile(dir, QStringLiteral("r0.json"), first);
        QByteArray second = syntheticTrace();
        second.replace("\"distributedInfo\": {\"rank\": 0, \"world_size\": 1}",
            "\"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"baseTimeNanoseconds\": 30000");
        const QString r1 = writeFile(dir, QStringLiteral("r1.json"), second);
        const Run r = runCli({ r0, r1 });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(
            out.contains(QStringLiteral("stragglers: step time per rank (ms, analysed steps) and collective wait")),
            qPrintable(out));
        // rank, steps, min, quartile 1, median, quartile 3, max, mean (one step of 0.2 ms), then the wait.
        QVERIFY2(
            QRegularExpression(QStringLiteral("\\n +0 +1 +0\\.200 +0\\.200 +0\\.200 +0\\.200 +0\\.200 +0\\.200 +\\| +"
                                              "0\\.030 +0 of 1\\n"))
                .match(out)
                .hasMatch(),
            qPrintable(out));
        QVERIFY2(out.contains(
                     QStringLiteral("collective wait: 1 collectives matched on every rank, 0 calls left unmatched")),
            qPrintable(out));
        QVERIFY2(QRegularExpression(QStringLiteral("\\n +0 +comm_allreduce +rank 1 +0\\.030 +0\\.015\\n"))
                     .match(out)
                     .hasMatch(),
            qPrintable(out));

        // --compare: the GEMM of the kept step runs 60 instead of 100 us: -0.040 ms, the largest change.
        QByteArray faster = syntheticTrace();
        faster.replace("\"ts\": 0, \"dur\": 100", "\"ts\": 0, \"dur\": 60");
        const QString opt = writeFile(dir, QStringLiteral("opt.json"), faster);
        const Run c = runCli({ r0, QStringLiteral("--compare"), opt });
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const QString text = QString::fromUtf8(c.out);
        QVERIFY2(text.contains(
                     QStringLiteral("top kernel changes (per analysed step, all ranks; calls over all analysed steps; "
                                    "2 of 2 kernels):")),
            qPrintable(text));
        QVERIFY2(QRegularExpression(QStringLiteral("\\n +-0\\.040 +0\\.100 +0\\.060 +1 -> 1 +gemm +sm90_xmma_gemm"))
                     .match(text)
                     .hasMatch(),
            qPrintable(text));
    }

    // Ranks of different jobs are refused unless --as-one-run says otherwise; then the JSON says what looked wrong.
    void ranksOfDifferentJobs()
    {
        QTemporaryDir dir;
        const QString a = writeFile(dir, QStringLiteral("a.json"), syntheticTrace());
        QByteArray other = syntheticTrace("Tesla V100-SXM2-32GB");
        other.replace("\"world_size\": 1", "\"world_size\": 2");
        const QString b = writeFile(dir, QStringLiteral("b.json"), other);
        const Run refused = runCli({ a, b, QStringLiteral("--json") });
        QCOMPARE(refused.exitCode, 2);
        const QString err = QString::fromUtf8(refused.err);
        QVERIFY2(err.contains(QStringLiteral("their world sizes differ: a.json (1), b.json (2)")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("they ran on different GPUs")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("rank 0 appears 2 times")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("--as-one-run")), qPrintable(err));
        const Run insisted = runCli({ a, b, QStringLiteral("--as-one-run"), QStringLiteral("--json") });
        QVERIFY2(insisted.exitCode == 0, insisted.err.constData());
        const auto j = nlohmann::json::parse(insisted.out.toStdString());
        QCOMPARE(j["run_check"]["one_run"].get<bool>(), false);
        QCOMPARE(j["run_check"]["problems"].size(), size_t { 3 });
    }

    // The comparison names the faster run and, when they differ, both GPUs.
    void comparisonSaysWhichRunIsFaster()
    {
        QTemporaryDir dir;
        const QString base = writeFile(dir, QStringLiteral("base.json"), syntheticTrace("NVIDIA A100-SXM4-80GB"));
        QByteArray slower = syntheticTrace("Tesla V100-SXM2-32GB");
        slower.replace("\"ts\": 200, \"dur\": 200}]", "\"ts\": 300, \"dur\": 200}]");
        slower.replace("\"ts\": 0, \"dur\": 200}", "\"ts\": 0, \"dur\": 300}");
        const QString opt = writeFile(dir, QStringLiteral("opt.json"), slower);
        const Run r = runCli({ base, QStringLiteral("--compare"), opt, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto c = nlohmann::json::parse(r.out.toStdString())["comparison"];
        QCOMPARE(c["faster"].get<std::string>(), std::string("baseline"));
        QCOMPARE(c["gpus_differ"].get<bool>(), true);
        const std::string verdict = c["verdict"].get<std::string>();
        QVERIFY2(verdict.find("This run is 1.50x slower than the baseline: 300.000 ms") != std::string::npos
                || verdict.find("This run is 1.50x slower than the baseline: 0.300 ms") != std::string::npos,
            verdict.c_str());
        QVERIFY2(verdict.find("baseline: NVIDIA A100-SXM4-80GB, this run: Tesla V100-SXM2-32GB") != std::string::npos,
            verdict.c_str());
        const Run text = runCli({ base, QStringLiteral("--compare"), opt });
        QVERIFY2(text.out.contains("slower than the baseline"), text.out.constData());
        QVERIFY2(!text.out.contains("speed-up"), text.out.constData());
    }

    // The TraceLens H100 trace records shapes: FLOPs per op, trace MFU, the roofline and the critical path.
    void workFromShapesOnARealTrace()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        const QString h100 = QStringLiteral(MFU_SHARED_TRACES_DIR "/tracelens__h100__qwen1.5-0.5b-chat.json.gz");
        const Run r = runCli({ h100, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto rank = nlohmann::json::parse(r.out.toStdString())["ranks"][0];
        const auto& f = rank["op_flops"];
        QVERIFY(f["matmul_flops"].get<double>() > 5e12); // the Python count: tests/core/trace/tst_op_flops_real.cpp
        QCOMPARE(f["ops_with_shapes"].get<int64_t>(), int64_t { 193 });
        QCOMPARE(f["ops_without_shapes"].get<int64_t>(), int64_t { 0 });
        QCOMPARE(f["ops_with_impossible_shapes"].get<int64_t>(), int64_t { 0 });
        const double mfu = f["trace_mfu"].get<double>();
        // 5.760 TFLOP over the loop's 47.151 ms step (ProfilerStep#6) at 989 TFLOPS: 12.35%. Over the step's GPU
        // window alone (34.892 ms: the host kept the GPU waiting for the rest) it had read 16.69%.
        QVERIFY2(std::abs(mfu - 0.1235) < 0.0005, qPrintable(QString::number(mfu)));
        QCOMPARE(rank["steps"][0]["trace_mfu"].get<double>(), mfu); // one analysed step
        QCOMPARE(f["trace_mfu_gpu"].get<std::string>(), std::string("h100-sxm"));
        QCOMPARE(rank["roofline"]["ceilings"][0]["peak_tflops"].get<double>(), 989.0);
        QVERIFY(!rank["roofline"]["marks"].empty());
        double shares = 0;
        for (const auto& [key, share] : rank["critical_path"]["shares"].items())
            shares += share.get<double>();
        QVERIFY(std::abs(shares - 1) < 1e-9);
        QVERIFY(!rank["critical_path"]["chain"].empty());
        // With a model: the trace's MFU beside the scenario's, and why they differ (an inference trace against a
        // training FLOP/token).
        const Run withModel = runCli({ h100, QStringLiteral("--params"), QStringLiteral("0.5e9"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("8944"), QStringLiteral("--json") });
        QVERIFY2(withModel.exitCode == 0, withModel.err.constData());
        const auto check = nlohmann::json::parse(withModel.out.toStdString())["mfu_check"];
        QCOMPARE(check["trace_mfu"].get<double>(), mfu);
        QVERIFY(!check["agrees"].get<bool>());
        QVERIFY2(check["explanations"].dump().find("no backward pass") != std::string::npos, check.dump().c_str());
        const Run text = runCli({ h100 });
        QVERIFY2(text.out.contains("trace MFU"), text.out.constData());
        QVERIFY2(text.out.contains("critical path"), text.out.constData());
    }

    // The H200 trace against 1M tokens a step (32x what it ran): the measured MFU is withheld, and the check beside
    // the trace's own figure names the ratio, never the impossible figure (it had printed 1,449.06%).
    void withheldMfuIsNotPrintedByTheCheck()
    {
        const QString trace = pytorch211Trace();
        const QString config = pytorch211Config();
        if (!QFile::exists(trace) || !QFile::exists(config))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        const QStringList args { trace, QStringLiteral("--model"), config, QStringLiteral("--seq"),
            QStringLiteral("4096"), QStringLiteral("--tokens-per-step"), QStringLiteral("1M") };
        const Run r = runCli(args + QStringList { QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j["measured_mfu"]["mfu"].is_null());
        QVERIFY(j["measured_mfu"]["withheld_mfu"].get<double>() > 1); // on record, under its own name
        const auto& check = j["mfu_check"];
        QVERIFY(check["measured_mfu"].is_null());
        QVERIFY(!check["agrees"].get<bool>());
        const std::string summary = check["summary"].get<std::string>();
        QVERIFY2(summary.find("impossible") != std::string::npos, summary.c_str());
        const Run text = runCli(args);
        QVERIFY2(text.exitCode == 0, text.err.constData());
        // No percentage above 100 anywhere in the text (shares of 100.00% are fine).
        static const QRegularExpression percent(QStringLiteral("([0-9][0-9,]*(\\.[0-9]+)?)%"));
        const QString out = QString::fromUtf8(text.out);
        for (auto it = percent.globalMatch(out); it.hasNext();) {
            const QString figure = it.next().captured(1);
            QVERIFY2(QString(figure).remove(QLatin1Char(',')).toDouble() <= 100.0, qPrintable(figure + "% in " + out));
        }
    }

    // The H200 trace read at --seq 8192 where it recorded 4,096: the two MFUs disagree, and the check names the
    // sequence length the user stated against the one the trace recorded, not only "the model or tokens per step".
    void statedSequenceAgainstTheRecordedOne()
    {
        const QString trace = pytorch211Trace();
        const QString config = pytorch211Config();
        if (!QFile::exists(trace) || !QFile::exists(config))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        const Run r = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--seq"),
            QStringLiteral("8192"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& check = j["mfu_check"];
        QVERIFY(!check["agrees"].get<bool>());
        const std::string why = check["explanations"].back().get<std::string>();
        QVERIFY2(
            why.find("sequence length 4,096 in the file vs 8,192 in the scenario") != std::string::npos, why.c_str());
        QVERIFY2(why.find("x the FLOPs per step that the trace's operators did") != std::string::npos, why.c_str());
        // At the length it recorded, nothing differs and the two agree (pytorch211TraceMeasuresTheLoopsStep).
    }

    // Two readings of one run's work, counted the same way, must agree. The trace's operators give the model's
    // FLOPs with causal attention as it ran and the backward's recomputed Q·Kᵀ left out; the per-component causal
    // formula counts the config's work the same way. Over the same steps the two MFUs meet within 0.1% (43.32%
    // both); counting the fused backward at the 2.5x it executes had read 45.37%, 4.7% above the model's.
    void traceMfuEqualsTheCausalFormulasOnPyTorch211()
    {
        const QString trace = pytorch211Trace();
        const QString config = pytorch211Config();
        if (!QFile::exists(trace) || !QFile::exists(config))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        const Run r = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--gpu"),
            QStringLiteral("h200"), QStringLiteral("--seq"), QStringLiteral("4096"), QStringLiteral("--formula"),
            QStringLiteral("per_component_causal"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& check = j["mfu_check"];
        QVERIFY2(check["agrees"].get<bool>(), check.dump().c_str());
        const double traceMfu = check["trace_mfu"].get<double>();
        const double measuredMfu = check["measured_mfu"].get<double>();
        QVERIFY2(std::abs(measuredMfu / traceMfu - 1) < 1e-3, check.dump().c_str());
        const auto& f = j["ranks"][0]["op_flops"];
        const double recomputed = f["attention_recomputed_flops"].get<double>();
        // The trace HFU counts what the kernels executed over the same steps: the recomputed Q·Kᵀ too.
        const double traceHfu = j["trace_hfu"].get<double>();
        const double executed = f["flops_executed_in_steps"].get<double>();
        QVERIFY2(std::abs(traceHfu / traceMfu - executed / f["flops_in_steps"].get<double>()) < 1e-9, f.dump().c_str());
        QVERIFY2(traceHfu > 1.04 * traceMfu && traceHfu < 1.05 * traceMfu, j.dump().c_str()); // 45.37% / 43.32%
        QVERIFY2(j["trace_hfu_note"].get<std::string>().find("Q·Kᵀ the attention backward kernels compute again")
                != std::string::npos,
            j["trace_hfu_note"].dump().c_str());
        // Half a forward recomputed against three forwards' worth of model work (forward and backward): a sixth.
        QVERIFY2(recomputed > 0.16 * f["attention_flops"].get<double>(), f.dump().c_str());
        QVERIFY2(recomputed < 0.17 * f["attention_flops"].get<double>(), f.dump().c_str());
    }

    // A Qwen3-MoE-style training step PyTorch 2.11 recorded on an H200 (bench/gpu/moe_training_step.py, kept beside
    // it): 12 layers, 64 experts of 768 (top 8) through torch._grouped_mm, 4 x 4,096 tokens, one CPU step annotation
    // that ends before the GPU finishes the work it launched. The operators' FLOPs are the config's, and the
    // explanation of the two MFUs' difference gives the FLOPs' ratio, not the MFUs' (which also differ in time).
    void moeStepFromPyTorch211()
    {
        const QString trace
            = QStringLiteral(MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-moe-qwen3-12l-64e-768-s4096-mb4.json.gz");
        const QString config
            = QStringLiteral(MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-moe-qwen3-12l-64e-768.config.json");
        const Run r = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--gpu"),
            QStringLiteral("h200"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto out = nlohmann::json::parse(r.out.toStdString());
        const auto& f = out["ranks"][0]["op_flops"];
        const double tokens = 4 * 4096;
        // Dense GEMMs: 6 x tokens x (12 x (QKV 2,048 x 5,120 + output 4,096 x 2,048 + router 2,048 x 64) + the LM head
        // 2,048 x 32,000).
        const double matmul = 6 * tokens * (12 * (2048.0 * 5120 + 4096.0 * 2048 + 2048.0 * 64) + 2048.0 * 32000);
        QVERIFY2(std::abs(f["matmul_flops"].get<double>() / matmul - 1) < 1e-3, f.dump().c_str());
        // Grouped GEMMs: 6 x 3 x 2,048 x 768 per routed row and layer, 8 x tokens rows, each expert's padded to a
        // multiple of 16 (up to 64 x 15 more a layer).
        const double perRow = 6 * 3 * 2048.0 * 768;
        const double grouped = f["grouped_gemm_flops"].get<double>();
        QVERIFY2(
            grouped >= 12 * perRow * 8 * tokens && grouped <= 12 * perRow * (8 * tokens + 64 * 15), f.dump().c_str());
        // Causal attention, the model's backward at twice the forward: 12 x 3 x 2 x 4 x 32 x 4,096^2 x 256 / 2; the
        // backward kernels' recomputed Q·Kᵀ (a quarter of a forward's 256-wide products, over 128) is no model work.
        QCOMPARE(f["attention_flops"].get<double>(), 12 * 3.0 * 2 * 4 * 32 * 4096.0 * 4096 * 256 / 2);
        QCOMPARE(f["attention_recomputed_flops"].get<double>(), 12 * 2.0 * 4 * 32 * 4096.0 * 4096 * 128 / 2);
        // The scenario's MFU counts PaLM's full attention square; the trace's, the causal half that ran. Their FLOPs
        // differ by (6 N + PaLM's attention) / (6 N + the causal attention's model FLOPs) = 1.21x, whatever the step
        // times.
        const auto& check = out["mfu_check"];
        QVERIFY(!check["agrees"].get<bool>());
        QVERIFY2(
            check["explanations"].dump().find("1.21x the FLOPs per step") != std::string::npos, check.dump().c_str());
        // That count is named, with the formula that counts as the trace does; under it, it is not named again.
        QVERIFY2(check["explanations"].dump().find("(per_layer) counts each attention layer over the whole square")
                != std::string::npos,
            check.dump().c_str());
        const Run causal
            = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--gpu"), QStringLiteral("h200"),
                QStringLiteral("--formula"), QStringLiteral("per_component_causal"), QStringLiteral("--json") });
        QVERIFY2(causal.exitCode == 0, causal.err.constData());
        const auto causalOut = nlohmann::json::parse(causal.out.toStdString());
        const auto& causalCheck = causalOut["mfu_check"];
        QVERIFY(causalCheck["measured_mfu"].get<double>() < check["measured_mfu"].get<double>());
        QVERIFY2(
            causalCheck["explanations"].dump().find("whole square") == std::string::npos, causalCheck.dump().c_str());
    }

    // A step PyTorch 2.11 replayed through CUDA graphs (torch.compile's reduce-overhead mode) on an H200, recorded with
    // ../shared/tools/record_training_traces.py: each step's 1,951 kernels carry one cudaGraphLaunch's correlation
    // id and no operator shapes. Timed outside the profiler (bench/gpu/h200-2026-12-04-qwen3-steps.json):
    // 169.8 ms per step, 391.1 TFLOPS by PaLM's formula = 39.55% of the H200's 989. The steps are the CPU
    // annotations, every replayed kernel lands in its own step, the measured MFU is the outside figure within the
    // profiler's own cost, and the trace MFU is refused rather than counted from nothing.
    void cudaGraphStepFromPyTorch211()
    {
        const QString trace
            = QStringLiteral(MFU_SOURCE_DIR "/bench/gpu/h200-2026-12-04-qwen3-0.6b-graphs-s2048-mb8.json.gz");
        const QString config = QStringLiteral(MFU_SOURCE_DIR "/bench/gpu/h200-2026-12-04-qwen3-0.6b.config.json");
        const Run r = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--gpu"),
            QStringLiteral("h200"), QStringLiteral("--seq"), QStringLiteral("2048"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("16384"), QStringLiteral("--flop-formula"),
            QStringLiteral("palm"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto out = nlohmann::json::parse(r.out.toStdString());
        const auto& rank = out["ranks"][0];
        QCOMPARE(rank["step_source"].get<std::string>(), std::string("cpu_annotation"));
        QCOMPARE(rank["steps"].size(), std::size_t { 3 });
        for (const auto& step : rank["steps"])
            QCOMPARE(step["kernel_count"].get<int>(), 1951);
        const double stepS = out["mean_step_s"].get<double>();
        QVERIFY2(stepS > 0.1698 && stepS < 0.1698 * 1.03, out["mean_step_s"].dump().c_str());
        const double mfu = out["measured_mfu"]["mfu"].get<double>();
        QVERIFY2(mfu < 391.1 / 989.0 && mfu > 391.1 / 989.0 / 1.03, out["measured_mfu"].dump().c_str());
        QVERIFY(out["trace_mfu"].is_null());
        QCOMPARE(out["trace_mfu_unattributed_share"].get<double>(), 1.0);
        QVERIFY2(out["trace_mfu_note"].get<std::string>().find("CUDA graph") != std::string::npos,
            out["trace_mfu_note"].dump().c_str());
    }

    // A trace whose aten::mm records int64's largest dim (a logger's overflow, a hand-edited file) beside two real
    // steps: the text says the operator's shapes are impossible, and no figure of it reaches the output (it had printed
    // "matmul 928,455,029,464,035 TFLOP", a trace MFU of 3e16% and a roofline mark at 6e17 TFLOPS).
    void impossibleShapesAreNotCounted()
    {
        QByteArray events;
        for (int step = 0; step < 3; ++step) {
            const QByteArray base = QByteArray::number(step * 1000);
            const QByteArray id = QByteArray::number(100 + step);
            const QByteArray at = QByteArray::number(step * 1000 + 100);
            events += "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#"
                + QByteArray::number(step + 1) + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + base
                + ", \"dur\": 1000, \"args\": {}},"
                + "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": " + base
                + ", \"dur\": 50, \"args\": {\"External id\": " + id
                + ", \"Input Dims\": [[9223372036854775807, 4096], [4096, 4096]], \"Input type\": "
                  "[\"c10::BFloat16\", \"c10::BFloat16\"]}},"
                + "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                  "\"tid\": 1, \"ts\": "
                + base + ", \"dur\": 2, \"args\": {\"correlation\": " + id + ", \"External id\": " + id + "}},"
                + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n\", "
                  "\"pid\": 0, \"tid\": 7, \"ts\": "
                + at + ", \"dur\": 500, \"args\": {\"correlation\": " + id + ", \"device\": 0, \"stream\": 7}}"
                + (step < 2 ? "," : "");
        }
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("overflow.json"),
            "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}], \"traceEvents\": [" + events
                + "]}");
        const Run text = runCli({ path });
        QVERIFY2(text.exitCode == 0, text.err.constData());
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("0 operators counted, 3 without readable shapes (3 with tensors no device "
                                             "could hold: more than 10 TB an operator)")),
            qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("928,455")), qPrintable(out));
        // Why the GEMMs' time has no FLOPs: the impossible shapes, beside CUDA graphs and unrecorded shapes.
        QVERIFY2(out.contains(QStringLiteral("3 operators recorded shapes no device could hold, and are not counted")),
            qPrintable(out));
        QVERIFY2(
            out.contains(QStringLiteral("; some recorded shapes no device could hold): the trace MFU leaves it out")),
            qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("faster than its precision's dense peak")), qPrintable(out));
        const Run json = runCli({ path, QStringLiteral("--json") });
        const auto f = nlohmann::json::parse(json.out.toStdString())["ranks"][0]["op_flops"];
        QCOMPARE(f["ops_with_impossible_shapes"].get<int64_t>(), int64_t { 3 });
        QCOMPARE(f["matmul_flops"].get<double>(), 0.0);
    }

    void badFileIsOneLineError()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("bad.json"), "{\"traceEvents\": [x]}");
        const Run r = runCli({ path, QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.startsWith("mfu-explorer trace: error: "), qPrintable(err));
        QVERIFY2(err.contains("bad.json: byte 17"), qPrintable(err));
        QCOMPARE(err.count('\n'), 0);
    }

    // Map/reduce contract: `trace merge` of the per-rank summaries prints exactly what `trace FILES... --json` prints.
    void mergeOfSummariesEqualsTheRun()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        QStringList traces;
        for (const char* name :
            { "hta__nccl_parser_config__nccl_data.json.gz", "hta__trace_filter__sampled_rank-0.json.gz",
                "hta__trace_filter__sampled_rank-1.json.gz", "tracelens__h100__qwen1.5-0.5b-chat.json.gz",
                "pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz" })
            traces << QStringLiteral(MFU_SHARED_TRACES_DIR "/") + QString::fromLatin1(name);
        // Five traces of five jobs: analysed as one run because the flag says so (the map/reduce contract holds).
        const QStringList asOneRun { QStringLiteral("--as-one-run"), QStringLiteral("--json") };
        const Run whole = runCli(traces + asOneRun);
        QVERIFY2(whole.exitCode == 0, whole.err.constData());
        QTemporaryDir dir;
        QStringList summaries;
        for (int i = 0; i < traces.size(); ++i) {
            const QString out = dir.filePath(QStringLiteral("r%1.summary.json").arg(i));
            const Run map = runCli({ traces[i], QStringLiteral("--summary-out"), out, QStringLiteral("--json") });
            QVERIFY2(map.exitCode == 0, map.err.constData());
            summaries << out;
        }
        const Run merged = runCli(QStringList { QStringLiteral("merge") } + summaries + asOneRun);
        QVERIFY2(merged.exitCode == 0, merged.err.constData());
        QCOMPARE(merged.out, whole.out);
        const Run folder = runCli(QStringList { QStringLiteral("merge"), dir.path() } + asOneRun);
        QCOMPARE(folder.out, whole.out);
        QVERIFY(nlohmann::json::parse(whole.out.toStdString())["ranks"].size() == 5);
    }

    // The trace PyTorch 2.11 wrote on an H200 (its README: 378.9 ms per step timed outside the profiler, 47.8% MFU;
    // CPU ProfilerStep#1..3 384.6, 383.4 and 375.3 ms) with its config and 32,768 tokens per step: the step is the
    // loop's, the measured MFU the one timed outside, the trace's own MFU present, and the text says the same.
    void pytorch211TraceMeasuresTheLoopsStep()
    {
        const QString trace = pytorch211Trace();
        const QString config = pytorch211Config();
        if (!QFile::exists(trace) || !QFile::exists(config))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        const QStringList args { trace, QStringLiteral("--model"), config, QStringLiteral("--gpu"),
            QStringLiteral("h200"), QStringLiteral("--seq"), QStringLiteral("4096"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("32768") };
        const Run r = runCli(args + QStringList { QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const auto& rank = j["ranks"][0];
        QCOMPARE(rank["step_source"].get<std::string>(), std::string("cpu_annotation"));
        QCOMPARE(rank["gpu_step_annotations"].get<std::string>(), std::string("partial"));
        QCOMPARE(rank["analysed_steps"], nlohmann::json::parse("[1, 2, 3]"));
        QVERIFY(!rank["dropped_last_step"].get<bool>());
        const double cpuMean = (0.384619974 + 0.383366408 + 0.375263767) / 3;
        QVERIFY(std::abs(j["mean_step_s"].get<double>() / cpuMean - 1) < 0.02);
        QVERIFY(std::abs(j["mean_step_s"].get<double>() / 0.3789 - 1) < 0.02);
        const double mfu = j["measured_mfu"]["mfu"].get<double>();
        QVERIFY2(std::abs(mfu / 0.478 - 1) < 0.02, qPrintable(QString::number(mfu)));
        QVERIFY(!j["measured_mfu"].contains("warning"));
        QVERIFY(j["trace_mfu"].is_number());
        QVERIFY(j["trace_mfu"].get<double>() > 0.3 && j["trace_mfu"].get<double>() <= 1.0);
        QVERIFY(!j["trace_mfu_lower_bound"].get<bool>());
        QVERIFY(j["mfu_check"]["agrees"].get<bool>());
        QCOMPARE(rank["op_flops"]["trace_mfu"].get<double>(), j["trace_mfu"].get<double>());
        // What the trace itself records (core/trace/trace_facts.h): the fused embedding's [8, 4096] token ids once a
        // step, and Inductor's kernels.
        QCOMPARE(rank["tokens_per_step_recorded"].get<double>(), 32768.0);
        QCOMPARE(rank["tokens_per_micro_step_recorded"].get<int64_t>(), int64_t(32768));
        QCOMPARE(rank["micro_steps_recorded"].get<int64_t>(), int64_t(1));
        QCOMPARE(rank["seq_len_recorded"].get<int64_t>(), int64_t(4096));
        QCOMPARE(rank["micro_batch_recorded"].get<int64_t>(), int64_t(8));
        QVERIFY(rank["compiled"].get<bool>());
        QVERIFY(rank["compiled_share"].get<double>() > 0.9);
        QCOMPARE(j["tokens_per_step_recorded"].get<double>(), 32768.0);
        QVERIFY(j["compiled"].get<bool>());

        const Run text = runCli(args);
        QVERIFY2(text.exitCode == 0, text.err.constData());
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("mean step 0.3811 s")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("measured MFU %1%").arg(mfu * 100, 0, 'f', 2)), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("steps: CPU ProfilerStep annotations")), qPrintable(out));
        QCOMPARE(j["measured_mfu"]["inputs"]["seq_from"].get<std::string>(), std::string("flag"));

        // Without --seq, --tokens-per-step and --gpu, the trace's own facts: its token ids (8 x 4,096 once a step),
        // its deviceProperties. The same figure, and the text says where the inputs came from. (The default 8,192
        // tokens would have counted attention twice over and read 72%.)
        const Run bare = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--json") });
        QVERIFY2(bare.exitCode == 0, bare.err.constData());
        const auto b = nlohmann::json::parse(bare.out.toStdString());
        QCOMPARE(b["measured_mfu"]["mfu"].get<double>(), mfu);
        QCOMPARE(b["measured_mfu"]["inputs"]["seq"].get<int64_t>(), int64_t(4096));
        QCOMPARE(b["measured_mfu"]["inputs"]["seq_from"].get<std::string>(), std::string("trace"));
        QCOMPARE(b["measured_mfu"]["inputs"]["tokens_per_step"].get<double>(), 32768.0);
        QCOMPARE(b["measured_mfu"]["inputs"]["tokens_per_step_from"].get<std::string>(), std::string("trace"));
        QVERIFY(!b["measured_mfu"].contains("warning"));
        const Run bareText = runCli({ trace, QStringLiteral("--model"), config });
        QVERIFY2(QString::fromUtf8(bareText.out)
                     .contains(QStringLiteral("; sequence 4,096 and 32,768 tokens per step as the trace records them")),
            bareText.out.constData());

        // Rank 0 of an 8-GPU run profiled alone: the lookups are that process's 32,768 tokens, not the run's. Dividing
        // them over 8 GPUs read 5.94%; the run's tokens per step must be given.
        const Run eight
            = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--gpus"), QStringLiteral("8") });
        QCOMPARE(eight.exitCode, 2);
        QVERIFY2(eight.err.contains("measured MFU needs --tokens-per-step: the trace records the 32,768 tokens a step "
                                    "of one process, but --gpus 8"),
            eight.err.constData());
        const Run stated
            = runCli({ trace, QStringLiteral("--model"), config, QStringLiteral("--gpus"), QStringLiteral("8"),
                QStringLiteral("--tokens-per-step"), QStringLiteral("262144"), QStringLiteral("--json") });
        QVERIFY2(stated.exitCode == 0, stated.err.constData());
        QCOMPARE(nlohmann::json::parse(stated.out.toStdString())["measured_mfu"]["mfu"].get<double>(), mfu);
    }

    // --summary-out is atomic (docs/cluster-scale.md): on a full disk (the file-size limit) the previous summary is
    // kept whole, since a truncated one passes a script's `[ -s file ]`, and the error gives the system's reason; a
    // symbolic link or a device as the target is refused, not replaced.
    void summaryOutIsAtomic()
    {
        QTemporaryDir dir;
        const QString trace = writeFile(dir, QStringLiteral("t.json"), syntheticTrace());
        const QString out = dir.filePath(QStringLiteral("r0.summary.json"));
        QVERIFY(runCli({ trace, QStringLiteral("--summary-out"), out }).exitCode == 0);
        QFile summary(out);
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const QByteArray previous = summary.readAll();
        summary.close();
        QVERIFY(previous.size() > 200);
        Run full;
        {
            const mfu::test::FileSizeLimit limit(100); // inherited by the child process
            QVERIFY(limit.active());
            full = runCli({ trace, QStringLiteral("--summary-out"), out });
        }
        QCOMPARE(full.exitCode, 2);
        QVERIFY2(full.err.contains("r0.summary.json: cannot be written: File too large"), full.err.constData());
        QVERIFY(summary.open(QIODevice::ReadOnly));
        QCOMPARE(summary.readAll(), previous);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), qsizetype(2)); // no temporary left

        const QString link = dir.filePath(QStringLiteral("link.summary.json"));
        QVERIFY(QFile::link(out, link));
        const Run linked = runCli({ trace, QStringLiteral("--summary-out"), link });
        QCOMPARE(linked.exitCode, 2);
        QVERIFY2(linked.err.contains("refusing to replace what is not a regular file (a symbolic link)"),
            linked.err.constData());
        QVERIFY(QFileInfo(link).isSymLink());
    }

    void noFileIsAnError()
    {
        const Run r = runCli({ QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(QString::fromUtf8(r.err).startsWith("mfu-explorer trace: error: "));
    }
};

QTEST_GUILESS_MAIN(TestCliTrace)
#include "tst_cli_trace.moc"
