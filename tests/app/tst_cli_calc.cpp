// Contract tests for `calc` and `diagnose`: the fixed flags and JSON keys scripts rely on (docs/cli.md).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

using mfu::test::runCli;

class TestCliCalc : public QObject {
    Q_OBJECT
private slots:
    // Every value in one column, after the longest label and a space: DeepSeek-V3.2's "61 sparse-attention layers
    // (top 2,048 keys)" and the PaLM formula's name are longer than the usual 34 characters and pushed their values
    // out of the column.
    void valuesStandInOneColumn()
    {
        const auto r = runCli({ "calc", "--model", "deepseek-v3.2", "--seq", "131072" });
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
        qsizetype column = -1;
        int figures = 0;
        for (const QString& line : lines) {
            const qsizetype at = line.indexOf(QStringLiteral(" GFLOP"));
            if (!line.startsWith(QStringLiteral("  ")) || at < 0)
                continue;
            const qsizetype value = line.lastIndexOf(QLatin1Char(' '), at - 1) + 1;
            QVERIFY2(line.at(value - 1) == QLatin1Char(' '), qPrintable(line));
            QVERIFY2(column < 0 || value == column, qPrintable(line));
            column = value;
            ++figures;
        }
        QVERIFY2(figures >= 8, r.out.constData());
        QVERIFY(r.out.contains("  6N                                          230.42 GFLOP"));
    }

    void lambdaWorkedExample()
    {
        const auto r = runCli({ "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--gpus", "1", "--seq", "8192",
            "--precision", "bf16", "--tokens-per-sec-per-gpu", "21111", "--json" });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = r.json();
        const QJsonObject params = j["params"].toObject();
        QCOMPARE(params["total"].toDouble(), 8030261248.0);
        QCOMPARE(params["embedding"].toDouble(), 525336576.0);
        QCOMPARE(params["non_embedding"].toDouble(), 8030261248.0 - 525336576.0);
        QCOMPARE(params["active"].toDouble(), 8030261248.0);
        const QJsonObject flops = j["flops_per_token"].toObject();
        for (const char* key : { "six_n", "palm", "per_component", "per_component_causal" })
            QVERIFY2(flops[key].isDouble(), key);
        QCOMPARE(flops["palm"].toDouble(), 57914449920.0);
        QCOMPARE(qRound(j["achieved_tflops_per_gpu"].toDouble()), 1223);
        QCOMPARE(qRound(j["mfu"].toDouble() * 10000), 5434);
        QCOMPARE(j["hfu"].toDouble(), j["mfu"].toDouble());
        QCOMPARE(j["peak_tflops_per_gpu"].toDouble(), 2250.0);
    }

