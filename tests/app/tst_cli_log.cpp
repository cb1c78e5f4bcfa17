// Contract test of training logs on the command line: `trace LOGFILE` (detected by content, whatever the name) and
// `diagnose --log FILE...`, through the real binary. Logs are small synthetic ones in the formats of
// core/logs/training_log.h; the iteration-block log repeats the B200 scaling report's 8-GPU lines, whose corrected MFU
// is 39.6%.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "diagnosis_test_support.h"

using mfu::test::percent;
using mfu::test::runCli;
using mfu::test::writeFile;

namespace {

const QByteArray kNanoGpt = "iter 0: loss 10.9000, time 5000.00ms, mfu -100.00%\n"
                            "iter 1: loss 9.0000, time 130.00ms, mfu -100.00%\n"
                            "iter 2: loss 8.0000, time 120.00ms, mfu 40.00%\n"
                            "iter 3: loss 7.0000, time 124.00ms, mfu 42.00%\n";

QByteArray reportLog(int gpus, const char* peak, const char* tokensPerStep, const char* timeMs, const char* mfu,
    const char* achieved, const char* tokensPerSec)
{
    return QByteArray("  Device:                NVIDIA B200\n  GPUs:                  ") + QByteArray::number(gpus)
        + "\n  Batch size (micro):    24\n  Gradient accum steps:  64\n  Tokens per iteration:  " + tokensPerStep
        + "\nIter 0: loss 10.8414, time 59848ms (warming up...)\n"
          "Iter     10 | Loss: 10.7715 | Time: "
        + timeMs + "ms | LR: 1.65e-06\nMFU: " + mfu + "% | Achieved: " + achieved + " TF | Peak: " + peak
        + " TF\n   Tokens/s: " + tokensPerSec + " | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n";
}

const QByteArray kEightGpu = reportLog(8, "36000.0", "25,165,824", "29452", "2.61", "938.2", "106809");
const QByteArray kTwoGpu = reportLog(2, "9000.0", "6,291,456", "1838", "10.44", "939.7", "106979");

nlohmann::json parse(const QByteArray& out)
{
    return nlohmann::json::parse(out.toStdString());
}

bool hasFinding(const nlohmann::json& findings, const std::string& code)
{
    for (const auto& f : findings)
        if (f["code"] == code)
            return true;
    return false;
}

void expectOneLineError(const mfu::test::CliResult& r, const char* command, const char* needle)
{
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.startsWith(QByteArray("mfu-explorer ") + command + ": error: "), r.err.constData());
    QVERIFY2(r.err.contains(needle), r.err.constData());
}

} // namespace

class TestCliLog : public QObject {
    Q_OBJECT
private slots:
    void logWithoutScenarioShowsStepsOnly()
    {
        QTemporaryDir dir;
        // Named .json on purpose: detection is by content.
        const auto r = runCli({ "trace", writeFile(dir, "train.json", kNanoGpt), "--json" });
        QCOMPARE(r.exitCode, 0);
        const auto j = parse(r.out);
        QVERIFY(!j.contains("ranks")); // not a trace: the fixed trace keys are for traces
        const auto& log = j["log"];
        QCOMPARE(log["format"].get<std::string>(), std::string("nanogpt"));
        QCOMPARE(log["steps"].size(), size_t(4));
        QVERIFY(log["steps"][1]["mfu_claimed"].is_null());
        QCOMPARE(log["steps"][3]["step_time_s"].get<double>(), 0.124);
        QCOMPARE(log["summary"]["steps_used"].get<int>(), 3);
        QCOMPARE(log["summary"]["median_step_time_s"].get<double>(), 0.124);
        QCOMPARE(log["summary"]["median_mfu_claimed"].get<double>(), 0.41);
        QVERIFY(j["diagnosis"].is_null());
        QVERIFY(j["diagnosis_unavailable"].get<std::string>().find("GPU") != std::string::npos);
    }

