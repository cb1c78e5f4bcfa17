// One fact, one place, proved: the window and the command line show the same figures for the same scenario. Each
// Start-here demo and a set of generated scenarios (MoE, hybrid attention, packed and padded, multi-GPU with TP, an
// odd 4,000,000-token batch, FP8) is saved by the window, then read back by `calc --scenario` and
// `predict --scenario`; every figure the Calculator and the Predict panel show must be the CLI's, to the digit the
// window prints. A test that fails when the two drift apart (a second formula, a second rounding, a band scaled twice).
#include <QLabel>
#include <QLocale>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "app/main_window.h"
#include "b200_scaling_log.h"
#include "cli_runner.h"
#include "core/io/read_file.h"
#include "core/number_format.h"
#include "core/presets/hf_config.h"
#include "core/units.h"
#include "costmodel_fixtures.h"
#include "model_fixtures.h"
#include "shipped_presets.h"
#include "widgets/calculator/calculator_panel.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/start/start_panel.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

Q_DECLARE_METATYPE(mfu::Scenario)

using mfu::app::MainWindow;
using namespace mfu;

namespace {

QString percent(double fraction)
{
    return QString::fromStdString(formatPercent(fraction));
}

QString grouped(double v, int decimals = 0)
{
    return QLocale().toString(v, 'f', decimals);
}

// TFLOPS as every surface writes them (core/number_format.h: one decimal, two below 10), from the JSON's TFLOPS.
QString tflopsValue(double tflops)
{
    return QString::fromStdString(formatTflopsValue(tflops * 1e12));
}

QString labelText(QWidget* panel, const char* name)
{
    auto* label = panel->findChild<QLabel*>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

nlohmann::json cliJson(const QStringList& args)
{
    const test::CliResult r = test::runCli(args);
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json();
}

Scenario generated(const char* model, const char* gpu, int gpus, int64_t seq)
{
    Scenario s = test::scenarioFor(*test::shippedPresets().findModel(model), gpu, gpus, seq);
    s.costModel = test::shippedPresets().costModelFor(gpu);
    return s;
}

} // namespace

class TestCliAgreement : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    // Saves the window's scenario as the user would, and compares what each panel shows with the CLI's JSON.
    void compareWithCli(MainWindow& w, const QString& what)
    {
        const QString path = m_dir.filePath(QStringLiteral("scenario-%1.json").arg(++m_files));
        QVERIFY2(w.saveScenarioTo(path), qPrintable(what));
        const Scenario& s = w.scenarioModel()->scenario();
        compareCalculator(w, path, s, what);
        comparePrediction(w, path, what);
    }

    void compareCalculator(MainWindow& w, const QString& path, const Scenario& s, const QString& what)
    {
        auto* panel = w.findChild<widgets::CalculatorPanel*>();
        const nlohmann::json calc
            = cliJson({ QStringLiteral("calc"), QStringLiteral("--scenario"), path, QStringLiteral("--json") });
        QVERIFY2(!calc.is_null(), qPrintable(what));
        const double perToken = calc["flops_per_token"][calc["mfu_formula"].get<std::string>()].get<double>();
        QVERIFY2(labelText(panel, "flopsPerToken").startsWith(grouped(perToken / kGiga, 1) + " GFLOP/token"),
            qPrintable(what + ": " + labelText(panel, "flopsPerToken") + " vs " + grouped(perToken / kGiga, 1)));
        if (!s.measuredThroughput) {
            QVERIFY(calc["mfu"].is_null());
            return;
        }
        const QString mfu = labelText(panel, "mfu");
        QVERIFY2(mfu.startsWith(percent(calc["mfu"].get<double>())),
            qPrintable(what + ": Calculator " + mfu + ", calc " + percent(calc["mfu"].get<double>())));
        QVERIFY2(labelText(panel, "hfu").startsWith(percent(calc["hfu"].get<double>())),
            qPrintable(what + ": " + labelText(panel, "hfu")));
        const double tflops = calc["achieved_tflops_per_gpu"].get<double>();
        QVERIFY2(labelText(panel, "tflops").startsWith(tflopsValue(tflops) + " TFLOPS per GPU"),
            qPrintable(what + ": " + labelText(panel, "tflops")));
    }