    void packedQwenOnA800()
    {
        // Qwen2.5-7B packed to 81,920 tokens on 32 A800 (the multimodal engine's text run), with 31 documents per
        // sequence: 16 of 1,024, 8 of 2,048, 4 of 4,096, 2 of 8,192, 1 of 16,384 tokens (each bin 16,384 tokens).
        // sum(d^2)/sum(d) = 16,384 x 31,744 / 81,920 = 6,348.8. 6 (N - N_emb) = 42,423,714,816; 12 L H Q = 1,204,224.
        QTemporaryDir dir;
        const QString lengths = dir.filePath(QStringLiteral("lengths.csv"));
        QFile f(lengths);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("length,count\n1024,16\n2048,8\n4096,4\n8192,2\n16384,1\n");
        f.close();
        const QStringList base { "calc", "--model", "qwen2.5-7b", "--gpu", "a800-sxm-80gb", "--gpus", "32",
            "--packing-length", "81920", "--doc-lengths", lengths, "--tokens-per-sec-per-gpu", "3271", "--json" };
        const auto r = runCli(base);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = r.json();
        const QJsonObject packing = j["packing"].toObject();
        QCOMPARE(packing["effective_attention_length"].toDouble(), 6348.8);
        QCOMPARE(packing["packing_length"].toDouble(), 81920.0);
        QCOMPARE(j["flops_per_token"].toObject()["palm"].toDouble(), 42423714816.0 + 1204224.0 * 6348.8);
        QCOMPARE(packing["palm_over_packing_length"].toDouble(), 42423714816.0 + 1204224.0 * 81920);
        // 3,271 tokens/s per GPU is 52.5% MFU counted per document; the packing-length count would claim 148%.
        QCOMPARE(qRound(j["mfu"].toDouble() * 1000), 525);
        QCOMPARE(qRound(packing["mfu_palm_over_packing_length"].toDouble() * 100), 148);

        // Padding kept: MFU counts the useful three quarters, HFU every processed token.
        const auto padded = runCli(base + QStringList { "--padding-fraction", "0.25" });
        QCOMPARE(padded.exitCode, 0);
        QCOMPARE(padded.json()["mfu"].toDouble(), j["mfu"].toDouble() * 0.75);
        QCOMPARE(padded.json()["hfu"].toDouble(), j["hfu"].toDouble());
        QCOMPARE(padded.json()["useful_tokens_per_sec_per_gpu"].toDouble(), 3271.0 * 0.75);

        // Attention spanning the packed sequence: the packing length is the right S.
        const auto whole = runCli(base + QStringList { "--attention-mask", "packed" });
        QCOMPARE(whole.json()["flops_per_token"].toObject()["palm"].toDouble(), 42423714816.0 + 1204224.0 * 81920);

        // Refused, each with its flag named.
        const QStringList model { "calc", "--model", "qwen2.5-7b", "--gpu", "a800-sxm-80gb" };
        for (const auto& [args, mentions] : std::vector<std::pair<QStringList, QString>> {
                 { { "--seq", "4096", "--packing-length", "8192" }, "--packing-length" },
                 { { "--packing-length", "8192", "--doc-length", "16384" }, "--doc-length" },
                 { { "--doc-lengths", dir.filePath("missing.csv") }, "--doc-lengths" },
                 { { "--padding-fraction", "1" }, "--padding-fraction" },
                 { { "--attention-mask", "sometimes" }, "--attention-mask" },
             }) {
            const auto bad = runCli(model + args);
            QVERIFY2(bad.exitCode != 0, qPrintable(args.join(' ')));
            QVERIFY2(QString::fromUtf8(bad.err).contains(mentions), bad.err.constData());
        }
    }

