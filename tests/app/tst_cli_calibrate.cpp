// mfu-explorer calibrate and --calibration, as scripts run them: the real PyTorch 2.11 H200 trace calibrated, the file
// read back by predict, which prints the calibrated figures beside the uncalibrated ones with their basis.
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include "cli_runner.h"

using namespace mfu::test;

namespace {
const QString kTraces = QStringLiteral(MFU_SHARED_TRACES_DIR);
QString trace()
{
    return kTraces + QStringLiteral("/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
}
QString config()
{
    return kTraces + QStringLiteral("/pytorch211__h200__qwen3-0.6b-shape.config.json");
}
// `calibrate` of the H200 trace as it ran (one GPU: the trace names its H200, so no --gpu; FP32 weights under
// autocast), writing `out`.
QStringList calibrateTheH200Trace(const QString& out)
{
    return { QStringLiteral("calibrate"), trace(), QStringLiteral("--model"), config(), QStringLiteral("--seq"),
        QStringLiteral("4096"), QStringLiteral("--micro-batch"), QStringLiteral("8"),
        QStringLiteral("--attention-kernel"), QStringLiteral("cudnn"), QStringLiteral("--autocast"),
        QStringLiteral("--out"), out };
}
} // namespace

class TestCliCalibrate : public QObject {
    Q_OBJECT
private slots:
    void calibrateThenPredict()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("h200.calibration.json"));
        const CliResult c = runCli(calibrateTheH200Trace(out) + QStringList { QStringLiteral("--json") });
        QVERIFY2(c.exitCode == 0, c.err.constData());
        const QJsonObject j = c.json();
        QCOMPARE(j[QStringLiteral("terms")].toArray().size(), 5);
        QCOMPARE(j[QStringLiteral("gemm_shapes")].toArray().size(), 13);
        QCOMPARE(j[QStringLiteral("attention_shapes")].toArray().size(), 2);
        QVERIFY(std::abs(j[QStringLiteral("replay_error")].toDouble()) < 0.01);
        QCOMPARE(j[QStringLiteral("written_to")].toString(), out);

