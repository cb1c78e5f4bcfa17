// Every numeric flag of every subcommand, each given each hostile value on its own: 0, -1, 1e308, nan, inf, '',
// '1e', ' 8', '8 GPUs', '2,50', 2^63. Each must be refused cleanly (exit status 2, one line on stderr naming the flag)
// or give an answer with no inf or NaN in it; the malformed ones must always be refused. The flags are read from each
// subcommand's --help, and a flag counts as numeric when "abc" is refused as "not a number": a flag added later is
// swept without editing this file. The subcommands run in-process (app/cli/subcommand.h, as the Python module runs
// them) so that the some 1,500 runs take seconds; a few run through the real binary as well.
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/cli_common.h"
#include "app/cli/subcommand.h"
#include "tests/cli_runner.h"

using mfu::test::writeFile;

namespace {

struct Outcome {
    int status = -1;
    QString out;
    QString err;
};

Outcome runInProcess(const QString& command, const QStringList& args)
{
    const mfu::cli::Subcommand* sub = mfu::cli::findSubcommand(command);
    if (!sub)
        qFatal("no subcommand %s", qPrintable(command));
    Outcome r;
    mfu::cli::OutputCapture capture;
    r.status = sub->run(QStringList { command } + args);
    r.out = QString::fromStdString(capture.out);
    r.err = QString::fromStdString(capture.err);
    return r;
}

QByteArray kernel(const char* name, const char* ts, const char* dur)
{
    return QByteArray("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"") + name
        + "\", \"pid\": 0, \"tid\": 7, \"ts\": " + ts + ", \"dur\": " + dur
        + ", \"args\": {\"device\": 0, \"stream\": 7}}";
}

QByteArray smallTrace()
{
    return "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}], \"traceEvents\": ["
        + kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "0", "100") + ","
        + kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "200", "100") + ","
        + "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 0, \"dur\": 200},"
        + "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 200, \"dur\": 200}]}";
}

const QByteArray kNanoGptLog = "iter 0: loss 10.9000, time 5000.00ms, mfu -100.00%\n"
                               "iter 1: loss 9.0000, time 130.00ms, mfu -100.00%\n"
                               "iter 2: loss 8.0000, time 120.00ms, mfu 40.00%\n"
                               "iter 3: loss 7.0000, time 124.00ms, mfu 42.00%\n";

// A subcommand's working command line, as flag -> value ("" for a switch or a positional), and the flags each
// tested flag brings or drops: a flag read only with another (--step-time with --tokens-per-step) or instead of
// another (--params instead of --model).
struct Base {
    QString command;
    std::vector<std::pair<QString, QString>> flags;
    QStringList positionals;
    std::map<QString, std::vector<std::pair<QString, QString>>> companions;
    std::map<QString, QStringList> replaces;
};

const QStringList kModelGroup { "model", "params" };
const QStringList kThroughputGroup { "tokens-per-sec", "tokens-per-sec-per-gpu", "step-time", "tokens-per-step" };

std::vector<Base> bases(const QString& trace, const QString& log)
{
    const std::vector<std::pair<QString, QString>> scenario { { "model", "llama-3.1-8b" }, { "gpu", "h100-sxm" },
        { "gpus", "8" } };
    std::map<QString, QStringList> scenarioReplaces { { "params", kModelGroup } };
    std::map<QString, std::vector<std::pair<QString, QString>>> scenarioCompanions;
    Base calc { "calc", scenario, {}, {}, scenarioReplaces };
    calc.flags.push_back({ "tokens-per-sec-per-gpu", "9000" });
    for (const QString& f : kThroughputGroup)
        calc.replaces[f] = kThroughputGroup;
    calc.companions["step-time"] = { { "tokens-per-step", "1048576" } };
    calc.companions["tokens-per-step"] = { { "step-time", "10" } };
    calc.replaces["doc-length"] = { "doc-lengths" };
    // The batch shape gives the tokens per step of a --step-time.
    for (const char* f : { "micro-batch", "grad-accum", "dp" }) {
        calc.companions[f] = { { "step-time", "10" }, { "micro-batch", "4" } };
        calc.replaces[f] = kThroughputGroup;
    }

    Base cost { "cost",
        { { "gpu", "h100-sxm" }, { "gpus", "8" }, { "days", "30" }, { "price-per-gpu-hour", "2.5" },
            { "baseline-mfu", "0.4" }, { "target-mfu", "0.5" } },
        {}, {}, {} };
    for (const char* f : { "days", "tokens", "steps" })
        cost.replaces[f] = { "days", "tokens", "steps" };
    cost.companions["tokens"] = { { "model", "llama-3.1-8b" } };
    cost.companions["steps"] = { { "model", "llama-3.1-8b" }, { "tokens-per-step", "1048576" } };
    cost.companions["tokens-per-step"] = { { "model", "llama-3.1-8b" }, { "steps", "1000" } };
    cost.replaces["tokens-per-step"] = { "days" };
    cost.companions["seq"] = { { "model", "llama-3.1-8b" } };
    cost.companions["params"] = {};
    cost.companions["flops-per-token"] = {};

    Base predict { "predict", scenario, {}, scenarioCompanions, scenarioReplaces };
    predict.companions["expert-capacity-factor"] = { { "model", "mixtral-8x7b" }, { "ep", "8" } };
    predict.replaces["expert-capacity-factor"] = kModelGroup;
    Base sweep = predict;
    sweep.command = "sweep";
    sweep.flags.push_back({ "axis", "gpus" });
    sweep.flags.push_back({ "no-planner", "" });
    Base plan = predict;
    plan.command = "plan";
    plan.flags.push_back({ "top", "1" });

    Base diagnose { "diagnose",
        { { "log", log }, { "model", "gpt2" }, { "gpu", "a100-sxm-40gb" }, { "gpus", "1" }, { "seq", "1024" },
            { "tokens-per-step", "65536" } },
        {}, {}, scenarioReplaces };
    Base traceBase { "trace", { { "gpu", "h100-sxm" } }, { trace }, {}, scenarioReplaces };
    traceBase.companions["tokens-per-step"] = { { "model", "llama-3.1-8b" } };
    traceBase.companions["seq"] = { { "model", "llama-3.1-8b" }, { "tokens-per-step", "1048576" } };
    traceBase.companions["params"] = { { "tokens-per-step", "1048576" } };
    return { calc, cost, predict, sweep, plan, diagnose, traceBase };
}