    void visionEncoderBesideMfu()
    {
        const QString config
            = QStringLiteral(MFU_SOURCE_DIR "/../shared/models/Qwen--Qwen3-VL-8B-Instruct.config.json");
        if (!QFile::exists(config))
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        const QStringList base { "calc", "--model", config, "--gpu", "h100-sxm", "--gpus", "8", "--seq", "8192",
            "--tokens-per-sec-per-gpu", "5000", "--json" };
        const auto text = runCli(base);
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.json()["vision"].toObject()["has_encoder"].toBool());
        QVERIFY(text.json()["vision"].toObject()["mfu_with_vision"].isNull()); // no vision tokens: text only
        const auto r = runCli(base + QStringList { "--vision-tokens", "2048", "--vision-tokens-per-image", "256" });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject v = r.json()["vision"].toObject();
        QCOMPARE(v["encoder_params"].toDouble(), 576388336.0);
        QCOMPARE(v["flops_per_vision_token"].toDouble(), 12399575040.0); // tst_vision_encoder derives it
        QCOMPARE(v["vision_flops_per_token"].toDouble(), 2048 * 12399575040.0 / 8192);
        // MFU stays the language model's; the labelled figure adds the encoder.
        QCOMPARE(r.json()["mfu"].toDouble(), text.json()["mfu"].toDouble());
        const double peak = r.json()["peak_dense_tflops_per_gpu"].toDouble() * 1e12;
        QCOMPARE(v["mfu_with_vision"].toDouble(),
            r.json()["mfu"].toDouble() + v["vision_flops_per_token"].toDouble() * 5000 / peak);
        const auto frozen = runCli(
            base + QStringList { "--vision-tokens", "2048", "--vision-tokens-per-image", "256", "--vision-frozen" });
        QCOMPARE(frozen.json()["vision"].toObject()["vision_flops_per_token"].toDouble(),
            v["vision_flops_per_token"].toDouble() / 3); // forward only
        // A text-only model, and more vision tokens than the sequence, are refused.
        const auto noEncoder = runCli({ "calc", "--model", "llama-3.1-8b", "--vision-tokens", "100" });
        QVERIFY(noEncoder.exitCode != 0);
        QVERIFY(QString::fromUtf8(noEncoder.err).contains(QLatin1String("vision encoder")));
        // A frozen encoder the model does not have is refused too, by calc and predict alike, under its own flag.
        for (const char* command : { "calc", "predict" }) {
            const auto frozenText
                = runCli({ command, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--vision-frozen" });
            QVERIFY(frozenText.exitCode != 0);
            QVERIFY2(
                QString::fromUtf8(frozenText.err).contains(QLatin1String("--vision-frozen: the model has no vision")),
                frozenText.err);
        }
        const auto tooMany = runCli(base + QStringList { "--vision-tokens", "9000" });
        QVERIFY(tooMany.exitCode != 0);
        QVERIFY(QString::fromUtf8(tooMany.err).contains(QLatin1String("--vision-tokens")));
        // Per image beyond per sequence is the per-image flag's error; a count past the bound names the bound.
        const auto perImage
            = runCli(base + QStringList { "--vision-tokens", "256", "--vision-tokens-per-image", "512" });
        QVERIFY(perImage.exitCode != 0);
        QVERIFY2(QString::fromUtf8(perImage.err).contains(QLatin1String("--vision-tokens-per-image:")), perImage.err);
        const auto huge = runCli(base + QStringList { "--vision-tokens", "4294967297" });
        QVERIFY2(QString::fromUtf8(huge.err).contains(QLatin1String("1,000,000,000")), huge.err);
    }

    void clusterThroughputAndStepTime()
    {
        // The same run stated three ways gives the same MFU.
        const QStringList base { "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--gpus", "8", "--seq", "8192",
            "--json" };
        const auto perGpu = runCli(base + QStringList { "--tokens-per-sec-per-gpu", "20000" });
        const auto cluster = runCli(base + QStringList { "--tokens-per-sec", "160000" });
        const auto step = runCli(base + QStringList { "--step-time", "4.096", "--tokens-per-step", "655360" });
        QCOMPARE(perGpu.exitCode, 0);
        QCOMPARE(cluster.json()["mfu"].toDouble(), perGpu.json()["mfu"].toDouble());
        QCOMPARE(step.json()["mfu"].toDouble(), perGpu.json()["mfu"].toDouble());
    }

    void bareParamsAndFp8()
    {
        const auto r = runCli({ "calc", "--params", "7e9", "--gpu", "h100-sxm", "--gpus", "8", "--seq", "4096",
            "--precision", "fp8", "--step-time", "1.2", "--tokens-per-step", "32768", "--json" });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = r.json();
        QVERIFY(j["flops_per_token"].toObject()["palm"].isNull());
        QCOMPARE(qRound(j["mfu"].toDouble() * 1000), 145); // the MFU tutorial's 7B on 8 H100: 14.5%
        QVERIFY(j["mfu_vs_fp8_peak"].toDouble() < j["mfu"].toDouble());
    }

    // An NVFP4 run may pass the BF16 peak (MLPerf v5.1's 405B on GB300 ran at 147% of it): no warning, and its MFU
    // against the FP4 peak beside it, as predict gives it.
    void fp4PassesTheBf16Peak()
    {
        const auto r = runCli({ "calc", "--model", "llama-3.1-8b", "--gpu", "gb300", "--seq", "8192", "--precision",
            "fp4", "--tokens-per-sec-per-gpu", "60000", "--json" });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = r.json();
        QVERIFY(j["mfu"].toDouble() > 1.0);
        QVERIFY(j["warning"].isNull());
        QCOMPARE(j["mfu_vs_fp4_peak"].toDouble(),
            j["achieved_tflops_per_gpu"].toDouble() / j["peak_dense_fp4_tflops_per_gpu"].toDouble());
        QVERIFY(j["mfu_vs_fp8_peak"].isNull());
    }

    void hfuWithFullRecompute()
    {
        const auto r = runCli({ "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--seq", "8192",
            "--tokens-per-sec-per-gpu", "15000", "--ac", "full", "--json" });
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.json()["hfu"].toDouble() / r.json()["mfu"].toDouble(), 4.0 / 3.0);
    }