    void reportLogIsDiagnosed()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "b200-8gpu.log", kEightGpu);
        const auto r = runCli({ "trace", path, "--model", "llama-1.36b", "--json" }); // GPU from "Device:"
        QCOMPARE(r.exitCode, 0);
        const auto j = parse(r.out);
        QCOMPARE(j["log"]["format"].get<std::string>(), std::string("iter_block"));
        QCOMPARE(j["log"]["facts"]["gpus"].get<int>(), 8);
        const auto& run = j["diagnosis"]["runs"][0];
        QCOMPARE(percent(run["mfu"].get<double>()), 39.6);
        QCOMPARE(run["peak_tflops_per_gpu"].get<double>(), 2250.0);
        QVERIFY(hasFinding(run["findings"], "peak_is_sparse"));
        QVERIFY(hasFinding(run["findings"], "per_gpu_over_cluster_peak"));

        const auto text = runCli({ "trace", path, "--model", "llama-1.36b" });
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("(iter_block)"), text.out.constData());
        QVERIFY2(text.out.contains("MFU claimed 2.61%"), text.out.constData());
        QVERIFY2(text.out.contains("corrected MFU 39.6"), text.out.constData());
        QVERIFY2(text.out.contains("peak_is_sparse"), text.out.constData());
    }

    // The issue's two logs through the command line: a torchtitan log of a far smaller model than the scenario's,
    // and one recorded on a B200 read against an H100. Findings named, top-level MFU null, and `--flop-formula`
    // reaches the corrected MFU of a log.
    void logsOfAnotherModelOrGpu()
    {
        QTemporaryDir dir;
        QByteArray tiny, b200;
        for (int step = 1; step <= 4; ++step) {
            tiny += "step: " + QByteArray::number(step) + "  loss: 7.1  tps: 7,318  tflops: 0.52  mfu: 0.05%\n";
            b200 += "step: " + QByteArray::number(step) + "  loss: 9.1  tps: 4,376  tflops: 253.41  mfu: 11.26%\n";
        }
        const auto model = runCli({ "diagnose", "--log", writeFile(dir, "tiny.log", tiny), "--model", "llama-3.1-8b",
            "--gpu", "h100-sxm", "--seq", "8192", "--json" });
        QCOMPARE(model.exitCode, 0);
        auto j = parse(model.out);
        QVERIFY(j["mfu"].is_null());
        QVERIFY(hasFinding(j["runs"][0]["findings"], "log_model_mismatch"));
        QCOMPARE(j["runs"][0]["mfu_withheld"].get<std::string>(), std::string("log_model_mismatch"));

        const auto gpu = runCli({ "diagnose", "--log", writeFile(dir, "b200.log", b200), "--model", "llama-3.1-8b",
            "--gpu", "h100-sxm", "--seq", "8192", "--json" });
        QCOMPARE(gpu.exitCode, 0);
        j = parse(gpu.out);
        QVERIFY(j["mfu"].is_null());
        QVERIFY(hasFinding(j["runs"][0]["findings"], "log_peak_mismatch"));
        QCOMPARE(j["runs"][0]["implied_gpu"].get<std::string>(), std::string("b200"));

        const auto onB200 = runCli({ "trace", writeFile(dir, "b200-again.log", b200), "--model", "gemma-3-27b", "--gpu",
            "b200", "--seq", "8192", "--flop-formula", "palm", "--json" });
        QCOMPARE(onB200.exitCode, 0);
        QCOMPARE(parse(onB200.out)["diagnosis"]["runs"][0]["flops_formula"].get<std::string>(), std::string("palm"));
    }

    void customPattern()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "mine.txt", "boot\nit=3 dt=500ms mfu=45.5\nit=4 dt=510ms mfu=44.5\n");
        const auto r = runCli({ "trace", path, "--log-pattern", R"(it=(\d+) dt=([\d.]+)ms mfu=([\d.]+))",
            "--log-groups", "step=1,time_ms=2,mfu_percent=3", "--warmup-steps", "0", "--json" });
        QCOMPARE(r.exitCode, 0);
        const auto j = parse(r.out);
        QCOMPARE(j["log"]["format"].get<std::string>(), std::string("custom"));
        QCOMPARE(j["log"]["steps"][1]["step"].get<int>(), 4);
        QCOMPARE(j["log"]["summary"]["median_step_time_s"].get<double>(), 0.505);
    }

    void diagnoseComparesLogs()
    {
        QTemporaryDir dir;
        const auto r = runCli({ "diagnose", "--log", writeFile(dir, "2gpu.log", kTwoGpu), "--log",
            writeFile(dir, "8gpu.log", kEightGpu), "--model", "llama-1.36b", "--json" });
        QCOMPARE(r.exitCode, 0);
        const auto j = parse(r.out);
        QCOMPARE(j["runs"].size(), size_t(2));
        QCOMPARE(j["runs"][0]["label"].get<std::string>(), std::string("2gpu.log"));
        QCOMPARE(percent(j["runs"][0]["mfu"].get<double>()), 39.7);
        QCOMPARE(percent(j["runs"][1]["mfu"].get<double>()), 39.6);
        QVERIFY(hasFinding(j["comparison"], "scaling"));
        QVERIFY(hasFinding(j["runs"][0]["findings"], "step_time_inconsistent"));
    }

    // A packed run's log whose MFU counted attention over the 81,920-token packing length: the packing flags describe
    // the documents, and the diagnosis names the mistake with the MFU counted per document. 2,621,440 tokens per step
    // on 32 GPUs in 61.73 s is 1,327 tokens/s per GPU: 60.0% with PaLM over the packing length (141.07 GFLOP/token),
    // 21.3% per document (50.07 GFLOP/token) on the A800's 312 TFLOPS.
    void diagnosePackedLog()
    {
        QTemporaryDir dir;
        const QString lengths
            = writeFile(dir, "lengths.csv", "length,count\n1024,16\n2048,8\n4096,4\n8192,2\n16384,1\n");
        const QString log = writeFile(dir, "packed.log",
            "iter 0: loss 10.9000, time 90000.00ms, mfu -100.00%\n"
            "iter 1: loss 9.0000, time 61730.00ms, mfu 60.00%\n"
            "iter 2: loss 8.0000, time 61730.00ms, mfu 60.00%\n"
            "iter 3: loss 7.0000, time 61730.00ms, mfu 60.00%\n");
        const auto r = runCli({ "diagnose", "--log", log, "--model", "qwen2.5-7b", "--gpu", "a800-sxm-80gb", "--gpus",
            "32", "--packing-length", "81920", "--doc-lengths", lengths, "--tokens-per-step", "2621440", "--json" });
        QCOMPARE(r.exitCode, 0);
        const auto j = parse(r.out);
        QVERIFY2(hasFinding(j["runs"][0]["findings"], "attention_counted_over_packing_length"), r.out.constData());
        QCOMPARE(percent(j["runs"][0]["mfu"].get<double>()), 21.3);
        expectOneLineError(runCli({ "diagnose", "--log", log, "--model", "qwen2.5-7b", "--gpu", "a800-sxm-80gb",
                               "--packing-length", "8192", "--doc-lengths", lengths }),
            "diagnose", "--doc-lengths");
    }

    void errors()
    {
        QTemporaryDir dir;
        const QString nano = writeFile(dir, "nano.log", kNanoGpt);
        // A check the user asked for that cannot run (no FLOP/token: no model, none in the log) is an error.
        expectOneLineError(runCli({ "trace", nano, "--gpu", "h100-sxm" }), "trace", "nano.log");
        expectOneLineError(runCli({ "trace", nano, "--compare", nano }), "trace", "--compare");
        expectOneLineError(runCli({ "trace", nano, nano }), "trace", "one training log");
        expectOneLineError(
            runCli({ "trace", nano, "--log-pattern", "(", "--log-groups", "step=1" }), "trace", "invalid log pattern");
        expectOneLineError(runCli({ "trace", nano, "--log-pattern", "x" }), "trace", "--log-groups");
        // A group the pattern does not have: the figure vanished from the output with exit status 0.
        expectOneLineError(runCli({ "trace", nano, "--log-pattern", "iter (\\d+): loss ([0-9.]+), time ([0-9.]+)ms",
                               "--log-groups", "step=1,time_ms=3,tokens_per_sec=9" }),
            "trace", "group 9 is not in the pattern, which has 3 capture group(s)");
        expectOneLineError(runCli({ "diagnose", "--log", writeFile(dir, "notes.txt", "no steps here\n"), "--gpu",
                               "b200", "--model", "llama-1.36b" }),
            "diagnose", "no training-step lines");
        expectOneLineError(runCli({ "diagnose", writeFile(dir, "r.json", "{}"), "--gpu", "b200" }), "diagnose",
            "--gpu applies to --log only");
    }
};

QTEST_GUILESS_MAIN(TestCliLog)
#include "tst_cli_log.moc"