    void comparePrediction(MainWindow& w, const QString& path, const QString& what)
    {
        auto* panel = w.findChild<widgets::PredictPanel*>();
        QTRY_VERIFY_WITH_TIMEOUT(panel->headlineCurrent(), 30000);
        const test::CliResult run
            = test::runCli({ QStringLiteral("predict"), QStringLiteral("--scenario"), path, QStringLiteral("--json") });
        if (run.exitCode != 0) { // refused (beyond physics, no layout): the window shows no figure either
            QCOMPARE(labelText(panel, "predictedMfu"), QStringLiteral("\u2014"));
            return;
        }
        const nlohmann::json p = nlohmann::json::parse(run.out.toStdString());
        const auto check = [&](const char* label, const QString& expected) {
            const QString shown = labelText(panel, label);
            QVERIFY2(shown.startsWith(expected),
                qPrintable(what + ": " + label + " shows '" + shown + "', CLI '" + expected + "'"));
        };
        check("predictedMfu", percent(p["mfu"].get<double>()));
        check("predictedHfu", percent(p["hfu"].get<double>()));
        check("tokensPerSec", grouped(p["tokens_per_sec"].get<double>()));
        check("tflopsPerGpu", tflopsValue(p["tflops_per_gpu"].get<double>()));
        check("stepTime", QStringLiteral("%1 s").arg(p["step_time_s"].get<double>(), 0, 'f', 3));
        if (!p["fits"].get<bool>())
            return; // the band is shown for layouts that fit
        const QString likely = QStringLiteral("likely %1\u2013%2");
        check(
            "predictedMfuBand", likely.arg(percent(p["mfu_low"].get<double>()), percent(p["mfu_high"].get<double>())));
        check(
            "predictedHfuBand", likely.arg(percent(p["hfu_low"].get<double>()), percent(p["hfu_high"].get<double>())));
        check("tokensPerSecBand",
            likely.arg(
                grouped(p["tokens_per_sec_low"].get<double>()), grouped(p["tokens_per_sec_high"].get<double>())));
        check("tflopsPerGpuBand",
            likely.arg(tflopsValue(p["tflops_per_gpu_low"].get<double>()),
                tflopsValue(p["tflops_per_gpu_high"].get<double>())));
        check("stepTimeBand",
            likely.arg(QString::number(p["step_time_s_low"].get<double>(), 'f', 3),
                QStringLiteral("%1 s").arg(p["step_time_s_high"].get<double>(), 0, 'f', 3)));
        // Nothing above physics on either surface, band included.
        QVERIFY(p["mfu_high"].get<double>() <= 1.0 && p["hfu_high"].get<double>() <= 1.0);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_cli_agreement"));
        QVERIFY(m_dir.isValid());
    }

    void demosAgree_data()
    {
        QTest::addColumn<int>("demo");
        QTest::newRow("Llama 3.1 8B on one B200") << int(widgets::StartPanel::Demo::Llama8BOnOneB200);
        QTest::newRow("7B on 8 H100") << int(widgets::StartPanel::Demo::SevenBOnEightH100);
        QTest::newRow("Llama 3.1 70B, TorchTitan's default")
            << int(widgets::StartPanel::Demo::Llama70BTorchTitanDefault);
    }

    void demosAgree()
    {
        QFETCH(int, demo);
        MainWindow w;
        QVERIFY(w.findChild<widgets::StartPanel*>()->runDemo(static_cast<widgets::StartPanel::Demo>(demo)));
        compareWithCli(w, QString::fromLatin1(QTest::currentDataTag()));
    }