    // Above 100% no figure is the run's: MFU, HFU and TFLOPS are withheld (null in JSON, as trace --json withholds
    // one), the figure kept on record as withheld_mfu, and the reason said in both forms. They had been printed
    // ("MFU 585.59%") beside a warning, where diagnose withheld the same run.
    void impossibleMfuIsWarned()
    {
        const QStringList args { "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--seq", "8192",
            "--tokens-per-sec-per-gpu", "40000" };
        const auto j = runCli(args + QStringList { "--json" });
        QCOMPARE(j.exitCode, 0);
        for (const char* key : { "mfu", "hfu", "achieved_tflops_per_gpu", "achieved_tflops_cluster" })
            QVERIFY2(j.json()[QLatin1String(key)].isNull(), key);
        QVERIFY(j.json()["withheld_mfu"].toDouble() > 1.0);
        QVERIFY(j.json()["warning"].toString().contains(QStringLiteral("above 100%")));
        QCOMPARE(j.json()["withheld"].toString(), j.json()["warning"].toString());
        const auto text = runCli(args);
        QVERIFY2(QString::fromUtf8(text.out).contains(QStringLiteral("warning: MFU above 100% is impossible")),
            text.out.constData());
        QVERIFY2(QString::fromUtf8(text.out).contains(QStringLiteral("not shown: ")), text.out.constData());
        static const QRegularExpression percent(QStringLiteral("([0-9][0-9,]*(\\.[0-9]+)?)%"));
        for (auto it = percent.globalMatch(QString::fromUtf8(text.out)); it.hasNext();) {
            const QString figure = it.next().captured(1);
            QVERIFY2(QString(figure).remove(QLatin1Char(',')).toDouble() <= 100.0, qPrintable(figure));
        }
        const auto fine = runCli({ "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--seq", "8192",
            "--tokens-per-sec-per-gpu", "20000", "--json" });
        QVERIFY(fine.json()["warning"].isNull());
    }

