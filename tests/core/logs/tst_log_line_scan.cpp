// The hand-written log-line scanners (core/logs/log_line_scan.h) find what std::regex_search finds with the
// ECMAScript patterns they replace: every scanner against its regex, on well-formed lines and on the near misses
// (no word boundary, no space, '\r' before the rest, a second occurrence, a sign, a missing suffix).
#include <QtTest>

#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "core/logs/log_line_scan.h"

using namespace mfu::trace::scan;

namespace {

struct Case {
    const char* name;
    const char* regex;
    std::function<std::optional<std::string_view>(std::string_view)> scan;
};

std::function<std::optional<std::string_view>(std::string_view)> field(FieldPattern p)
{
    return [p](std::string_view line) { return findField(line, p); };
}

// The patterns of core/logs/training_log.cpp's built-in formats, each beside the scanner used for it.
const std::vector<Case>& cases()
{
    static const std::vector<Case> all {
        { "torchtitan step", R"(\bstep:\s*(\d+)\b.*\b[tw]ps:)", torchtitanStep },
        { "megatron step", R"(\biteration\s+(\d+)\s*/\s*\d+.*elapsed time per iteration)", megatronStep },
        { "nanogpt step", R"(\biter (\d+): loss [-\d.]+, time [\d.]+ms, mfu)", nanogptStep },
        { "tps", R"(\b[tw]ps:\s*([\d,.]+))", field({ "ps:", true, "tw", true, Chars::Grouped }) },
        { "tflops", R"(\btflops:\s*([\d,.]+))", field({ "tflops:", true, {}, true, Chars::Grouped }) },
        { "mfu:", R"(\bmfu:\s*(-?[\d.]+)%)", field({ "mfu:", true, {}, true, Chars::Decimal, true, "%" }) },
        { "loss:", R"(\bloss:\s*([-\d.eE+]+))", field({ "loss:", true, {}, true, Chars::Exponent }) },
        { "elapsed", R"(elapsed time per iteration \(ms\):\s*([\d.]+))",
            field({ "elapsed time per iteration (ms):", false, {}, true, Chars::Decimal }) },
        { "tflop/s/gpu", R"(throughput per GPU \(TFLOP/s/GPU\):\s*([\d.]+))",
            field({ "throughput per GPU (TFLOP/s/GPU):", false, {}, true, Chars::Decimal }) },
        { "lm loss", R"(lm loss:\s*([-\d.eE+]+))", field({ "lm loss:", false, {}, true, Chars::Exponent }) },
        { ": loss", R"(: loss ([-\d.]+))", field({ ": loss ", false, {}, false, Chars::Signed }) },
        { "time ms", R"(time ([\d.]+)ms)", field({ "time ", false, {}, false, Chars::Decimal, false, "ms" }) },
        { "mfu %", R"(mfu (-?[\d.]+)%)", field({ "mfu ", false, {}, false, Chars::Decimal, true, "%" }) },
    };
    return all;
}

QString shown(const std::optional<std::string>& capture)
{
    return capture ? QString::fromStdString("'" + *capture + "'") : QStringLiteral("no match");
}

} // namespace

class TestLogLineScan : public QObject {
    Q_OBJECT

private slots:
    void scannerFindsWhatTheRegexFinds_data()
    {
        QTest::addColumn<QString>("line");
        const char* lines[] = {
            "[titan] step:  1  loss: 12.2  memory: 3GiB  tps: 1,234  tflops: 12.5  mfu: 3.2%",
            "step:5 wps:1,000 mfu:-100.00%",
            "xstep: 5 tps: 10",
            "step: 5x tps: 10",
            "step: 5 ltps: 1 x_tps: 2",
            "step: 5\r tps: 10",
            "step: 99999999999999999999 tps: 1",
            "step: tps: 1 step: 2 tps: 3",
            "mfu: 12.5 % mfu: 5%, mfu: 6%",
            "loss: +1.2e-3 loss: 2",
            "grad_loss: 1 loss: e",
            " iteration       10/     100 | consumed samples: 1280 | elapsed time per iteration (ms): 1234.5 | "
            "throughput per GPU (TFLOP/s/GPU): 401.2 | global batch size: 128 | lm loss: 5.123456E+00 |",
            "iteration10/100 elapsed time per iteration",
            "iteration 10 / 100 elapsed time per iteration (ms):12",
            "iteration 10/ | iteration 11/100 elapsed time per iteration",
            "the iteration 3/4\relapsed time per iteration",
            "iteration 3/4 | elapsed time per iteration (ms): .",
            "iter 100: loss 3.1234, time 123.45ms, mfu 41.20%",
            "iter 0: loss -1, time 5ms, mfu -100.00%",
            "myiter 1: loss 2, time 3ms, mfu 4%",
            "iter 1: loss 2, time 3 ms, mfu 4%",
            "runtime 5ms time 6ms: loss",
            "lm loss: -1.5E-03 tflops: 1,234.5",
            "",
            "step: 7 tps:",
        };
        for (const char* line : lines)
            QTest::newRow(line) << QString::fromUtf8(line);
    }

    void scannerFindsWhatTheRegexFinds()
    {
        QFETCH(QString, line);
        const std::string text = line.toStdString();
        for (const Case& c : cases()) {
            std::smatch m;
            const std::regex re(c.regex, std::regex::ECMAScript);
            const std::optional<std::string> expected
                = std::regex_search(text, m, re) ? std::optional(m[1].str()) : std::nullopt;
            const auto found = c.scan(text);
            const std::optional<std::string> actual = found ? std::optional(std::string(*found)) : std::nullopt;
            QVERIFY2(actual == expected,
                qPrintable(QStringLiteral("%1: regex %2, scanner %3").arg(c.name, shown(expected), shown(actual))));
        }
    }
};

QTEST_GUILESS_MAIN(TestLogLineScan)
#include "tst_log_line_scan.moc"