QStringList commandLine(const Base& base, const QString& flag, const QString& value)
{
    std::vector<std::pair<QString, QString>> flags;
    const QStringList dropped = base.replaces.count(flag) ? base.replaces.at(flag) : QStringList {};
    for (const auto& f : base.flags)
        if (f.first != flag && !dropped.contains(f.first))
            flags.push_back(f);
    if (base.companions.count(flag))
        for (const auto& c : base.companions.at(flag)) {
            std::erase_if(flags, [&c](const auto& f) { return f.first == c.first; });
            flags.push_back(c);
        }
    QStringList args;
    for (const auto& [name, v] : flags)
        args << (v.isEmpty() ? "--" + name : "--" + name + "=" + v);
    if (!flag.isEmpty())
        args << "--" + flag + "=" + value; // "=": a value starting with '-' or empty stays the flag's value
    return args << "--" << base.positionals;
}

// The options with a value that --help lists.
QStringList valueOptions(const QString& command)
{
    const Outcome help = runInProcess(command, { "--help" });
    QStringList names;
    static const QRegularExpression option(
        QStringLiteral("^\\s+(?:-\\w, )?--([a-z0-9-]+)(?:, --[a-z0-9-]+)? <"), QRegularExpression::MultilineOption);
    for (auto it = option.globalMatch(help.out); it.hasNext();)
        names << it.next().captured(1);
    return names;
}

bool saysNotANumber(const Outcome& r)
{
    return r.status == 2 && r.err.contains(QStringLiteral("not a number"));
}

// "inf", "-nan", "NaN%", "$inf" standing as a figure (app/cli/cli_common.h's nonFiniteFigure, applied here to what
// was printed, so a path that bypassed printText/printJson is caught too).
bool printsNonFinite(const Outcome& r)
{
    static const QRegularExpression figure(
        QStringLiteral("(^|[\\s$(=:,])[-+]?(inf|nan|infinity)([\\s%,)]|$)"), QRegularExpression::CaseInsensitiveOption);
    return figure.match(r.out).hasMatch() || figure.match(r.err).hasMatch();
}

// 2^63: one past int64's largest, a whole number that must not be called anything else.
const QString kTwoToThe63 = QStringLiteral("9223372036854775808");
const QStringList kHostile { "0", "-1", "1e308", "nan", "inf", "", "1e", " 8", "8 GPUs", "2,50", kTwoToThe63 };
const QStringList kMalformed { "nan", "inf", "", "1e", " 8", "8 GPUs", "2,50" };
// A list flag reads "2,50" as the points 2 and 50, and " 8" as the point 8.
const QStringList kListFlags { "values", "stage-layers" };

} // namespace