        const QStringList predict { QStringLiteral("predict"), QStringLiteral("--model"), config(),
            QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--seq"), QStringLiteral("8192"),
            QStringLiteral("--micro-batch"), QStringLiteral("4"), QStringLiteral("--attention-kernel"),
            QStringLiteral("cudnn"), QStringLiteral("--calibration"), out };
        const CliResult p = runCli(predict + QStringList { QStringLiteral("--json") });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const QJsonObject calibrated = p.json()[QStringLiteral("calibrated")].toObject();
        QVERIFY(calibrated[QStringLiteral("mfu")].toDouble() > 0);
        QVERIFY(calibrated[QStringLiteral("mfu_low")].toDouble() <= calibrated[QStringLiteral("mfu")].toDouble());
        const QJsonObject shares = calibrated[QStringLiteral("shares")].toObject();
        // Another sequence and micro-batch of as many tokens: the GEMMs are the shapes the trace ran (measured), the
        // attention runs over a sequence it never ran (extrapolated), the rest is carried across (interpolated).
        QVERIFY(shares[QStringLiteral("measured")].toDouble() > 0.25);
        QVERIFY(shares[QStringLiteral("extrapolated")].toDouble() > 0.25);
        const QJsonArray terms = calibrated[QStringLiteral("terms")].toArray();
        QCOMPARE(terms[0].toObject()[QStringLiteral("term")].toString(), QStringLiteral("matmul"));
        QCOMPARE(terms[0].toObject()[QStringLiteral("basis")].toString(), QStringLiteral("measured"));
        QCOMPARE(terms[1].toObject()[QStringLiteral("term")].toString(), QStringLiteral("attention"));
        QCOMPARE(terms[1].toObject()[QStringLiteral("basis")].toString(), QStringLiteral("extrapolated"));
        // The uncalibrated figures stay where they were.
        const CliResult plain = runCli(predict.mid(0, predict.size() - 2) + QStringList { QStringLiteral("--json") });
        QCOMPARE(p.json()[QStringLiteral("mfu")].toDouble(), plain.json()[QStringLiteral("mfu")].toDouble());
        // sweep and plan carry the calibrated figures beside each point and layout; plan's order stays the model's.
        const CliResult sweep = runCli({ QStringLiteral("sweep"), QStringLiteral("--axis"), QStringLiteral("seq"),
            QStringLiteral("--values"), QStringLiteral("4096,8192"), QStringLiteral("--model"), config(),
            QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--micro-batch"), QStringLiteral("8"),
            QStringLiteral("--attention-kernel"), QStringLiteral("cudnn"), QStringLiteral("--autocast"),
            QStringLiteral("--no-planner"), QStringLiteral("--calibration"), out, QStringLiteral("--json") });
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        // At the traced point as it ran (FP32 weights under autocast) every term is the trace's.
        const QJsonObject first = sweep.json()[QStringLiteral("points")].toArray()[0].toObject();
        const QJsonObject atTraced
            = first[QStringLiteral("current")].toObject()[QStringLiteral("calibrated")].toObject();
        QVERIFY(atTraced[QStringLiteral("shares")].toObject()[QStringLiteral("measured")].toDouble() > 0.99);
        const CliResult plan = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), config(),
            QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--gpus"), QStringLiteral("8"),
            QStringLiteral("--seq"), QStringLiteral("4096"), QStringLiteral("--top"), QStringLiteral("2"),
            QStringLiteral("--calibration"), out, QStringLiteral("--json") });
        QVERIFY2(plan.exitCode == 0, plan.err.constData());
        const QJsonObject best = plan.json()[QStringLiteral("configs")].toArray()[0].toObject();
        QVERIFY(best[QStringLiteral("calibrated")].toObject().contains(QStringLiteral("mfu")));
        const CliResult text = runCli(predict);
        QVERIFY(text.out.contains("calibrated on a trace"));
        QVERIFY(text.out.contains("interpolated: the trace's factor carried to sequence 8,192 (traced 4,096)"));
    }

    // A scenario saved before files carried the names a trace gives its GPU (no "match" under its hardware): the
    // trace's "NVIDIA H200" is still known as the scenario's H200 preset, through the library's preset of that id.
    void calibrateFromAnOlderScenarioFile()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const CliResult c = runCli({ QStringLiteral("calibrate"), trace(), QStringLiteral("--model"), config(),
            QStringLiteral("--seq"), QStringLiteral("4096"), QStringLiteral("--micro-batch"), QStringLiteral("8"),
            QStringLiteral("--autocast"), QStringLiteral("--json") });
        QVERIFY2(c.exitCode == 0, c.err.constData());
        QJsonObject scenario = c.json()[QStringLiteral("scenario")].toObject();
        QJsonObject cluster = scenario[QStringLiteral("cluster")].toObject();
        QJsonObject hardware = cluster[QStringLiteral("hardware")].toObject();
        QVERIFY(hardware.contains(QStringLiteral("match")));
        hardware.remove(QStringLiteral("match"));
        cluster[QStringLiteral("hardware")] = hardware;
        scenario[QStringLiteral("cluster")] = cluster;
        const QString old = writeFile(dir, QStringLiteral("old.scenario.json"), QJsonDocument(scenario).toJson());
        const CliResult again = runCli(
            { QStringLiteral("calibrate"), trace(), QStringLiteral("--scenario"), old, QStringLiteral("--json") });
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(again.json()[QStringLiteral("replay_step_s")].toDouble(),
            c.json()[QStringLiteral("replay_step_s")].toDouble());
    }

    // report --calibration: the report's section shows the calibrated MFU predict --calibration prints for the same
    // scenario (another sequence than the trace's), and a calibration of another model is said, not shown.
    void reportShowsTheCalibratedPrediction()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const QString calibration = dir.filePath(QStringLiteral("h200.calibration.json"));
        const CliResult c = runCli(calibrateTheH200Trace(calibration) + QStringList { QStringLiteral("--json") });
        QVERIFY2(c.exitCode == 0, c.err.constData());
        QJsonObject scenario = c.json()[QStringLiteral("scenario")].toObject();
        QJsonObject workload = scenario[QStringLiteral("workload")].toObject();
        workload[QStringLiteral("seq_len")] = 8192;
        scenario[QStringLiteral("workload")] = workload;
        const QString file = writeFile(dir, QStringLiteral("s8k.json"), QJsonDocument(scenario).toJson());

        const CliResult p = runCli({ QStringLiteral("predict"), QStringLiteral("--scenario"), file,
            QStringLiteral("--calibration"), calibration, QStringLiteral("--json") });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const double mfu = p.json()[QStringLiteral("calibrated")].toObject()[QStringLiteral("mfu")].toDouble();
        QVERIFY(mfu > 0);
        const QString page = dir.filePath(QStringLiteral("r.html"));
        const CliResult r = runCli({ QStringLiteral("report"), QStringLiteral("--scenario"), file,
            QStringLiteral("--calibration"), calibration, QStringLiteral("--out"), page });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile html(page);
        QVERIFY(html.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(html.readAll());
        QVERIFY(text.contains(QStringLiteral("Calibrated to a trace")));
        const QString figure = QStringLiteral("MFU %1%").arg(100 * mfu, 0, 'f', 2);
        QVERIFY2(text.contains(figure), qPrintable(figure));
        // The shapes the factors are carried by, as calibrate prints them: the trace's longest GEMM first.
        QVERIFY(text.contains(QStringLiteral("the longest 5 of 13 traced shapes")));
        QVERIFY(text.contains(QStringLiteral("32,768 x 3,072 x 1,024 BF16: 84 a step")));

        // The calibration file written over by the report: refused before anything is written.
        const CliResult over = runCli({ QStringLiteral("report"), QStringLiteral("--scenario"), file,
            QStringLiteral("--calibration"), calibration, QStringLiteral("--out"), calibration });
        QCOMPARE(over.exitCode, 2);
        QVERIFY(QFileInfo(calibration).size() > 0);

        // Another model (half the layers): the report is written, the calibration is a note saying why it does not
        // apply.
        QJsonObject model = scenario[QStringLiteral("model")].toObject();
        model[QStringLiteral("layers")] = model[QStringLiteral("layers")].toInt() / 2;
        scenario[QStringLiteral("model")] = model;
        const QString other = writeFile(dir, QStringLiteral("other.json"), QJsonDocument(scenario).toJson());
        const CliResult o = runCli({ QStringLiteral("report"), QStringLiteral("--scenario"), other,
            QStringLiteral("--calibration"), calibration, QStringLiteral("--out"), page });
        QVERIFY2(o.exitCode == 0, o.err.constData());
        QFile again(page);
        QVERIFY(again.open(QIODevice::ReadOnly));
        const QString otherText = QString::fromUtf8(again.readAll());
        QVERIFY(!otherText.contains(QStringLiteral("<h2>Calibrated to a trace")));
        QVERIFY(otherText.contains(QStringLiteral("not for this scenario")));
    }

    // The H200 trace cast its FP32 weights to BF16 every step (autocast): stated with 16-bit weights it is refused,
    // and nothing is written, where it had fitted a memory-bound factor of 2.92 and carried it to every scenario.
    void weightsAsTheTraceRanThem()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("h200.calibration.json"));
        QStringList sixteenBit = calibrateTheH200Trace(out);
        sixteenBit.removeAll(QStringLiteral("--autocast"));
        const CliResult refused = runCli(sixteenBit);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("the trace casts FP32 weights to 16 bits every step (197 matrices a step"),
            refused.err.constData());
        QVERIFY(refused.err.contains("turn on torch.autocast (FP32 weights), or give --autocast on the command line"));
        QVERIFY(!QFile::exists(out));
        // trace --json says what it read.
        const CliResult t = runCli({ QStringLiteral("trace"), trace(), QStringLiteral("--json") });
        QVERIFY2(t.exitCode == 0, t.err.constData());
        QCOMPARE(t.json()[QStringLiteral("autocast")].toBool(), true);
        const QJsonObject rank = t.json()[QStringLiteral("ranks")].toArray()[0].toObject();
        QCOMPARE(rank[QStringLiteral("fp32_matrix_casts_per_step")].toDouble(), 197.0);
    }

    // The H200 trace is of one GPU: given as one rank of eight it is refused (its matmul factor read 0.70 there,
    // taking in the model's lone-GPU constants, against 1.007 as the GPU it ran on); calibrated as it ran, its
    // calibration predicts the eight.
    void aLoneGpuTraceIsCalibratedAsOne()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("h200.calibration.json"));
        const QStringList calibrate = calibrateTheH200Trace(out);
        const CliResult eight = runCli(calibrate + QStringList { QStringLiteral("--gpus"), QStringLiteral("8") });
        QCOMPARE(eight.exitCode, 2);
        QVERIFY2(eight.err.contains("the trace records one GPU (no world size, no collective), the scenario 8 GPUs"),
            eight.err.constData());
        QVERIFY(eight.err.contains("--gpus 1"));
        QVERIFY(!QFile::exists(out));
        const CliResult one = runCli(calibrate + QStringList { QStringLiteral("--json") });
        QVERIFY2(one.exitCode == 0, one.err.constData());
        const double matmul
            = one.json()[QStringLiteral("terms")].toArray()[0].toObject()[QStringLiteral("factor")].toDouble();
        QVERIFY2(matmul > 0.95 && matmul < 1.05, QByteArray::number(matmul).constData());
        const CliResult p = runCli({ QStringLiteral("predict"), QStringLiteral("--model"), config(),
            QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--gpus"), QStringLiteral("8"),
            QStringLiteral("--seq"), QStringLiteral("4096"), QStringLiteral("--micro-batch"), QStringLiteral("8"),
            QStringLiteral("--attention-kernel"), QStringLiteral("cudnn"), QStringLiteral("--calibration"), out,
            QStringLiteral("--json") });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const QJsonObject calibrated = p.json()[QStringLiteral("calibrated")].toObject();
        QVERIFY(calibrated[QStringLiteral("mfu")].toDouble() > 0);
        QVERIFY(calibrated[QStringLiteral("shares")].toObject()[QStringLiteral("extrapolated")].toDouble() > 0);
    }

    // The files calibrate reads are never its --out (the trace had been replaced by its own calibration), a trace
    // whose attention ran another sequence than --seq says is refused, and plan and sweep refuse another GPU's
    // calibration as predict does.
    void inputsAreNeverOverwrittenNorMisdescribed()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("t.json.gz"));
        QVERIFY(QFile::copy(trace(), copy));
        const qint64 size = QFileInfo(copy).size();
        QStringList overTrace = calibrateTheH200Trace(copy);
        overTrace[1] = copy;
        const CliResult r = runCli(overTrace);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("is also an input of this command; refusing to write over it"), r.err.constData());
        QCOMPARE(QFileInfo(copy).size(), size);
        const QString config = dir.filePath(QStringLiteral("config.json"));
        QVERIFY(QFile::copy(::config(), config));
        QStringList overConfig = calibrateTheH200Trace(config);
        overConfig[3] = config;
        QCOMPARE(runCli(overConfig).exitCode, 2);

        // As many tokens a step as the trace's 4,096 x 8, over half the sequence.
        QStringList halfSequence = calibrateTheH200Trace(dir.filePath(QStringLiteral("c.json")));
        halfSequence[5] = QStringLiteral("2048");
        halfSequence[7] = QStringLiteral("16");
        const CliResult half = runCli(halfSequence);
        QCOMPARE(half.exitCode, 2);
        QVERIFY2(
            half.err.contains("the trace's attention ran over sequences of 4,096 tokens, the scenario's sequence is "
                              "2,048"),
            half.err.constData());

        const QString out = dir.filePath(QStringLiteral("h200.calibration.json"));
        QVERIFY(runCli(calibrateTheH200Trace(out)).exitCode == 0);
        for (const QStringList& command :
            { QStringList { QStringLiteral("sweep"), QStringLiteral("--axis"), QStringLiteral("seq") },
                QStringList { QStringLiteral("plan") } }) {
            const CliResult h100 = runCli(command
                + QStringList { QStringLiteral("--model"), ::config(), QStringLiteral("--gpu"),
                    QStringLiteral("h100-sxm"), QStringLiteral("--calibration"), out });
            QCOMPARE(h100.exitCode, 2);
            QVERIFY2(
                h100.err.contains("--calibration: the calibration was fitted on NVIDIA H200"), h100.err.constData());
        }
    }

    // plan --calibration of a scenario without a global batch: each layout calibrated at the batch it was planned at
    // (it had been given one micro-batch per rank: a 0.06 s step beside the planned 0.35 s), so a row's calibrated
    // MFU is predict --calibration's for that layout at that batch.
    void planCalibratesEachLayoutAtThePlannedBatch()
    {
        if (!QFile::exists(trace()))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("h200.calibration.json"));
        QVERIFY(runCli(calibrateTheH200Trace(out)).exitCode == 0);
        const QStringList scenario { QStringLiteral("--model"), config(), QStringLiteral("--gpu"),
            QStringLiteral("h200"), QStringLiteral("--seq"), QStringLiteral("4096"), QStringLiteral("--micro-batch"),
            QStringLiteral("8"), QStringLiteral("--attention-kernel"), QStringLiteral("cudnn"),
            QStringLiteral("--calibration"), out, QStringLiteral("--json") };
        const CliResult plan = runCli(QStringList { QStringLiteral("plan") } + scenario);
        QVERIFY2(plan.exitCode == 0, plan.err.constData());
        const QJsonObject j = plan.json();
        const QString batch = QString::number(j[QStringLiteral("global_batch_tokens")].toInteger());
        QCOMPARE(batch, QStringLiteral("32768"));
        const QJsonArray configs = j[QStringLiteral("configs")].toArray();
        QVERIFY(!configs.isEmpty());
        for (const QJsonValue& v : configs) {
            const QJsonObject c = v.toObject();
            const QJsonObject calibrated = c[QStringLiteral("calibrated")].toObject();
            const double step = c[QStringLiteral("step_time_s")].toDouble();
            QVERIFY2(std::abs(calibrated[QStringLiteral("step_time_s")].toDouble() / step - 1) < 0.25,
                qPrintable(QStringLiteral("calibrated %1 s against %2 s")
                               .arg(calibrated[QStringLiteral("step_time_s")].toDouble())
                               .arg(step)));
        }
        const QJsonObject first = configs.first().toObject();
        QStringList predict = QStringList { QStringLiteral("predict") } + scenario;
        predict[predict.indexOf(QStringLiteral("--micro-batch")) + 1]
            = QString::number(first[QStringLiteral("micro_batch")].toInt());
        predict << QStringLiteral("--global-batch-tokens") << batch;
        const CliResult p = runCli(predict);
        QVERIFY2(p.exitCode == 0, p.err.constData());
        QCOMPARE(first[QStringLiteral("calibrated")].toObject()[QStringLiteral("mfu")].toDouble(),
            p.json()[QStringLiteral("calibrated")].toObject()[QStringLiteral("mfu")].toDouble());
    }

    void badCalibrationFilesAreOneLineErrors()
    {
        QTemporaryDir dir;
        // A trace with no step: said before any scenario flag (an empty trace names no GPU, and --gpu was the error).
        const QString empty = writeFile(dir, QStringLiteral("empty.json"), "{\"traceEvents\": []}");
        const CliResult stepless
            = runCli({ QStringLiteral("calibrate"), empty, QStringLiteral("--model"), QStringLiteral("llama-3.1-8b") });
        QCOMPARE(stepless.exitCode, 2);
        QVERIFY2(stepless.err.contains("empty.json: no step to calibrate from (no ProfilerStep annotations and no GPU "
                                       "activity"),
            stepless.err.constData());
        const QString garbage = writeFile(dir, QStringLiteral("bad.json"), "{\"format\": \"something else\"}");
        const CliResult r
            = runCli({ QStringLiteral("predict"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                QStringLiteral("--gpu"), QStringLiteral("h100-sxm"), QStringLiteral("--calibration"), garbage });
        QCOMPARE(r.exitCode, 2); // bad input, as every other refused flag
        QVERIFY(r.err.contains("bad.json: format: not an MFU Explorer calibration"));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        // The trace itself, or a config.json, given where its calibration belongs: named for what it is.
        const QString config = writeFile(dir, QStringLiteral("config.json"), "{\"model_type\": \"llama\"}");
        const CliResult wrong
            = runCli({ QStringLiteral("predict"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                QStringLiteral("--gpu"), QStringLiteral("h100-sxm"), QStringLiteral("--calibration"), config });
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(
            wrong.err.contains("config.json: is a Hugging Face config.json, not a calibration"), wrong.err.constData());
        const QString trace
            = QStringLiteral(MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        if (QFileInfo::exists(trace)) {
            const CliResult gz
                = runCli({ QStringLiteral("predict"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
                    QStringLiteral("--gpu"), QStringLiteral("h100-sxm"), QStringLiteral("--calibration"), trace });
            QCOMPARE(gz.exitCode, 2);
            QVERIFY2(gz.err.contains("is gzip-compressed (a profiler trace?), not a calibration"), gz.err.constData());
        }
        const CliResult none = runCli({ QStringLiteral("calibrate"), QStringLiteral("--model"),
            QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"), QStringLiteral("h100-sxm") });
        QCOMPARE(none.exitCode, 2);
        QVERIFY(none.err.contains("give the trace to calibrate from"));
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrate)
#include "tst_cli_calibrate.moc"
