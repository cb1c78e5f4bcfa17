// Contract test of `mfu-explorer trace`: runs the real binary and checks the FIXED JSON keys (issue 4), the exact
// figures of a synthetic trace, --compare, measured MFU, and the one-line error on a bad file.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(MFU_CLI_BINARY), QStringList { QStringLiteral("trace") } + args);
    p.waitForFinished(60000);
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
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
QByteArray syntheticTrace()
{
    return "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}],"
           " \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"traceEvents\": ["
        + kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "0", "100", 7) + ","
        + kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", "50", "100", 20) + ","
        + kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "200", "100", 7) + ","
        + "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 0, \"dur\": 200},"
        + "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 200, \"dur\": 200}]}";
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

    void noFileIsAnError()
    {
        const Run r = runCli({ QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(QString::fromUtf8(r.err).startsWith("mfu-explorer trace: error: "));
    }
};

QTEST_GUILESS_MAIN(TestCliTrace)
#include "tst_cli_trace.moc"
