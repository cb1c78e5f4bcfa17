// The report's key figures: each row's text comes from the core function that owns the number, and the seed-001
// money figures appear as the seed states them.
#include <QTest>

#include "core/number_format.h"
#include "core/presets.h"
#include "core/report/report_figures.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

const PresetLibrary& presets()
{
    return test::shippedPresets();
}

// Seed 001's cluster (256 H100, 90 days, $2.50, 40% -> 60%) training Llama 3.1 70B.
ScenarioDocument seed001()
{
    ScenarioDocument d;
    d.scenario.model = *presets().findModel("llama-3.1-70b");
    d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
    d.scenario.cluster.gpuCount = 256;
    d.scenario.workload.seqLen = 8192;
    d.scenario.parallelism.tp = 8;
    d.scenario.pricePerGpuHourUsd = 2.50;
    d.cost.days = 90;
    d.cost.baselineMfu = 0.4;
    d.cost.targetMfu = 0.6;
    return d;
}

const ReportSection* section(const ReportFigures& f, const std::string& titleStart)
{
    for (const auto& s : f.sections)
        if (s.title.rfind(titleStart, 0) == 0)
            return &s;
    return nullptr;
}

const ReportRow* row(const ReportSection* s, const std::string& label)
{
    if (!s)
        return nullptr;
    for (const auto& r : s->rows)
        if (r.label == label)
            return &r;
    return nullptr;
}

bool hasNote(const ReportFigures& f, const std::string& start)
{
    for (const auto& n : f.notes)
        if (n.rfind(start, 0) == 0)
            return true;
    return false;
}

} // namespace

class TestReportFigures : public QObject {
    Q_OBJECT
private slots:
    void seed001Money()
    {
        const ReportFigures f = reportFigures(seed001());
        const ReportRow* cost = row(section(f, "Cost of the job"), "Cost");
        QVERIFY(cost);
        QCOMPARE(cost->value, std::string("$1,382,400"));
        QCOMPARE(row(section(f, "Cost of the job"), "GPU-hours")->value, std::string("552,960"));
        QCOMPARE(row(section(f, "Cost of the job"), "MFU")->note, std::string("given"));
        const ReportSection* savings = section(f, "Savings from 40% to 60% MFU");
        QVERIFY(savings);
        QCOMPARE(row(savings, "Productive GPU-equivalents")->value, std::string("102.4 -> 153.6"));
        QCOMPARE(row(savings, "Recovered (same GPU-hours)")->value, std::string("51.2 GPU-equivalents"));
        QCOMPARE(row(savings, "Recovered (same GPU-hours)")->note, std::string("worth $276,480"));
        QCOMPARE(row(savings, "Time saved (same tokens)")->value, std::string("33.3%"));
        QCOMPARE(row(savings, "Saved (same tokens)")->value, std::string("$460,800"));
    }

    void flopRowsAndPrediction()
    {
        const ScenarioDocument d = seed001();
        const ReportFigures f = reportFigures(d);
        const auto flops = countFlopsPerToken(d.scenario.model, 8192);
        const ReportSection* s = section(f, "FLOP per token");
        QVERIFY(s);
        QCOMPARE(s->rows.size(), size_t(4));
        QCOMPARE(row(s, "six_n")->value, formatGflop(flops.sixN));
        QCOMPARE(row(s, "palm")->value, formatGflop(*flops.palm));
        QVERIFY(row(s, "palm")->note.find("the scenario's MFU formula") != std::string::npos);
        QCOMPARE(row(s, "per_component_causal")->value, formatGflop(*flops.perComponentCausal));
        // A dense 70B on 256 H100 with TP 8: the cost model predicts, and its MFU row matches its own number.
        QVERIFY(f.predicted);
        QCOMPARE(row(section(f, "Predicted"), "MFU")->value, formatPercent(f.predicted->mfu, 1));
        QVERIFY(hasNote(f, "Measured MFU: no measured throughput"));
    }

    void measuredMfu()
    {
        // Tokens/s per GPU chosen so that MFU is exactly 40%: 0.4 x 989e12 / PaLM FLOP per token.
        ScenarioDocument d = seed001();
        const double palm = *countFlopsPerToken(d.scenario.model, 8192).palm;
        d.scenario.measuredThroughput = Throughput { 0.4 * 989e12 / palm, ThroughputScope::PerGpu };
        d.cost.baselineMfu.reset(); // the job is then costed at the measured MFU
        const ReportFigures f = reportFigures(d);
        QVERIFY(f.measured);
        QCOMPARE(f.measured->mfu, 0.4);
        QCOMPARE(row(section(f, "Measured"), "MFU")->value, std::string("40.0%"));
        QCOMPARE(row(section(f, "Measured"), "Achieved")->value, std::string("395.6 TFLOPS per GPU"));
        QCOMPARE(row(section(f, "Cost of the job"), "MFU")->note, std::string("measured"));
        QCOMPARE(row(section(f, "Cost of the job"), "Cost")->value, std::string("$1,382,400"));
    }

    void missingPartsAreNoted()
    {
        ScenarioDocument d;
        d.scenario.model = bareModel(7'000'000'000, "a 7B model");
        d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
        const ReportFigures f = reportFigures(d);
        QVERIFY(!f.predicted);
        QVERIFY(hasNote(f, "Cost model: "));
        QVERIFY(hasNote(f, "Cost: "));
        QVERIFY(!section(f, "Cost of the job"));
        QCOMPARE(section(f, "FLOP per token")->rows.size(), size_t(1)); // a bare model has only 6N
        QCOMPARE(section(f, "FLOP per token")->rows[0].value, std::string("42.00 GFLOP"));
    }

    void parallelismText()
    {
        Parallelism p;
        p.tp = 8;
        p.pp = 4;
        p.virtualStages = 2;
        p.schedule = PipelineSchedule::Interleaved1F1B;
        QCOMPARE(parallelismSummary(p),
            std::string("TP 8 (SP) x PP 4 (interleaved 1F1B, 2 virtual) x CP 1, EP 1, HSDP replicas 1"));
    }
};

QTEST_GUILESS_MAIN(TestReportFigures)
#include "tst_report_figures.moc"
