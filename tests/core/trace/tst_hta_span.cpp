// `--span hta` reproduces Holistic Trace Analysis's idle and communication-computation overlap on the real traces
// in ../shared/traces (skipped when absent). HTA's own figures (HTA 0.6.1, default options; "ns rounding off" =
// HTA_DISABLE_NS_ROUNDING=1, which keeps fractional microseconds as this reader does) are in that folder's
// README.md; the test asks for agreement within 0.5 percentage point.
#include <QDir>
#include <QtTest>

#include "core/trace/analysis.h"
#include "core/trace/trace_loader.h"

using namespace mfu::trace;

namespace {

struct Expected {
    const char* file;
    double idlePercent;
    double overlapPercent; // < 0: no communication in the trace
};

// HTA with ns rounding off (it equals the default for the two sampled ranks, whose timestamps are whole us).
const Expected kHta[] = {
    { "hta__nccl_parser_config__nccl_data.json.gz", 77.23, 14.76 },
    { "hta__trace_filter__sampled_rank-0.json.gz", 53.56, 11.81 },
    { "hta__trace_filter__sampled_rank-1.json.gz", 54.72, 20.05 },
    { "tracelens__h100__qwen1.5-0.5b-chat.json.gz", 8.07, -1 },
};

} // namespace

class TestHtaSpan : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
    }

    void reproducesHta_data()
    {
        QTest::addColumn<int>("index");
        for (int i = 0; i < static_cast<int>(std::size(kHta)); ++i)
            QTest::newRow(kHta[i].file) << i;
    }

    void reproducesHta()
    {
        QFETCH(int, index);
        const Expected& e = kHta[index];
        const KernelRules rules = KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
        AnalysisOptions hta;
        hta.span = SpanDefinition::Hta;
        Timeline t = loadTrace(std::string(MFU_SHARED_TRACES_DIR) + "/" + e.file);
        const RankAnalysis r = analyzeRank(t, rules, hta);
        const double idle = 100.0 * r.total.share(r.total.idleNs());
        const double overlap = 100.0 * r.total.commOverlapFraction();
        qInfo("%s: idle %.2f%% (HTA %.2f), overlap %.2f%% (HTA %.2f)", e.file, idle, e.idlePercent, overlap,
            e.overlapPercent);
        QVERIFY2(std::abs(idle - e.idlePercent) <= 0.5, qPrintable(QString::number(idle)));
        if (e.overlapPercent >= 0)
            QVERIFY2(std::abs(overlap - e.overlapPercent) <= 0.5, qPrintable(QString::number(overlap)));
        else
            QCOMPARE(r.total.commNs, int64_t(0));
        // the default span (the kept steps' windows) is a different figure on traces with work before the first step
        Timeline again = loadTrace(std::string(MFU_SHARED_TRACES_DIR) + "/" + e.file);
        const RankAnalysis steps = analyzeRank(again, rules);
        qInfo("  default span: idle %.2f%%, overlap %.2f%%", 100.0 * steps.total.share(steps.total.idleNs()),
            100.0 * steps.total.commOverlapFraction());
    }
};

QTEST_GUILESS_MAIN(TestHtaSpan)
#include "tst_hta_span.moc"
