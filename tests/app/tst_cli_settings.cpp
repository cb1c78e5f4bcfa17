// The command line's scenario options come from the settings table (core/scenario/settings.h): every option
// `predict`, `sweep` and `plan` take is a setting's flag, a shorthand, or one of the inputs the table leaves out by
// design (listed here, each with why); a flag added beside the table fails this test.
#include <QCommandLineParser>
#include <QTest>

#include <set>
#include <stdexcept>

#include "app/cli/scenario_flags.h"
#include "core/scenario/settings.h"

using namespace mfu;

class TestCliSettings : public QObject {
    Q_OBJECT
private slots:
    void everyScenarioOptionIsInTheTable()
    {
        // What identifies the run or has its own reader (core/scenario/settings.h, "Not in the table").
        const std::set<std::string> outside = {
            "model", "params", // the model
            "gpu", "gpus", "scale-out-gbps", // the hardware, its count and the cluster's network (held in the hardware)
            "packing-length", "doc-length", "doc-lengths", "attention-mask", "padding-fraction", // packing
            "vision-tokens", "vision-tokens-per-image", "vision-frozen", // vision inputs
            "scenario", // a saved scenario to start from
            "flop-formula", "formula", // the FLOP/token convention MFU is reported in
            "stage-layers", // torchtitan's split, written as the pipeline_layout setting
        };
        QCommandLineParser parser;
        cli::addScenarioOptions(parser);
        std::set<std::string> tableFlags;
        for (const Setting& s : scenarioSettings())
            if (!s.flag.empty())
                tableFlags.insert(std::string(s.flag));
        for (const SettingShorthand& shorthand : settingShorthands())
            tableFlags.insert(std::string(shorthand.flag));
        // QCommandLineParser lists its options only in its help: "  --tp <N>   Tensor-parallel degree", or
        // "  --flop-formula, --formula <F>".
        std::set<std::string> offered;
        for (const QString& line : parser.helpText().split(QLatin1Char('\n'))) {
            if (!line.startsWith(QLatin1String("  --"))) // a wrapped description is indented further
                continue;
            const QString names = line.trimmed().section(QStringLiteral("  "), 0, 0);
            for (const QString& name : names.split(QStringLiteral(", "))) {
                const std::string flag = name.section(QLatin1Char(' '), 0, 0).mid(2).toStdString();
                offered.insert(flag);
                QVERIFY2(tableFlags.count(flag) || outside.count(flag),
                    ("--" + flag + " is an option outside the settings table").c_str());
            }
        }
        QVERIFY(offered.size() > 40);
        for (const std::string& flag : tableFlags)
            QVERIFY2(offered.count(flag), ("--" + flag + " is in the table but not an option").c_str());
    }

    // A flag's value is checked by the table: the same words and bounds as a file.
    void flagsApplyTheTable()
    {
        QCommandLineParser parser;
        cli::addScenarioOptions(parser);
        QVERIFY(parser.parse({ "predict", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--expert-node-limit", "0",
            "--virtual-stages", "2", "--pp", "2", "--eager", "--liger-kernel", "--fused-norm-activation" }));
        const Scenario s = cli::scenarioFromFlags(parser);
        QCOMPARE(s.parallelism.expertNodeLimit, 0); // 0 (unlimited) is within the table's bounds
        QCOMPARE(s.parallelism.schedule, PipelineSchedule::Interleaved1F1B);
        QCOMPARE(s.flags.compiled, false);
        QVERIFY(s.flags.fusedLinearCrossEntropy && s.flags.fusedNormActivation);

        // Megatron's --tp-comm-overlap is async TP by Transformer Engine's userbuffers; --async-tp alone is PyTorch's;
        // a setting's own flag wins over a shorthand's.
        const auto parallelismOf = [](const QStringList& extra) {
            QCommandLineParser p;
            cli::addScenarioOptions(p);
            const QStringList base { "predict", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tp", "8" };
            if (!p.parse(base + extra))
                throw std::runtime_error(p.errorText().toStdString());
            return cli::scenarioFromFlags(p).parallelism;
        };
        const Parallelism comm = parallelismOf({ "--tp-comm-overlap" });
        QVERIFY(comm.asyncTp);
        QCOMPARE(comm.tpOverlap, TpOverlap::Userbuffers);
        const Parallelism async = parallelismOf({ "--async-tp" });
        QVERIFY(async.asyncTp);
        QCOMPARE(async.tpOverlap, TpOverlap::SymmetricMemory);
        QCOMPARE(
            parallelismOf({ "--async-tp", "--tp-overlap-kind", "tp_comm_overlap" }).tpOverlap, TpOverlap::Userbuffers);
        QCOMPARE(parallelismOf({ "--tp-comm-overlap", "--tp-overlap-kind", "symmetric_memory" }).tpOverlap,
            TpOverlap::SymmetricMemory);
        const Parallelism none = parallelismOf({});
        QVERIFY(!none.asyncTp);
        QCOMPARE(none.tpOverlap, TpOverlap::SymmetricMemory);

        QCommandLineParser refused;
        cli::addScenarioOptions(refused);
        QVERIFY(refused.parse({ "predict", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tp", "1000001" }));
        try {
            cli::scenarioFromFlags(refused);
            QFAIL("--tp 1000001 was taken");
        } catch (const std::exception& e) {
            QCOMPARE(
                std::string(e.what()), "--tp: '1000001' is refused: must be " + settingRangeText(*findSetting("tp")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliSettings)
#include "tst_cli_settings.moc"