class TestCliNumericFlags : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_trace;
    QString m_log;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("MFU_EXPLORER_PRESETS_DIR", QFile::encodeName(m_dir.filePath(QStringLiteral("no-user-presets"))));
        m_trace = writeFile(m_dir, QStringLiteral("t.json"), smallTrace());
        m_log = writeFile(m_dir, QStringLiteral("train.log"), kNanoGptLog);
        // The "abc" probe reaches every option, --summary-out among them: what it writes lands here.
        QVERIFY(QDir::setCurrent(m_dir.path()));
    }

    void everyNumericFlagRefusesHostileValues()
    {
        int swept = 0;
        QStringList problems;
        for (const Base& base : bases(m_trace, m_log)) {
            // The base command works: a refusal below is the tested flag's.
            const Outcome plain = runInProcess(base.command, commandLine(base, {}, {}));
            QVERIFY2(plain.status == 0, qPrintable(base.command + ": " + plain.err));
            QStringList numeric;
            for (const QString& flag : valueOptions(base.command))
                if (saysNotANumber(runInProcess(base.command, commandLine(base, flag, QStringLiteral("abc")))))
                    numeric << flag;
            QVERIFY2(numeric.size() >= 3, qPrintable(base.command + ": numeric flags " + numeric.join(' ')));
            qInfo("%s: %lld numeric flags: %s", qPrintable(base.command), static_cast<long long>(numeric.size()),
                qPrintable(numeric.join(' ')));
            for (const QString& flag : numeric) {
                for (const QString& value : kHostile) {
                    const QStringList args = commandLine(base, flag, value);
                    const Outcome r = runInProcess(base.command, args);
                    ++swept;
                    const QString what = base.command + " --" + flag + "='" + value + "': ";
                    if (printsNonFinite(r))
                        problems << what + "prints a non-finite figure: " + r.out.left(300) + r.err;
                    const bool listItems = kListFlags.contains(flag) && (value == "2,50" || value == " 8");
                    if (r.status == 0 && kMalformed.contains(value) && !listItems)
                        problems << what + "accepted";
                    if (r.status != 0 && r.status != 2)
                        problems << what + "exit status " + QString::number(r.status);
                    if (r.status == 2
                        && (r.err.count(QLatin1Char('\n')) != 1 || !r.err.contains("--" + flag) || !r.out.isEmpty()))
                        problems << what + "unclear error: " + r.err;
                    if (value == kTwoToThe63 && r.err.contains(QStringLiteral("whole number, got")))
                        problems << what + "calls a whole number not whole: " + r.err;
                }
            }
        }
        for (const QString& p : problems)
            qWarning("%s", qPrintable(p.trimmed())); // all of them, not the first screenful
        QVERIFY2(problems.isEmpty(), qPrintable(QString::number(problems.size()) + " problems, listed above"));
        QVERIFY2(swept >= 500, qPrintable(QString::number(swept)));
    }

    // The same refusals through the real binary: what a script sees.
    void theBinaryRefusesAsWell()
    {
        const auto cost = [](const QStringList& extra) {
            return mfu::test::runCli(QStringList { "cost", "--gpu", "h100-sxm", "--gpus", "8", "--days", "30",
                                         "--baseline-mfu", "0.4", "--json" }
                + extra);
        };
        const auto pricey = cost({ "--price-per-gpu-hour", "2,50" });
        QCOMPARE(pricey.exitCode, 2);
        QVERIFY2(pricey.err.contains("--price-per-gpu-hour: '2,50' is not a number"), pricey.err.constData());
        const auto huge = cost({ "--price-per-gpu-hour", "1e308" });
        QCOMPARE(huge.exitCode, 2);
        QVERIFY2(huge.err.contains("--price-per-gpu-hour"), huge.err.constData());
        const auto wrapped = cost({ "--price-per-gpu-hour", "2", "--gpus=4294967304" });
        QCOMPARE(wrapped.exitCode, 2);
        QVERIFY2(wrapped.err.contains("--gpus"), wrapped.err.constData());
        // 2^63 GPUs: the cluster's bound is the reason, not a 64-bit count's.
        const auto int64Past = cost({ "--price-per-gpu-hour", "2", "--gpus", kTwoToThe63 });
        QCOMPARE(int64Past.exitCode, 2);
        QVERIFY2(int64Past.err.contains("--gpus: 9223372036854775808 GPUs is beyond any cluster"),
            int64Past.err.constData());
        const auto grouped = cost({ "--price-per-gpu-hour", "1,000.50" });
        QCOMPARE(grouped.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(grouped.out.toStdString())["price_per_gpu_hour_usd"].get<double>(), 1000.5);
    }

    // The nets under every subcommand's output: a non-finite figure is refused however it was reached.
    void nonFiniteResultsAreRefused()
    {
        using mfu::cli::nonFiniteFigure;
        using mfu::cli::nonFiniteKey;
        QVERIFY(nonFiniteFigure("  Cost             $inf\n"));
        QVERIFY(nonFiniteFigure("MFU NaN% of peak"));
        QVERIFY(nonFiniteFigure("step 1.0 s, total inf s"));
        QVERIFY(nonFiniteFigure("x,-nan,3\n"));
        QVERIFY(!nonFiniteFigure("kernel nan_to_num_kernel, /data/inf/trace.json, information, infinite"));
        const nlohmann::json j = { { "a", 1.0 }, { "fixed", { { "cost", std::numeric_limits<double>::infinity() } } } };
        QCOMPARE(nonFiniteKey(j).value_or(""), std::string("fixed.cost"));
        QVERIFY(!nonFiniteKey(nlohmann::json { { "a", nullptr }, { "b", { 1.0, 2.0 } } }));
    }
};

QTEST_GUILESS_MAIN(TestCliNumericFlags)
#include "tst_cli_numeric_flags.moc"