    void generatedScenariosAgree_data()
    {
        QTest::addColumn<Scenario>("scenario");
        {
            Scenario s = generated("mixtral-8x7b", "h100-sxm", 64, 4096);
            s.parallelism.ep = 8;
            s.workload.globalBatchTokens = 1 << 20;
            s.measuredThroughput = Throughput { 3000, ThroughputScope::PerGpu };
            QTest::newRow("MoE: Mixtral 8x7B, 64 H100, EP 8") << s;
        }
        {
            Scenario s = generated("qwen3.5-27b", "b200", 16, 32768);
            s.parallelism.tp = 2;
            s.activationCheckpointing = ActivationCheckpointing::Selective;
            s.measuredThroughput = Throughput { 2500, ThroughputScope::PerGpu };
            QTest::newRow("hybrid: Qwen3.5 27B at 32k, TP 2") << s;
        }
        {
            Scenario s = generated("gemma-3-27b", "h100-sxm", 32, 131072);
            s.parallelism.tp = 8;
            s.activationCheckpointing = ActivationCheckpointing::Full;
            QTest::newRow("sliding window: Gemma 3 27B at 128k") << s;
        }
        {
            Scenario s = generated("llama-3.1-8b", "b200", 8, 8192);
            s.workload.packing.documents = { { 1024, 6 }, { 2048, 1 } };
            s.workload.packing.paddingFraction = 0.1;
            s.measuredThroughput = Throughput { 20000, ThroughputScope::PerGpu };
            QTest::newRow("packed and padded: Llama 3.1 8B") << s;
        }
        {
            Scenario s = generated("llama-3.1-70b", "b200", 16, 8192);
            s.parallelism.tp = 8;
            s.activationCheckpointing = ActivationCheckpointing::Full;
            s.measuredThroughput = Throughput { 40000, ThroughputScope::Cluster };
            QTest::newRow("multi-GPU: Llama 3.1 70B, 16 B200, TP 8") << s;
        }
        {
            Scenario s = generated("llama-3.1-8b", "b200", 8, 8192);
            s.workload.globalBatchTokens = 4'000'000; // not whole micro-steps: 62 of 65,536 tokens
            s.measuredThroughput = Throughput { 21000, ThroughputScope::PerGpu };
            QTest::newRow("odd batch: 4,000,000 tokens on 8 B200") << s;
        }
        {
            Scenario s = generated("llama-3.1-405b", "gb300", 128, 8192);
            s.parallelism.tp = 4;
            s.parallelism.pp = 4;
            s.activationCheckpointing = ActivationCheckpointing::Full;
            s.precision = TrainingPrecision::BF16_FP8;
            s.measuredThroughput = Throughput { 400, ThroughputScope::PerGpu };
            QTest::newRow("FP8: Llama 3.1 405B, 128 GB300") << s;
        }
        {
            Scenario s = generated("deepseek-v4-flash", "h100-sxm", 256, 16384);
            s.parallelism.ep = 8;
            s.parallelism.pp = 4;
            s.activationCheckpointing = ActivationCheckpointing::Full;
            QTest::newRow("compressed attention: DeepSeek-V4-Flash, 256 H100") << s;
        }
    }

    void generatedScenariosAgree()
    {
        QFETCH(Scenario, scenario);
        MainWindow w;
        w.scenarioModel()->setScenario(scenario);
        compareWithCli(w, QString::fromLatin1(QTest::currentDataTag()));
        // The batch the window keeps is the one it was given, as the CLI keeps it.
        QCOMPARE(w.scenarioModel()->scenario().workload.globalBatchTokens, scenario.workload.globalBatchTokens);
    }

