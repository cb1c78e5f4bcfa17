// MainWindow: starts on Lambda's worked example (8B on one B200), opens files through one path (config.json imports,
// other kinds get a clear message), remembers recent files, exports the current chart, and renders (screenshot test).
#include <QClipboard>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <qcustomplot.h>

#include <sys/stat.h>

#include "app/main_window.h"
#include "app/validation_store.h"
#include "calibration_test_support.h"
#include "core/calibration/calibration_file.h"
#include "core/calibration/calibration_text.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "dark_palette.h"
#include "shipped_presets.h"
#include "widgets/calculator/calculator_panel.h"
#include "widgets/charts/chart_view.h"
#include "widgets/jobs/activity.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

using mfu::app::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writeFile(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(bytes);
        return path;
    }

    // Predict's calibrated line (widgets/predict/predict_summary.h).
    static QString predictCalibratedLine(const MainWindow& w)
    {
        auto* label
            = w.findChild<mfu::widgets::PredictPanel*>()->findChild<QLabel*>(QStringLiteral("calibratedPrediction"));
        return label ? label->text() : QStringLiteral("<no calibrated line>");
    }

    static QString labelText(const MainWindow& w, const char* name)
    {
        // Looked up inside the Calculator: other panels may name their labels alike.
        auto* label = w.findChild<mfu::widgets::CalculatorPanel*>()->findChild<QLabel*>(QLatin1String(name));
        return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // Our own organisation and application names keep these QSettings apart from the user's.
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    void startsOnTheWorkedExample()
    {
        MainWindow w;
        const auto& s = w.scenarioModel()->scenario();
        QCOMPARE(QString::fromStdString(s.model.id), QStringLiteral("llama-3.1-8b"));
        QCOMPARE(QString::fromStdString(s.cluster.hardware.id), QStringLiteral("b200"));
        QCOMPARE(s.workload.seqLen, 8192);
        QCOMPARE(labelText(w, "mfu"), QStringLiteral("54.34%"));
        QVERIFY2(labelText(w, "tflops").startsWith(QStringLiteral("1,222.6 TFLOPS per GPU")),
            qPrintable(labelText(w, "tflops")));
        QVERIFY2(labelText(w, "flopsPerToken").startsWith(QStringLiteral("57.9 GFLOP/token")),
            qPrintable(labelText(w, "flopsPerToken")));
        QCOMPARE(w.panels()->tabText(0), QStringLiteral("Calculator"));
    }

    void opensHfConfigAndRemembersIt()
    {
        MainWindow w;
        const QString path = writeFile(QStringLiteral("config.json"), R"({
            "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 2048,
            "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": true, "head_dim": 64 })");
        const QString before = labelText(w, "params");
        QVERIFY2(w.openFiles({ path }), qPrintable(w.lastMessage()));
        QVERIFY(labelText(w, "params") != before);
        QCOMPARE(w.recentFiles().value(0), QFileInfo(path).absoluteFilePath());
        QVERIFY(w.lastMessage().contains(QStringLiteral("Imported")));
    }

    // A downloaded model's folder (config.json beside the tokenizer's and the weights' index, all *.json) imports the
    // model, as `--model FOLDER` does, rather than being read as a folder of traces.
    void opensADownloadedModelFolder()
    {
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("Tiny-Llama")));
        const QString config = writeFile(QStringLiteral("Tiny-Llama/config.json"), R"({
            "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 2048,
            "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": true, "head_dim": 64 })");
        QVERIFY(
            !writeFile(QStringLiteral("Tiny-Llama/tokenizer.json"), R"({"version": "1.0", "model": {}})").isEmpty());
        QVERIFY(!writeFile(QStringLiteral("Tiny-Llama/generation_config.json"), R"({"bos_token_id": 1})").isEmpty());
        QVERIFY(
            !writeFile(QStringLiteral("Tiny-Llama/model.safetensors.index.json"), R"({"weight_map": {}})").isEmpty());
        MainWindow w;
        QVERIFY2(w.openFiles({ m_dir.filePath(QStringLiteral("Tiny-Llama")) }), qPrintable(w.lastMessage()));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("Imported")), qPrintable(w.lastMessage()));
        QCOMPARE(QString::fromStdString(w.scenarioModel()->scenario().model.name), QStringLiteral("Tiny-Llama"));
        QCOMPARE(w.recentFiles().value(0), QFileInfo(config).absoluteFilePath());
        QCOMPARE(w.panels()->currentIndex(), 0); // not switched to the Trace panel
    }

    void unsupportedFilesGiveClearMessages_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("json without model_type")
            << "run.json" << QByteArray(R"({"hidden_size": 4096})") << "neither \"model_type\" nor \"architectures\"";
        QTest::newRow("other") << "notes.txt" << QByteArray("hello") << "not supported yet";
        QTest::newRow("kernel rules") << "rules.json"
                                      << QByteArray(R"({"format": "mfu-explorer-kernel-rules", "rules": []})")
                                      << "which the command line reads";
        QTest::newRow("broken calibration")
            << "cal.json" << QByteArray(R"({"format": "mfu-explorer-calibration", "version": 1})") << "cal.json: ";
        QTest::newRow("broken config") << "bad.json" << QByteArray(R"({"model_type": "llama"})") << "config.json";
    }

    void unsupportedFilesGiveClearMessages()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        MainWindow w;
        const QString path = writeFile(name, content);
        QVERIFY(!w.openFiles({ path }));
        QVERIFY2(w.lastMessage().contains(expected), qPrintable(w.lastMessage()));
        QVERIFY(w.lastMessage().contains(name));
    }

    void scenarioFileRoundTrips()
    {
        const QString path = m_dir.filePath(QStringLiteral("run.mfu.json"));
        {
            MainWindow w;
            w.scenarioModel()->setGpuCount(8);
            w.scenarioModel()->setSeqLen(32768);
            QVERIFY2(w.saveScenarioTo(path), qPrintable(w.lastMessage()));
        }
        MainWindow w;
        const QString mfuBefore = labelText(w, "mfu");
        QVERIFY2(w.openFiles({ path }), qPrintable(w.lastMessage()));
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 8);
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, 32768);
        QVERIFY(labelText(w, "mfu") != mfuBefore); // 21,111 tok/s at 32k carries more FLOP per token
        QVERIFY(w.lastMessage().contains(QStringLiteral("Opened the scenario")));
        QVERIFY(!w.saveScenarioTo(m_dir.filePath(QStringLiteral("missing/dir/s.json"))));
        QVERIFY(w.lastMessage().contains(QStringLiteral("s.json")));
    }

    // The real command line, given the line the window copied, predicts what the window's scenario does.
    static void copiedCommandPredictsTheScenario(const MainWindow& w)
    {
        const QString line = QGuiApplication::clipboard()->text();
        QVERIFY2(line.startsWith(QStringLiteral("mfu-explorer predict --model ")), qPrintable(line));
        QVERIFY(w.lastMessage().contains(line));
        // Pasted into a POSIX shell, as a user would (the line's quoting is the shell's).
        QProcess sh;
        sh.start(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"),
                QStringLiteral("'%1'%2 --json")
                    .arg(QStringLiteral(MFU_CLI_BINARY), line.mid(int(strlen("mfu-explorer")))) });
        QVERIFY(sh.waitForFinished(60000));
        QVERIFY2(sh.exitCode() == 0, sh.readAllStandardError().constData());
        const QByteArray out = sh.readAllStandardOutput();
        const double stepTime = QJsonDocument::fromJson(out).object().value(QStringLiteral("step_time_s")).toDouble();
        const mfu::StepPrediction p = mfu::evaluate(w.scenarioModel()->scenario());
        QVERIFY2(std::abs(stepTime - p.stepTimeSeconds) <= 1e-9 * p.stepTimeSeconds, out.constData());
    }

    // Edit > Copy Predict Command, for a preset model and for one imported from a config.json (named by its path,
    // in quotes where the path needs them); once the file holds another model, the refusal says so.
    void copiesThePredictCommand()
    {
        MainWindow w;
        w.scenarioModel()->setGpuCount(16);
        w.scenarioModel()->setSeqLen(32768);
        QVERIFY2(w.copyPredictCommand(), qPrintable(w.lastMessage()));
        QVERIFY(QGuiApplication::clipboard()->text().contains(QStringLiteral("--gpus 16 --seq 32768")));
        copiedCommandPredictsTheScenario(w);
        if (QTest::currentTestFailed())
            return;

        const QByteArray llama = R"({
            "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 2048,
            "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": true, "head_dim": 64 })";
        const QString config = writeFile(QStringLiteral("my model's config.json"), llama);
        QVERIFY2(w.openFiles({ config }), qPrintable(w.lastMessage()));
        QVERIFY2(w.copyPredictCommand(), qPrintable(w.lastMessage()));
        copiedCommandPredictsTheScenario(w);
        if (QTest::currentTestFailed())
            return;

        QByteArray deeper = llama;
        deeper.replace("\"num_hidden_layers\": 16", "\"num_hidden_layers\": 24");
        QVERIFY(!writeFile(QStringLiteral("my model's config.json"), deeper).isEmpty());
        QGuiApplication::clipboard()->clear();
        QVERIFY(!w.copyPredictCommand());
        QVERIFY2(w.lastMessage().contains(QStringLiteral("no longer holds this model")), qPrintable(w.lastMessage()));
        QVERIFY(QGuiApplication::clipboard()->text().isEmpty());
    }

    void undoRedoAndTheModifiedMarker()
    {
        MainWindow w;
        QVERIFY(w.windowTitle().contains(QStringLiteral("[*]")));
        QVERIFY(!w.isWindowModified());
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, 8192);
        // A spin box drag: three edits of one field are one undo step.
        for (int64_t seqLen : { 9000, 12000, 16384 })
            w.scenarioModel()->setSeqLen(seqLen);
        w.scenarioModel()->setGpuCount(16);
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.undoStack()->count(), 2);
        w.undoStack()->undo();
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 1);
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, 16384);
        w.undoStack()->undo();
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, 8192);
        QVERIFY(!w.isWindowModified()); // back at the state it started in
        w.undoStack()->redo();
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, 16384);
        QVERIFY(w.isWindowModified());
        const QString path = m_dir.filePath(QStringLiteral("undo.mfu.json"));
        QVERIFY2(w.saveScenarioTo(path), qPrintable(w.lastMessage()));
        QVERIFY(!w.isWindowModified());
        QVERIFY(w.windowTitle().contains(QStringLiteral("undo.mfu.json")));
        w.scenarioModel()->setSeqLen(4096); // not merged into the saved step: saving is a boundary
        QVERIFY(w.isWindowModified());
        w.undoStack()->undo();
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, 16384);
        QVERIFY(!w.isWindowModified());
        // Opening a file starts a fresh history (the unsaved edit is discarded when asked).
        w.scenarioModel()->setGpuCount(64);
        w.setUnsavedChangesPrompt([] { return QMessageBox::Discard; });
        QVERIFY(w.openFiles({ path }));
        QVERIFY(!w.isWindowModified());
        QCOMPARE(w.undoStack()->count(), 0);
    }

    void undoRestoresTheThroughputMode()
    {
        // An edit made while the throughput is given as a step time undoes to a step time, not to the tokens/s
        // the scenario derived from it.
        MainWindow w;
        auto* model = w.scenarioModel();
        model->setThroughput(mfu::widgets::ThroughputInput::StepTime, 2.0);
        model->setGpuCount(8);
        w.undoStack()->undo();
        QCOMPARE(model->scenario().cluster.gpuCount, 1);
        QCOMPARE(model->throughputInput(), mfu::widgets::ThroughputInput::StepTime);
        QCOMPARE(model->throughputValue(), 2.0);
        QCOMPARE(model->scenario().measuredThroughput->scope, mfu::ThroughputScope::Cluster);
        QCOMPARE(model->scenario().measuredThroughput->tokensPerSec, 8192 / 2.0);
        w.undoStack()->undo(); // back to the start: tokens/s per GPU
        QCOMPARE(model->throughputInput(), mfu::widgets::ThroughputInput::TokensPerSecPerGpu);
        QCOMPARE(model->throughputValue(), 21111.0);
        w.undoStack()->redo(); // the step time entered on one GPU
        QCOMPARE(model->throughputInput(), mfu::widgets::ThroughputInput::StepTime);
        QCOMPARE(model->throughputValue(), 2.0);
        QCOMPARE(model->scenario().cluster.gpuCount, 1);
        QCOMPARE(model->scenario().measuredThroughput->tokensPerSec, 8192 / 2.0);
        w.undoStack()->redo(); // and the GPU count after it: 8 data-parallel ranks of 8,192 tokens per 2 s step
        QCOMPARE(model->scenario().cluster.gpuCount, 8);
        QCOMPARE(model->scenario().measuredThroughput->tokensPerSec, 8 * 8192 / 2.0);
    }

    void openWithChangesAsks()
    {
        const QString first = m_dir.filePath(QStringLiteral("open-first.mfu.json"));
        const QString second = m_dir.filePath(QStringLiteral("open-second.mfu.json"));
        {
            MainWindow writer;
            writer.scenarioModel()->setGpuCount(4);
            QVERIFY(writer.saveScenarioTo(first));
            writer.scenarioModel()->setGpuCount(2);
            QVERIFY(writer.saveScenarioTo(second));
        }
        MainWindow w;
        QVERIFY(w.openFiles({ first }));
        QMessageBox::StandardButton answer = QMessageBox::Cancel;
        int asked = 0;
        w.setUnsavedChangesPrompt([&] {
            ++asked;
            return answer;
        });
        QVERIFY(w.openFiles({ second })); // nothing unsaved: no question
        QCOMPARE(asked, 0);
        QVERIFY(w.openFiles({ first }));
        w.scenarioModel()->setGpuCount(16);
        const QString title = w.windowTitle();
        // Cancel: the edited scenario, its undo step, its file name and the modified marker all stay.
        QVERIFY(!w.openFiles({ second }));
        QCOMPARE(asked, 1);
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 16);
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.undoStack()->count(), 1);
        QCOMPARE(w.windowTitle(), title);
        // Discard: the other file opens.
        answer = QMessageBox::Discard;
        QVERIFY(w.openFiles({ second }));
        QCOMPARE(asked, 2);
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 2);
        QVERIFY(!w.isWindowModified());
        // Save: written to the file it came from, then the other opens.
        w.scenarioModel()->setGpuCount(32);
        answer = QMessageBox::Save;
        QVERIFY(w.openFiles({ first }));
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 4);
        MainWindow reopened;
        QVERIFY(reopened.openFiles({ second }));
        QCOMPARE(reopened.scenarioModel()->scenario().cluster.gpuCount, 32);
        // A broken file is refused before anything is asked.
        w.scenarioModel()->setGpuCount(64);
        const QString broken = writeFile(
            QStringLiteral("broken.mfu.json"), R"({"format": "mfu-explorer-scenario", "version": 1, "model": 7})");
        QVERIFY(!w.openFiles({ broken }));
        QCOMPARE(asked, 3);
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 64);
    }

    void closeWithChangesAsks_data()
    {
        QTest::addColumn<int>("answer");
        QTest::addColumn<bool>("closes");
        QTest::newRow("discard") << int(QMessageBox::Discard) << true;
        QTest::newRow("cancel") << int(QMessageBox::Cancel) << false;
    }

    void closeWithChangesAsks()
    {
        QFETCH(int, answer);
        QFETCH(bool, closes);
        MainWindow w;
        int asked = 0;
        w.setUnsavedChangesPrompt([&] {
            ++asked;
            return static_cast<QMessageBox::StandardButton>(answer);
        });
        w.show();
        QVERIFY(w.close()); // unmodified: closes without asking
        QCOMPARE(asked, 0);
        w.show();
        w.scenarioModel()->setGpuCount(8);
        QCOMPARE(w.close(), closes);
        QCOMPARE(asked, 1);
    }

    void closeWithChangesCanSave()
    {
        const QString path = m_dir.filePath(QStringLiteral("close.mfu.json"));
        QVERIFY(MainWindow().saveScenarioTo(path));
        MainWindow w;
        QVERIFY(w.openFiles({ path }));
        w.setUnsavedChangesPrompt([] { return QMessageBox::Save; });
        w.show();
        w.scenarioModel()->setGpuCount(32);
        QVERIFY(w.close()); // saved to the file it came from, no dialog
        MainWindow reopened;
        QVERIFY(reopened.openFiles({ path }));
        QCOMPARE(reopened.scenarioModel()->scenario().cluster.gpuCount, 32);
    }

    // The report's figures (the planner and its sweeps up to 16,384 GPUs) are computed off the GUI thread: the call
    // returns before anything is written, and the file follows.
    void exportsTheReport()
    {
        MainWindow w;
        QSignalSpy exported(&w, &MainWindow::reportExported);
        const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
        QVERIFY2(w.exportReport(pdf), qPrintable(w.lastMessage()));
        QVERIFY(!QFile::exists(pdf)); // written on the GUI thread once the figures are in, not within the call
        QVERIFY(exported.wait(120000));
        QVERIFY2(exported.front().front().toBool(), qPrintable(w.lastMessage()));
        QFile file(pdf);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.read(5) == "%PDF-");
        // A folder that does not exist is refused at once, naming the file and why, before any figure is computed.
        QVERIFY(!w.exportReport(m_dir.filePath(QStringLiteral("missing/dir/report.pdf"))));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("report.pdf"))
                && w.lastMessage().contains(QStringLiteral("does not exist")),
            qPrintable(w.lastMessage()));
        // So is a name whose format is neither: a PDF under report.txt would open as neither.
        QVERIFY(!w.exportReport(m_dir.filePath(QStringLiteral("report.txt"))));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("a report is a PDF (.pdf) or an HTML page")),
            qPrintable(w.lastMessage()));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("report.txt"))));
        QCOMPARE(exported.size(), 1);
    }

    // A calibration `calibrate --out` wrote opens in the window as one fitted in the Trace panel: Predict shows it.
    // One of another model or GPU brings its traced run's scenario with it, as one undo step.
    void calibrationFilesOpen()
    {
        MainWindow w;
        mfu::widgets::ScenarioModel* model = w.scenarioModel();
        const mfu::Scenario before = model->scenario();
        const QString path = m_dir.filePath(QStringLiteral("own.calibration.json"));
        mfu::writeCalibrationFile(
            QFile::encodeName(path).toStdString(), mfu::test::matmulsFasterThanPredicted(model->scenario()));
        QVERIFY2(w.openFiles({ path }), qPrintable(w.lastMessage()));
        QVERIFY(model->traceCalibration());
        QCOMPARE(model->traceCalibrationSource(), QStringLiteral("own.calibration.json"));
        QVERIFY2(w.lastMessage().startsWith(QStringLiteral("Calibrated Predict to")), qPrintable(w.lastMessage()));
        QVERIFY(qobject_cast<mfu::widgets::PredictPanel*>(w.panels()->currentWidget()));
        QVERIFY2(predictCalibratedLine(w).startsWith(QStringLiteral("Calibrated to own.calibration.json: MFU")),
            qPrintable(predictCalibratedLine(w)));
        QCOMPARE(w.recentFiles().value(0), QFileInfo(path).absoluteFilePath());

        mfu::Scenario other = before;
        other.model = *mfu::test::shippedPresets().findModel("qwen3-8b");
        other.cluster.gpuCount = 8;
        const QString otherPath = m_dir.filePath(QStringLiteral("other.calibration.json"));
        mfu::writeCalibrationFile(
            QFile::encodeName(otherPath).toStdString(), mfu::test::matmulsFasterThanPredicted(other));
        const int undoSteps = w.undoStack()->count();
        QVERIFY2(w.openFiles({ otherPath }), qPrintable(w.lastMessage()));
        QCOMPARE(model->scenario().model.id, std::string("qwen3-8b"));
        QCOMPARE(model->scenario().cluster.gpuCount, 8);
        QVERIFY2(w.lastMessage().contains(QStringLiteral("and took its traced run, Qwen3 8B on 8 x ")),
            qPrintable(w.lastMessage()));
        QVERIFY2(predictCalibratedLine(w).startsWith(QStringLiteral("Calibrated to other.calibration.json: MFU")),
            qPrintable(predictCalibratedLine(w)));
        QCOMPARE(w.undoStack()->count(), undoSteps + 1);
        QCOMPARE(model->scenario().cost.days, before.cost.days); // the user's job, priced at the calibrated MFU
        w.undoStack()->undo();
        QCOMPARE(model->scenario().model.id, before.model.id);
    }

    // The calibration Predict shows is in the exported report too, beside the uncalibrated prediction, with the
    // figures Predict's calibrated line gives.
    void exportedReportHasPredictsCalibration()
    {
        MainWindow w;
        mfu::widgets::ScenarioModel* model = w.scenarioModel();
        const mfu::TraceCalibration calibration = mfu::test::matmulsFasterThanPredicted(model->scenario());
        model->setTraceCalibration(calibration, QStringLiteral("synthetic.calibration.json"));
        QSignalSpy exported(&w, &MainWindow::reportExported);
        const QString html = m_dir.filePath(QStringLiteral("calibrated.html"));
        QVERIFY2(w.exportReport(html), qPrintable(w.lastMessage()));
        QVERIFY(exported.wait(120000));
        QVERIFY2(exported.front().front().toBool(), qPrintable(w.lastMessage()));
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(page.readAll());
        QVERIFY(text.contains(QStringLiteral("<h2>Calibrated to a trace</h2>")));
        QVERIFY(text.contains(QStringLiteral("synthetic.calibration.json")));
        const mfu::StepPrediction p = mfu::evaluate(model->scenario());
        const mfu::ErrorBand band = mfu::errorBandFor(model->scenario(), p, mfu::app::shippedErrorBands());
        const mfu::CalibratedPrediction c
            = mfu::calibratedPrediction(model->scenario(), calibration, p, mfu::relativeStepBandHalfWidth(band, p));
        const QString figures = QString::fromStdString(mfu::calibratedFiguresText(c)).toHtmlEscaped();
        QVERIFY2(text.contains(figures), qPrintable(figures));
    }

    // Cancel in the status bar stops the report's planner and sweeps; nothing is written.
    void reportExportCanBeCancelled()
    {
        MainWindow w;
        QSignalSpy exported(&w, &MainWindow::reportExported);
        const QString pdf = m_dir.filePath(QStringLiteral("cancelled.pdf"));
        QVERIFY2(w.exportReport(pdf), qPrintable(w.lastMessage()));
        mfu::widgets::Activity* report = nullptr;
        for (mfu::widgets::Activity* a : w.findChildren<mfu::widgets::Activity*>())
            if (a->isBusy() && a->label() == QStringLiteral("Report"))
                report = a;
        QVERIFY(report);
        report->cancel(); // what the status bar's Cancel button calls
        QVERIFY(exported.wait(120000));
        QCOMPARE(exported.front().front().toBool(), false);
        QVERIFY2(w.lastMessage().contains(QStringLiteral("cancelled")), qPrintable(w.lastMessage()));
        QVERIFY(!QFile::exists(pdf));
        QVERIFY(!report->isBusy());
    }

    void presetFileIsExplained()
    {
        MainWindow w;
        const QString path = writeFile(
            QStringLiteral("my_gpus.json"), R"({"format": "mfu-explorer-hardware", "version": 1, "hardware": []})");
        QVERIFY(!w.openFiles({ path }));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("preset file")), qPrintable(w.lastMessage()));
    }

    void windowStateIsRestoredOnlyForItsVersion()
    {
        {
            MainWindow w;
            w.resize(1000, 700);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.close(); // saves geometry and dock state
        }
        {
            MainWindow w;
            QCOMPARE(w.size(), QSize(1000, 700));
        }
        QSettings().setValue(QStringLiteral("mainWindow/stateVersion"), 0); // a layout from an older release
        MainWindow w;
        // The default size, as much of 1400x900 as the screen has room for (the offscreen screen is 800x800).
        QCOMPARE(w.size(), QSize(1400, 900).boundedTo(w.screen()->availableGeometry().size()));
    }

    void missingFileIsNamed()
    {
        MainWindow w;
        QVERIFY(!w.openFiles({ m_dir.filePath(QStringLiteral("nope.json")) }));
        QVERIFY(w.lastMessage().contains(QStringLiteral("nope.json")));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("no such file")), qPrintable(w.lastMessage()));
    }

    // A FIFO given to the window is refused at once, in the readers' words for what it is: it had been called
    // "no such file", which sent the user looking for a file that is there.
    void fifoIsNamedForWhatItIs()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("pipe.json"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        MainWindow w;
        QVERIFY(!w.openFiles({ fifo }));
        QVERIFY2(
            w.lastMessage().contains(QStringLiteral("pipe.json: is a FIFO (named pipe)")), qPrintable(w.lastMessage()));
        QVERIFY2(!w.lastMessage().contains(QStringLiteral("no such file")), qPrintable(w.lastMessage()));
    }

    // An empty or cut-off .json says so (the readers' words), not "not supported yet"; with several files given
    // together, every one that failed keeps its reason in the status bar, a folder without traces among them.
    void brokenFilesSayWhyEachOne()
    {
        const QString empty = writeFile(QStringLiteral("empty.json"), "");
        const QString cut
            = writeFile(QStringLiteral("cut.json"), "{\"model_type\": \"llama\", \"hidden_si"); // cut off mid-key
        const QString folder = m_dir.filePath(QStringLiteral("no-traces"));
        QVERIFY(QDir().mkpath(folder));
        MainWindow w;
        QVERIFY(!w.openFiles({ empty }));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("empty.json: not valid JSON: the file is empty (0 bytes)")),
            qPrintable(w.lastMessage()));
        QVERIFY(!w.openFiles({ cut }));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("probably truncated")), qPrintable(w.lastMessage()));
        QVERIFY(!w.openFiles({ folder, empty, cut }));
        const QString all = w.lastMessage();
        QVERIFY2(all.contains(QStringLiteral("no-traces")) && all.contains(QStringLiteral("empty.json"))
                && all.contains(QStringLiteral("cut.json")),
            qPrintable(all));
        QVERIFY2(!all.contains(QStringLiteral("Importing")), qPrintable(all));
    }

    void dropOpensThroughTheSamePath()
    {
        MainWindow w;
        const QString path = writeFile(QStringLiteral("dropped.json"), R"({"traceEvents": []})");
        QMimeData mime;
        mime.setUrls({ QUrl::fromLocalFile(path) });
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QVERIFY2(w.lastMessage().contains(QStringLiteral("dropped.json")), qPrintable(w.lastMessage()));
    }

    void exportsTheCurrentChart()
    {
        MainWindow w;
        QVERIFY(w.currentChart());
        const QString path = m_dir.filePath(QStringLiteral("calculator.csv"));
        QVERIFY2(w.exportCurrentChart(path), qPrintable(w.lastMessage()));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readLine().startsWith("Sequence length (tokens),6N (GFLOP/token)"));
        QVERIFY(!w.exportCurrentChart(m_dir.filePath(QStringLiteral("missing/dir/c.png"))));
        QVERIFY(!w.lastMessage().isEmpty());
        // A chart showing a sentence instead of data (here the Trace panel's, with no trace open; a sweep while it
        // runs) is not written as an image of that sentence.
        auto* trace = w.panels()->findChild<mfu::widgets::TracePanel*>();
        QVERIFY(trace);
        w.panels()->setCurrentWidget(trace);
        mfu::widgets::ChartView* empty = w.currentChart();
        QVERIFY(empty && !empty->emptyReason().isEmpty());
        const QString placeholder = m_dir.filePath(QStringLiteral("placeholder.png"));
        QVERIFY(!w.exportCurrentChart(placeholder));
        QVERIFY(!QFile::exists(placeholder));
        QVERIFY2(w.lastMessage().contains(QStringLiteral("nothing to export yet")), qPrintable(w.lastMessage()));
    }

    // The chart on screen, not the panel's first: on the Trace panel's Breakdown tab, Ctrl+E wrote the empty "MFU per
    // step" chart of the hidden Training log tab. Each tab of the panel exports its own chart.
    void exportsTheChartOnScreen()
    {
        MainWindow w;
        auto* trace = w.panels()->findChild<mfu::widgets::TracePanel*>();
        QVERIFY(trace);
        w.panels()->setCurrentWidget(trace);
        auto* views = trace->findChild<QTabWidget*>();
        QVERIFY(views);
        auto* log = trace->findChild<mfu::widgets::TrainingLogView*>();
        QVERIFY(log && log->findChild<mfu::widgets::ChartView*>());
        for (int i = 0; i < views->count(); ++i) {
            views->setCurrentIndex(i);
            mfu::widgets::ChartView* chart = w.currentChart();
            if (!chart)
                continue; // a view without a chart (Top kernels)
            QVERIFY2(views->currentWidget()->isAncestorOf(chart), qPrintable(views->tabText(i)));
            QCOMPARE(log->isAncestorOf(chart), views->currentWidget()->isAncestorOf(log));
        }
    }

    // Renders the whole window; MFU_SCREENSHOT_DIR=folder keeps PNGs (light and dark palette) to look at.
    void screenshot()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString folder = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        for (const bool dark : { false, true }) {
            if (dark)
                QApplication::setPalette(mfu::test::darkPalette());
            QTest::qWait(50);
            w.findChild<mfu::widgets::ChartView*>()->plot()->replot();
            const QImage image = w.grab().toImage();
            QCOMPARE(image.size(), w.size() * w.devicePixelRatio());
            if (!folder.isEmpty())
                QVERIFY(image.save(
                    folder + (dark ? QStringLiteral("/main_window_dark.png") : QStringLiteral("/main_window.png"))));
        }
        QApplication::setPalette(QPalette());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
