// The command line on hostile inputs of the readers' kinds, through the real binary: a FIFO as every kind of input
// (each blocked forever before), /dev/zero as a scenario (grew until memory ran out), a training log with lines of
// 100,000 characters (crashed), a mistyped subcommand (tried to open a window) and a user preset holding a byte that
// is not UTF-8 (`presets --json` failed). Each ends promptly with its answer or a one-line error naming the input.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

using mfu::test::CliResult;
using mfu::test::runCli;

namespace {

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestCliHostileInputs : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_fifo;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_fifo = m_dir.filePath(QStringLiteral("input.json"));
        QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
    }

    void fifoAsAnyInput_data()
    {
        QTest::addColumn<QStringList>("args");
        const QString f = m_dir.filePath(QStringLiteral("input.json"));
        const QString out = m_dir.filePath(QStringLiteral("out.pdf"));
        QTest::newRow("trace") << QStringList { "trace", f };
        QTest::newRow("trace --kernel-rules") << QStringList { "trace", f, "--kernel-rules", f };
        QTest::newRow("trace merge") << QStringList { "trace", "merge", f };
        QTest::newRow("predict --scenario") << QStringList { "predict", "--scenario", f };
        QTest::newRow("calc --doc-lengths") << QStringList { "calc", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
            "--seq", "8192", "--packing-length", "8192", "--doc-lengths", f, "--tokens-per-sec-per-gpu", "1000" };
        QTest::newRow("calc --model") << QStringList { "calc", "--model", f };
        QTest::newRow("diagnose") << QStringList { "diagnose", f };
        QTest::newRow("diagnose --log") << QStringList { "diagnose", "--log", f };
        QTest::newRow("validate --runs") << QStringList { "validate", "--runs", f };
        QTest::newRow("report --scenario") << QStringList { "report", "--scenario", f, "--out", out };
    }

    void fifoAsAnyInput()
    {
        QFETCH(QStringList, args);
        QElapsedTimer timer;
        timer.start();
        const CliResult r = runCli(args);
        QVERIFY2(r.exitCode > 0, "blocked (killed after 60 s) or succeeded");
        QVERIFY(timer.elapsed() < 30000);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(m_fifo) && err.contains(QStringLiteral("FIFO")), qPrintable(err));
        QCOMPARE(err.count(QStringLiteral("error: ")), 1); // one line (Qt may add its own notices about the platform)
    }

    void deviceAsScenario()
    {
        const CliResult r = runCli({ "predict", "--scenario", "/dev/zero" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("/dev/zero: is a character device, not a scenario file"), r.err.constData());
    }

    void logWithLongLines()
    {
        const QString log = m_dir.filePath(QStringLiteral("long.log"));
        writeFile(log,
            "Device: NVIDIA " + QByteArray(100000, 'H') + "\nGPUs: " + QByteArray(100000, '1') + "\n"
                + "Iter     10 | Loss: 10.7652 | Time: 1838ms | " + QByteArray(100000, '-') + "\n"
                + "Iter     20 | Loss: 10.5 | Time: 1840ms\n");
        const CliResult r = runCli({ "trace", log, "--json" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto out = nlohmann::json::parse(r.out.toStdString());
        const auto& steps = out["log"]["steps"];
        QCOMPARE(steps.size(), size_t(2));
        QCOMPARE(steps[0]["loss"].get<double>(), 10.7652);
        QVERIFY(out["log"]["facts"]["gpus"].is_null());
        QCOMPARE(out["log"]["long_lines_skipped"].get<int>(), 0);

        const CliResult custom = runCli({ "trace", log, "--log-pattern", "Iter +(\\d+) .*Time: (\\d+)ms",
            "--log-groups", "step=1,time_ms=2", "--json" });
        QVERIFY2(custom.exitCode == 0, custom.err.constData());
        QCOMPARE(nlohmann::json::parse(custom.out.toStdString())["log"]["steps"].size(), size_t(2));
    }

    // A 100,000-character value is not echoed whole: the message quotes its two ends and its length, and the advice
    // after it (the presets to choose from) stays in view. 1e400 is E notation written well, past a double's range.
    void longValuesAreQuotedByTheirEnds()
    {
        const QString longModel = QString(100000, QLatin1Char('a'));
        const CliResult model = runCli({ "predict", "--model", longModel, "--gpu", "h100-sxm" });
        QCOMPARE(model.exitCode, 2);
        QVERIFY2(model.err.size() < 4000, QByteArray::number(model.err.size()).constData());
        QVERIFY2(model.err.contains("aaaa' (100,000 characters) is neither a model preset"),
            model.err.left(400).constData());
        QVERIFY2(model.err.contains(("--model: '" + QString(36, QLatin1Char('a')) + QChar(0x2026)).toUtf8()),
            model.err.left(400).constData());
        QVERIFY2(model.err.contains("llama-3.1-8b"), model.err.left(400).constData());
        const CliResult gpu = runCli({ "predict", "--model", "llama-3.1-8b", "--gpu", longModel });
        QCOMPARE(gpu.exitCode, 2);
        QVERIFY2(gpu.err.size() < 4000, QByteArray::number(gpu.err.size()).constData());
        const CliResult seq = runCli({ "calc", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--seq", "1e400" });
        QCOMPARE(seq.exitCode, 2);
        QVERIFY2(seq.err.contains("'1e400' is not a number of tokens (past the largest number a double holds"),
            seq.err.constData());
    }

    // A model read from a folder called "inf", a run labelled "NaN": names, printed as given, not figures beyond any
    // real job (the guard against non-finite figures in the text refused them).
    void namesThatReadAsNonFiniteFigures()
    {
        const QString folder = m_dir.filePath(QStringLiteral("inf"));
        QVERIFY(QDir().mkpath(folder));
        writeFile(folder + QStringLiteral("/config.json"),
            R"({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
                "num_attention_heads": 16, "num_key_value_heads": 8, "vocab_size": 32000})");
        for (const char* command : { "calc", "predict" }) {
            const CliResult r = runCli({ command, "--model", folder, "--gpu", "h100-sxm", "--gpus", "8" });
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY2(r.out.startsWith("inf"), r.out.left(200).constData());
        }
        const QString report = m_dir.filePath(QStringLiteral("nan_label.json"));
        writeFile(report,
            R"({"label": "NaN", "gpu": "h100-sxm", "gpus": 8, "model": "llama-3.1-8b", "seq_len": 8192,
                "tokens_per_sec": 7000, "tokens_per_sec_scope": "gpu", "mfu": 0.4})");
        const CliResult d = runCli({ "diagnose", report });
        QVERIFY2(d.exitCode == 0, d.err.constData());
        QVERIFY2(d.out.contains("NaN"), d.out.left(400).constData());
    }

    void unknownSubcommand()
    {
        const CliResult r = runCli({ "calibrat", "--model", "llama-3.1-8b" });
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.startsWith(QStringLiteral("mfu-explorer: unknown subcommand 'calibrat'; the subcommands are: "
                                               "presets, calc, diagnose")),
            qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("validate")), qPrintable(err));
        QVERIFY(r.out.isEmpty());
        // `mfu-explorer "$UNSET"`: an empty argument is no subcommand either (it opened a window and aborted).
        for (const char* empty : { "", " " }) {
            const CliResult e = runCli({ empty });
            QCOMPARE(e.exitCode, 2);
            QVERIFY2(e.err.contains("unknown subcommand"), e.err.constData());
        }
    }

    // Without a display the window cannot open: a forgotten subcommand, a missing file or a typo with a dot in it
    // (`mfu-explorer calc.`) aborted with a core dump (exit 134) from QApplication; now exit 2 with what to do.
    void windowWithoutDisplayIsRefused()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" })
            env.remove(QString::fromLatin1(name));
        // The exit status (-1 for a crash) and stderr.
        const auto run = [&env](const QStringList& args) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(QStringLiteral(MFU_CLI_BINARY), args);
            const bool finished = p.waitForFinished(60000);
            return std::pair { finished && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromLocal8Bit(p.readAllStandardError()) };
        };
        const QString existing = m_dir.filePath(QStringLiteral("present.json"));
        writeFile(existing, "{}");
        for (const QStringList& args :
            { QStringList { QStringLiteral("calc.") }, QStringList { existing }, QStringList {} }) {
            const auto [exitCode, err] = run(args);
            QCOMPARE(exitCode, 2);
            QVERIFY2(err.contains(QStringLiteral("there is no display to open the window on"))
                    && err.contains(QStringLiteral("use a subcommand")),
                qPrintable(err));
            QCOMPARE(err.contains(QStringLiteral("is neither a subcommand nor an existing file")),
                args.value(0) == QStringLiteral("calc."));
        }
    }

    // A command never writes over its own input: a summary over the trace it reads, a report over its scenario.
    void outputOverItsInputIsRefused()
    {
        const QString trace = m_dir.filePath(QStringLiteral("self.json"));
        const QByteArray bytes = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                                 "\"pid\": 0, \"tid\": 7, \"ts\": 0, \"dur\": 5, \"args\": {}}]}";
        writeFile(trace, bytes);
        const CliResult r = runCli({ "trace", trace, "--summary-out", trace });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("is also an input of this command"), r.err.constData());
        QFile kept(trace);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), bytes);

        const QString scenario = m_dir.filePath(QStringLiteral("scenario.json"));
        QVERIFY(QFile::copy(QStringLiteral(MFU_SOURCE_DIR "/tests/data/scenario_v0.json"), scenario));
        const QByteArray before = [&] {
            QFile f(scenario);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        const CliResult report = runCli({ "report", "--scenario", scenario, "--out", scenario });
        QCOMPARE(report.exitCode, 2);
        QVERIFY2(report.err.contains("is also an input of this command"), report.err.constData());
        QFile same(scenario);
        QVERIFY(same.open(QIODevice::ReadOnly));
        QCOMPARE(same.readAll(), before);
    }

    // A file whose own name is 250 bytes (the limit is 255) can be saved: the temporary beside it is named within it.
    void longTargetNameIsSaved()
    {
        const QString trace = m_dir.filePath(QStringLiteral("short.json"));
        writeFile(trace,
            "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
            "\"tid\": 7, \"ts\": 0, \"dur\": 5, \"args\": {}}]}");
        const QString out = m_dir.filePath(QString(237, QLatin1Char('s')) + QStringLiteral(".summary.json"));
        const CliResult r = runCli({ "trace", trace, "--summary-out", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QFile::exists(out));
    }

    // Past the file-size limit a write killed the process with SIGXFSZ (exit 153, a temporary left, no message):
    // it now fails with the system's reason, keeps the old file and leaves no temporary.
    void fileSizeLimitIsAnError()
    {
        QTemporaryDir folder;
        const QString trace = folder.filePath(QStringLiteral("t.json"));
        writeFile(trace,
            "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
            "\"tid\": 7, \"ts\": 0, \"dur\": 5, \"args\": {}}]}");
        const QString out = folder.filePath(QStringLiteral("keep.summary.json"));
        writeFile(out, "old");
        QProcess p;
        p.start(QStringLiteral("prlimit"),
            { QStringLiteral("--fsize=200"), QStringLiteral(MFU_CLI_BINARY), QStringLiteral("trace"), trace,
                QStringLiteral("--summary-out"), out });
        if (!p.waitForStarted(10000))
            QSKIP("prlimit (util-linux) is not installed");
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(p.readAllStandardError().contains("File too large"), "the system's reason is missing");
        QFile kept(out);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("old"));
        QCOMPARE(QDir(folder.path()).entryList(QDir::Files | QDir::Hidden).size(), qsizetype(2)); // no temporary
    }

    // An answer that cannot reach stdout (a full disk, a closed stdout) had exited 0 with the file cut short and no
    // word: a script redirecting --json took the truncated file for the answer.
    void answerThatCannotBeWrittenIsAnError()
    {
        if (!QFileInfo::exists(QStringLiteral("/dev/full")))
            QSKIP("no /dev/full on this system");
        QProcess full;
        full.setStandardOutputFile(QStringLiteral("/dev/full"));
        full.start(QStringLiteral(MFU_CLI_BINARY), { QStringLiteral("presets"), QStringLiteral("--json") });
        QVERIFY(full.waitForFinished(60000));
        QCOMPARE(full.exitCode(), 2);
        const QByteArray fullErr = full.readAllStandardError();
        QVERIFY2(fullErr.contains("stdout: No space left on device"), fullErr.constData());

        // Closed by the shell (`>&-`): the answer goes nowhere, and the exit status says so.
        QProcess closed;
        closed.start(QStringLiteral("sh"),
            { QStringLiteral("-c"), QStringLiteral("exec \"$0\" presets >&-"), QStringLiteral(MFU_CLI_BINARY) });
        QVERIFY(closed.waitForFinished(60000));
        QCOMPARE(closed.exitCode(), 2);
        const QByteArray closedErr = closed.readAllStandardError();
        QVERIFY2(closedErr.contains("stdout: it is closed"), closedErr.constData());
    }

    void presetWithInvalidUtf8()
    {
        QTemporaryDir folder;
        // A model preset whose name ends in a Latin-1 byte (0xE9, an é in Latin-1), as an old editor saves it.
        writeFile(folder.filePath(QStringLiteral("models.json")),
            QByteArray("{\"models\": [{\"id\": \"tiny-latin1\", \"name\": \"Tiny caf") + char(0xE9)
                + "\", \"params\": 1000000000, \"sources\": [\"test\"]}]}");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MFU_EXPLORER_PRESETS_DIR"), folder.path());
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(MFU_CLI_BINARY), { QStringLiteral("presets"), QStringLiteral("--json") });
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        const auto out = nlohmann::json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
        QVERIFY2(!out.is_discarded(), "presets --json printed invalid JSON");
    }
};

QTEST_GUILESS_MAIN(TestCliHostileInputs)
#include "tst_cli_hostile_inputs.moc"