    // The PyTorch 2.11 trace of one H200 step, opened in the Trace panel against the scenario that describes it, and
    // read by `trace --json` with the same inputs: the measured MFU the window shows is the CLI's, to the digit. On a
    // B200 scenario both withhold it with the same reason (core/facts/shown_mfu.h: one policy).
    void traceMeasuredMfuAgrees_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::newRow("the trace's H200") << QStringLiteral("h200");
        QTest::newRow("another GPU: B200") << QStringLiteral("b200");
    }

    void traceMeasuredMfuAgrees()
    {
        QFETCH(QString, gpu);
        const QString dir = QStringLiteral(MFU_SHARED_TRACES_DIR "/");
        const QString trace = dir + QStringLiteral("pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        const QString config = dir + QStringLiteral("pytorch211__h200__qwen3-0.6b-shape.config.json");
        if (!QFile::exists(trace) || !QFile::exists(config))
            QSKIP("the PyTorch 2.11 trace is not in " MFU_SHARED_TRACES_DIR " in this checkout");
        const ModelSpec model
            = modelFromHfConfigText(readWholeFile(config.toStdString(), "config"), config.toStdString());
        Scenario s = test::scenarioFor(model, gpu.toLatin1().constData(), 1, 4096);
        s.workload.microBatch = 8;
        s.workload.globalBatchTokens = 32768;
        MainWindow w;
        w.scenarioModel()->setScenario(s);
        auto* panel = w.findChild<widgets::TracePanel*>();
        QVERIFY(panel);
        panel->openTraces({ trace });
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isImporting(), 120000);
        const QString shown = labelText(panel, "measuredMfu");

        const nlohmann::json j = cliJson({ QStringLiteral("trace"), trace, QStringLiteral("--model"), config,
            QStringLiteral("--gpu"), gpu, QStringLiteral("--seq"), QStringLiteral("4096"),
            QStringLiteral("--tokens-per-step"), QStringLiteral("32768"), QStringLiteral("--json") });
        QVERIFY(j.contains("measured_mfu"));
        const nlohmann::json& m = j["measured_mfu"];
        if (gpu == QStringLiteral("h200")) {
            QVERIFY(m["mfu"].is_number());
            QVERIFY2(shown.startsWith(percent(m["mfu"].get<double>())), qPrintable(shown));
        } else {
            QVERIFY(m["mfu"].is_null());
            const QString why = QString::fromStdString(m["withheld"].get<std::string>());
            QVERIFY2(shown.startsWith(QStringLiteral("not shown: ") + why), qPrintable(shown + " | " + why));
        }
    }

    // A training log opened in the Trace panel's Training log tab and read by `trace LOGFILE --json` with the same
    // model and GPU: the recomputed MFU the window states is the CLI's, to the digit; read against an H100 both
    // withhold it with the same reason (core/facts/shown_log_mfu.h: the trace's policy, for logs). No real training
    // log is among the shared inputs (../shared/traces holds profiler traces only), so this is the B200 scaling
    // report's 8-GPU log as the report prints it.
    void logMeasuredMfuAgrees_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::newRow("the log's B200") << QStringLiteral("b200");
        QTest::newRow("another GPU: H100") << QStringLiteral("h100-sxm");
    }

    void logMeasuredMfuAgrees()
    {
        QFETCH(QString, gpu);
        const QString path = m_dir.filePath(QStringLiteral("b200-8gpu.log"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(test::kB200ScalingLog);
        }
        Scenario s = generated("llama-1.36b", gpu.toLatin1().constData(), 8, 2048);
        MainWindow w;
        w.scenarioModel()->setScenario(s);
        auto* panel = w.findChild<widgets::TracePanel*>();
        QVERIFY(panel);
        QVERIFY(panel->openTrainingLog(path));
        QTRY_VERIFY_WITH_TIMEOUT(panel->trainingLogView()->hasLog(), 30000);
        const QString shown = panel->trainingLogView()->summaryText();

        const nlohmann::json j = cliJson({ QStringLiteral("trace"), path, QStringLiteral("--model"),
            QStringLiteral("llama-1.36b"), QStringLiteral("--gpu"), gpu, QStringLiteral("--seq"),
            QStringLiteral("2048"), QStringLiteral("--json") });
        QVERIFY(j.contains("diagnosis"));
        if (gpu == QStringLiteral("b200")) {
            QVERIFY(!j.contains("measured_mfu_withheld"));
            QVERIFY(j["diagnosis"]["mfu"].is_number());
            const QString mfu = percent(j["diagnosis"]["mfu"].get<double>());
            QVERIFY2(
                shown.contains(QStringLiteral("<b>MFU recomputed: %1</b>").arg(mfu)), qPrintable(shown + " | " + mfu));
        } else {
            QVERIFY(j["diagnosis"]["mfu"].is_null());
            const QString why = QString::fromStdString(j["measured_mfu_withheld"].get<std::string>());
            QVERIFY2(why.contains(QStringLiteral("NVIDIA B200")), qPrintable(why));
            QVERIFY2(shown.contains(QStringLiteral("<b>MFU recomputed: not shown</b>: ") + why.toHtmlEscaped()),
                qPrintable(shown + " | " + why));
        }
    }

    // The 4,000,000-token batch of the issue: 62 micro-steps and a 22.03 s step on both surfaces, and the file the
    // window saves keeps 4,000,000.
    void oddBatchIsNotRewritten()
    {
        MainWindow w;
        Scenario s = generated("llama-3.1-8b", "b200", 8, 8192);
        s.workload.globalBatchTokens = 4'000'000;
        w.scenarioModel()->setScenario(s);
        QCOMPARE(w.scenarioModel()->gradAccum(), int64_t(62));
        const QString path = m_dir.filePath(QStringLiteral("odd-batch.json"));
        QVERIFY(w.saveScenarioTo(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const nlohmann::json saved = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(saved["workload"]["global_batch_tokens"].get<int64_t>(), int64_t(4'000'000));
        const nlohmann::json p
            = cliJson({ QStringLiteral("predict"), QStringLiteral("--scenario"), path, QStringLiteral("--json") });
        QCOMPARE(p["grad_accum_steps"].get<int64_t>(), int64_t(62));
    }
};

QTEST_MAIN(TestCliAgreement)
#include "tst_cli_agreement.moc"