    // A downloaded model's folder reads as its config.json; a folder without one, or a folder where a file belongs, is
    // said to be a folder (it read as "not valid JSON at byte 1").
    void foldersWhereFilesBelong()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("Tiny-Llama")));
        QFile config(dir.filePath(QStringLiteral("Tiny-Llama/config.json")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"model_type":"llama","hidden_size":512,"num_hidden_layers":4,"num_attention_heads":8,
            "vocab_size":1000,"intermediate_size":1376})");
        config.close();
        const auto folder = runCli({ "calc", "--model", dir.filePath(QStringLiteral("Tiny-Llama")), "--json" });
        QCOMPARE(folder.exitCode, 0);
        const auto file = runCli({ "calc", "--model", config.fileName(), "--json" });
        QCOMPARE(folder.json()["params"].toObject()["total"], file.json()["params"].toObject()["total"]);

        const auto empty = runCli({ "calc", "--model", dir.path() });
        QVERIFY2(QString::fromUtf8(empty.err).contains(QStringLiteral("is a folder without a config.json")),
            empty.err.constData());
        const auto rules = runCli({ "trace", config.fileName(), "--kernel-rules", dir.path() });
        QVERIFY2(QString::fromUtf8(rules.err).contains(QStringLiteral("is a folder, not a kernel rules file")),
            rules.err.constData());
        const auto scenario = runCli({ "predict", "--scenario", dir.path() });
        QVERIFY2(QString::fromUtf8(scenario.err).contains(QStringLiteral("is a folder, not a scenario file")),
            scenario.err.constData());
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown gpu") << QStringList { "calc", "--params", "7e9", "--gpu", "z9", "--tokens-per-sec",
            "1" } << "unknown hardware preset 'z9'";
        QTest::newRow("no model") << QStringList { "calc", "--gpu", "b200" } << "a model is required";
        QTest::newRow("negative gpus") << QStringList { "calc", "--params", "7e9", "--gpus", "-8" } << "--gpus";
        QTest::newRow("zero seq") << QStringList { "calc", "--params", "7e9", "--seq", "0" } << "--seq";
        QTest::newRow("absurd seq") << QStringList { "calc", "--model", "llama-3.1-8b", "--seq", "1e9" } << "--seq";
        QTest::newRow("two throughputs") << QStringList { "calc", "--params", "7e9", "--gpu", "b200",
            "--tokens-per-sec", "5", "--tokens-per-sec-per-gpu", "5" }
                                         << "give one throughput";
        QTest::newRow("bad precision") << QStringList { "calc", "--params", "7e9", "--precision", "fp64" }
                                       << "--precision";
        QTest::newRow("unknown option") << QStringList { "calc", "--frobnicate" } << "frobnicate";
        // 64 data-parallel ranks on 8 GPUs gave an MFU of 384%; 3 does not divide 8.
        const QStringList stepShape { "calc", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8",
            "--step-time", "1", "--micro-batch", "1" };
        QTest::newRow("dp above gpus") << stepShape + QStringList { "--dp", "64" } << "--dp: 64 data-parallel ranks";
        QTest::newRow("dp not dividing") << stepShape + QStringList { "--dp", "3" } << "must divide --gpus";
        // The batch shape was read and silently dropped beside --tokens-per-step or without --step-time.
        QTest::newRow("micro-batch beside tokens-per-step") << QStringList { "calc", "--model", "llama-3.1-8b", "--gpu",
            "b200", "--step-time", "1", "--tokens-per-step", "65536", "--micro-batch", "2" }
                                                            << "--micro-batch, --grad-accum and --dp";
        QTest::newRow("grad-accum without step-time") << QStringList { "calc", "--model", "llama-3.1-8b", "--gpu",
            "b200", "--tokens-per-sec", "1000", "--grad-accum", "4" }
                                                      << "--micro-batch, --grad-accum and --dp";
        QTest::newRow("fp8 on a100") << QStringList { "calc", "--model", "llama-3.1-8b", "--gpu", "a100-sxm-80gb",
            "--precision", "fp8", "--tokens-per-sec-per-gpu", "1000" }
                                     << "has no dense FP8 peak";
        QTest::newRow("infinite flops") << QStringList { "calc", "--model", "llama-3.1-8b", "--gpu", "b200",
            "--tokens-per-sec-per-gpu", "1e308" }
                                        << "--tokens-per-sec-per-gpu: '1e308' is beyond any real job";
        QTest::newRow("missing file") << QStringList { "diagnose", "/nonexistent/report.json" }
                                      << "/nonexistent/report.json: cannot be opened for reading";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const auto r = runCli(args);
        QVERIFY(r.exitCode != 0);
        QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1); // one line
    }

    void diagnoseB200ScalingReport()
    {
        const auto r = runCli({ "diagnose", MFU_SOURCE_DIR "/examples/b200-scaling-report.json", "--json" });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = r.json();
        QCOMPARE(qRound(j["mfu"].toDouble() * 1000), 396);
        QStringList codes;
        for (const auto& f : j["findings"].toArray()) {
            const QJsonObject o = f.toObject();
            QVERIFY(o.contains("code") && o.contains("message") && o.contains("figures"));
            codes << o["code"].toString();
        }
        for (const char* code : { "peak_is_sparse", "per_gpu_over_cluster_peak", "flops_include_embeddings",
                 "step_time_inconsistent", "scaling", "different_work_per_step" })
            QVERIFY2(codes.contains(QLatin1String(code)), code);
        const auto text = runCli({ "diagnose", MFU_SOURCE_DIR "/examples/b200-scaling-report.json" });
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("it scaled"));
    }

    void helpAndVersion()
    {
        QCOMPARE(runCli({ "calc", "--help" }).exitCode, 0);
        QVERIFY(runCli({ "calc", "--help" }).out.contains("--tokens-per-sec-per-gpu"));
        // The usage line names the subcommand as typed, not the binary's path.
        QVERIFY(runCli({ "calc", "--help" }).out.startsWith("Usage: mfu-explorer calc [options]"));
        const auto v = runCli({ "--version" });
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.startsWith("mfu-explorer "));
        QCOMPARE(runCli({ "--help" }).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestCliCalc)
#include "tst_cli_calc.moc"
