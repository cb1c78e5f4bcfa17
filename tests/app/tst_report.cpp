// `mfu-explorer report`: renders a scenario's PDF and HTML page offscreen through the real binary; the pages are
// checked with poppler (pdfinfo, pdftotext, pdftoppm) when it is installed.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "app/preset_store.h"
#include "app/report/report_charts.h"
#include "app/report/report_writer.h"
#include "app/scenario_io.h"
#include "core/trace/builtin_kernel_rules.h"
#include "file_size_limit.h"
#include "trace_test_support.h"
#include "widgets/predict/predict_charts.h"

using namespace mfu;

namespace {

struct Run {
    int status = -1;
    QString out;
    QString err;
};

Run run(const QString& program, const QStringList& args)
{
    QProcess p;
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

Run cli(const QStringList& args)
{
    return run(QStringLiteral(MFU_CLI_BINARY), args);
}

Run report(const QStringList& args)
{
    return run(QStringLiteral(MFU_CLI_BINARY), QStringList { QStringLiteral("report") } + args);
}

// The VECTOR Labs cost article's job: 256 H100 at $2.50 for 90 days, 40% -> 60%, training Llama 3.1 70B (TP 8).
ScenarioDocument vectorLabsJob()
{
    ScenarioDocument d;
    d.scenario.model = *app::presetLibrary().findModel("llama-3.1-70b");
    d.scenario.cluster.hardware = *app::presetLibrary().findHardware("h100-sxm");
    d.scenario.cluster.gpuCount = 256;
    d.scenario.parallelism.tp = 8;
    d.scenario.pricePerGpuHourUsd = 2.50;
    d.scenario.cost.days = 90;
    d.scenario.cost.baselineMfu = 0.4;
    d.scenario.cost.targetMfu = 0.6;
    d.tracePaths = { "traces/rank0.json.gz" }; // not there: the report says so
    return d;
}

// The report's figures without the planner and its sweeps, which are most of a report's time (ten times longer
// under the sanitizers): for the tests of how a report is written, which do not depend on what the figures say.
ReportFigures figuresWithoutPlanner(const ScenarioDocument& doc)
{
    ReportOptions options;
    options.traceRules = &trace::builtInKernelRules();
    options.knownHardware = app::presetLibrary().hardware();
    return reportFigures(doc, options);
}

// One 1.2 s step of a Kineto trace: a GEMM over [0, 0.72) s and an all-reduce over [0.48, 0.96) s on another
// stream, idle after; about the VECTOR Labs job's step at 40% MFU (256 x 8,192 tokens of a 70B).
void writeStepTrace(const std::string& path)
{
    using namespace trace_test;
    std::ofstream(path) << traceOf({ annotation("ProfilerStep#1", "0", "1200000", true),
        kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "0", "720000"),
        kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "480000", "480000", 20) });
}

// Share of pixels that are not near-white: a blank page renders as ~0.
double inkShare(const QImage& image)
{
    qint64 ink = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qGray(image.pixel(x, y)) < 200)
                ++ink;
    return double(ink) / (double(image.width()) * image.height());
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // To look at the pages: MFU_KEEP_TEST_OUTPUT=1 keeps the folder and prints where it is.
        if (qEnvironmentVariableIsSet("MFU_KEEP_TEST_OUTPUT")) {
            m_dir.setAutoRemove(false);
            qInfo("report test output kept in %s", qPrintable(m_dir.path()));
        }
    }

    void pdfAndHtml()
    {
        const QString scenario = m_dir.filePath(QStringLiteral("vector_labs_job.json"));
        ScenarioDocument doc = vectorLabsJob();
        const std::string trace = m_dir.filePath(QStringLiteral("rank0.json")).toStdString();
        writeStepTrace(trace);
        doc.tracePaths.push_back(trace);
        QString error;
        QVERIFY2(app::saveScenarioFile(scenario, doc, &error), qPrintable(error));
        const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
        const QString html = m_dir.filePath(QStringLiteral("report.html"));
        const Run r = report({ QStringLiteral("--scenario"), scenario, QStringLiteral("--out"), pdf,
            QStringLiteral("--html"), html, QStringLiteral("--json") });
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const auto j = nlohmann::json::parse(r.out.toStdString());
        const int pages = j.at("pages").get<int>();
        QVERIFY2(pages >= 3, qPrintable(r.out));
        // Charts: FLOP/token, step time, memory, cost and days vs MFU, savings, cost and days by GPU, the Predict
        // panel's sweeps over sequence length, GPU count and the network (256 H100 cross NVLink domains), the trace
        // and its critical path (no roofline: this trace records no shapes).
        const auto& charts = j.at("charts");
        QCOMPARE(charts.size(), size_t(13));
        QCOMPARE(charts[12].get<std::string>(), std::string("trace_critical_path"));
        QCOMPARE(charts[3].get<std::string>(), std::string("cost_vs_mfu"));
        QCOMPARE(charts[8].get<std::string>(), std::string("mfu_vs_sequence_length"));
        QCOMPARE(charts[9].get<std::string>(), std::string("mfu_vs_gpu_count"));
        QCOMPARE(charts[10].get<std::string>(), std::string("mfu_vs_network"));
        QCOMPARE(charts[11].get<std::string>(), std::string("trace_breakdown"));

        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.read(5) == "%PDF-");

        // The HTML page names every chart PNG, and each PNG is beside it and is a real image.
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(page.readAll());
        QVERIFY(text.contains(QStringLiteral("$1,382,400")));
        QVERIFY(text.contains(QStringLiteral("51.2 GPU-equivalents")));
        QVERIFY(text.contains(QStringLiteral("<h2>Planner&#39;s best configuration</h2>"))
            || text.contains(QStringLiteral("<h2>Planner's best configuration</h2>")));
        QVERIFY(text.contains(QStringLiteral("<h2>Trace breakdown</h2>")));
        // The scenario as the command line states it, to rerun or change it there.
        QVERIFY2(text.contains(QStringLiteral("mfu-explorer predict --model ")), qPrintable(text.left(4000)));
        for (const auto& stem : charts) {
            const QString rel
                = QStringLiteral("report_files/%1.png").arg(QString::fromStdString(stem.get<std::string>()));
            QVERIFY2(text.contains(QStringLiteral("src=\"") + rel + QLatin1Char('"')), qPrintable(rel));
            const QImage image(m_dir.filePath(rel));
            QVERIFY2(!image.isNull() && image.width() >= 800, qPrintable(rel));
            QVERIFY2(inkShare(image) > 0.005, qPrintable(rel)); // something is drawn
        }
        m_pdf = pdf;
        m_pages = pages;
    }

    // Every sweep series the report draws equals what `sweep --json` prints for the same scenario file: the
    // scenario's configuration (fitting, not fitting, cannot be laid out), its error band, the planner's best and
    // the points where the planner found nothing. The report once ran its sweeps without the planner and drew
    // "no layout fits" at every point while `sweep` and the window drew the planner's line.
    void sweepSeriesEqualSweepJson()
    {
        const QString scenario = m_dir.filePath(QStringLiteral("sweep_job.json"));
        ScenarioDocument doc = vectorLabsJob();
        doc.tracePaths.clear();
        QString error;
        QVERIFY2(app::saveScenarioFile(scenario, doc, &error), qPrintable(error));
        const ReportFigures figures = app::reportFiguresFor(doc, app::presetLibrary());
        const auto charts = app::buildReportCharts(doc, figures, app::presetLibrary());
        int compared = 0;
        for (const auto& [stem, axis] : { std::pair { "mfu_vs_sequence_length", "seq" }, { "mfu_vs_gpu_count", "gpus" },
                 { "mfu_vs_network", "network" } }) {
            const auto chart = std::find_if(charts.begin(), charts.end(),
                [stem = stem](const app::ReportChart& c) { return c.stem == QLatin1String(stem); });
            QVERIFY2(chart != charts.end(), stem);
            const Run r = cli({ QStringLiteral("sweep"), QStringLiteral("--scenario"), scenario,
                QStringLiteral("--axis"), QLatin1String(axis), QStringLiteral("--json") });
            QVERIFY2(r.status == 0, qPrintable(r.err));
            const auto points = nlohmann::json::parse(r.out.toStdString()).at("points");
            // The series `sweep --json` describes, in the chart's units (MFU in %, 0 for points drawn at 0).
            std::map<QString, std::vector<std::pair<double, double>>> expected;
            for (const auto& p : points) {
                const double x = p.at("x").get<double>();
                const auto& cur = p.at("current");
                if (cur.contains("invalid")) {
                    expected[widgets::series::kCurrentInvalid].push_back({ x, 0.0 });
                } else if (cur.at("fits").get<bool>()) {
                    expected[widgets::series::kCurrent].push_back({ x, 100 * cur.at("mfu").get<double>() });
                    if (cur.contains("mfu_low")) {
                        expected[widgets::series::kBandLow].push_back({ x, 100 * cur.at("mfu_low").get<double>() });
                        expected[widgets::series::kBandHigh].push_back({ x, 100 * cur.at("mfu_high").get<double>() });
                    }
                } else {
                    expected[widgets::series::kCurrentMisfit].push_back({ x, 0.0 }); // no MFU: marked at 0
                }
                if (!p.at("best").is_null())
                    expected[widgets::series::kBest].push_back({ x, 100 * p.at("best").at("mfu").get<double>() });
                else
                    expected[widgets::series::kBestNone].push_back({ x, 0.0 });
            }
            QVERIFY2(!expected[widgets::series::kBest].empty(), "the planner finds a layout at some point");
            std::map<QString, std::vector<std::pair<double, double>>> drawn;
            for (const auto& series : chart->view->data().series) {
                if (series.name == QLatin1String(widgets::series::kMeasured)
                    || series.name.startsWith(QStringLiteral("This scenario")))
                    continue; // the user's measurements and the scenario's own star: not sweep points
                auto& xy = drawn[series.name];
                for (int i = 0; i < series.x.size(); ++i)
                    xy.push_back({ series.x[i], series.y[i] });
            }
            for (auto& [name, xy] : expected)
                std::sort(xy.begin(), xy.end());
            QCOMPARE(drawn.size(), expected.size());
            for (const auto& [name, xy] : expected) {
                QVERIFY2(drawn.count(name), qPrintable(QStringLiteral("%1: %2 not drawn").arg(stem, name)));
                const auto& got = drawn.at(name);
                QCOMPARE(got.size(), xy.size());
                for (size_t i = 0; i < xy.size(); ++i) {
                    QCOMPARE(got[i].first, xy[i].first);
                    QVERIFY2(std::abs(got[i].second - xy[i].second) <= 1e-9 * std::max(1.0, std::abs(xy[i].second)),
                        qPrintable(QStringLiteral("%1, %2 at %3: %4 drawn, %5 in sweep --json")
                                       .arg(stem, name)
                                       .arg(xy[i].first)
                                       .arg(got[i].second)
                                       .arg(xy[i].second)));
                    ++compared;
                }
            }
        }
        QVERIFY(compared > 20);
    }

    // What the report's charts show reads as the rest of the product: the FLOP/token bars carry the formulas' names
    // (never the file format's six_n, palm, per_layer), and every legend lies inside the chart at the size the PDF
    // draws it (A4 less 18 mm margins at 72 dpi, drawn 1.4x and scaled down); placed for the never-shown widget's
    // 640 px, legends ran past the foot of the chart and off the right margin.
    void chartsReadAsTheProductDoes()
    {
        ScenarioDocument doc = vectorLabsJob();
        doc.tracePaths.clear();
        doc.scenario.cost.targetMfu = 0.6;
        const ReportFigures figures = app::reportFiguresFor(doc, app::presetLibrary());
        const auto charts = app::buildReportCharts(doc, figures, app::presetLibrary());
        QVERIFY(charts.size() >= 8);
        const auto flops = std::find_if(charts.begin(), charts.end(),
            [](const app::ReportChart& c) { return c.stem == QLatin1String("flops_per_token"); });
        QVERIFY(flops != charts.end());
        QStringList names;
        for (const FlopFormula f : kAllFlopFormulas)
            if (figures.flopsPerToken.get(f))
                names << QString::fromStdString(std::string(flopFormulaShortName(f)));
        QCOMPARE(flops->view->data().categories, names);
        QVERIFY(!flops->caption.contains(QStringLiteral("six_n")));
        const int pageWidth = qRound((210 - 2 * 18) / 25.4 * 72); // points
        const int chartHeight = pageWidth * 55 / 100; // whole points, as the report writer's chart()
        const QSize drawn(int(pageWidth * 1.4), int(chartHeight * 1.4));
        for (const auto& chart : charts) {
            QCustomPlot* plot = chart.view->plot();
            chart.view->layoutLegendFor(drawn);
            plot->setViewport(QRect(QPoint(0, 0), drawn));
            plot->replot(QCustomPlot::rpImmediateRefresh);
            if (!plot->legend->visible())
                continue;
            // Its border (1 px) inside the chart, off the right and bottom edges where the drawing is cut.
            const QRect legend = plot->legend->outerRect();
            QVERIFY2(QRect(QPoint(0, 0), drawn).adjusted(0, 0, -2, -2).contains(legend),
                qPrintable(QStringLiteral("%1: legend at %2,%3 %4x%5 in %6x%7")
                               .arg(chart.stem)
                               .arg(legend.x())
                               .arg(legend.y())
                               .arg(legend.width())
                               .arg(legend.height())
                               .arg(drawn.width())
                               .arg(drawn.height())));
        }
    }

    // A trace recorded with shapes and a baseline: the report gains the trace's own MFU, its roofline, its critical
    // path and the comparison with the baseline (which the report lacked), each as a section and a chart.
    void traceWorkAndBaseline()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        ScenarioDocument doc = vectorLabsJob();
        doc.tracePaths = { MFU_SHARED_TRACES_DIR "/tracelens__h100__qwen1.5-0.5b-chat.json.gz" };
        const std::string baseline = m_dir.filePath(QStringLiteral("baseline.json")).toStdString();
        writeStepTrace(baseline);
        doc.baselineTracePaths = { baseline };
        const QString scenario = m_dir.filePath(QStringLiteral("with_shapes.json"));
        QString error;
        QVERIFY2(app::saveScenarioFile(scenario, doc, &error), qPrintable(error));
        const QString html = m_dir.filePath(QStringLiteral("shapes.html"));
        const Run r = report(
            { QStringLiteral("--scenario"), scenario, QStringLiteral("--out"), html, QStringLiteral("--json") });
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const auto out = nlohmann::json::parse(r.out.toStdString());
        std::vector<std::string> charts;
        for (const auto& c : out.at("charts"))
            charts.push_back(c.get<std::string>());
        for (const char* stem : { "trace_roofline", "trace_critical_path", "trace_comparison" })
            QVERIFY2(std::find(charts.begin(), charts.end(), stem) != charts.end(), stem);
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(page.readAll());
        for (const char* heading : { "Work from recorded shapes", "Critical path", "Baseline comparison" })
            QVERIFY2(text.contains(QStringLiteral("<h2>%1</h2>").arg(QLatin1String(heading))), heading);
        QVERIFY(text.contains(QStringLiteral("MFU from the trace alone")));
        // Inference recomputes nothing: its trace HFU is its MFU, said as the CLI and the window say it.
        QVERIFY(text.contains(QStringLiteral("HFU from the trace alone")));
        QVERIFY(text.contains(QStringLiteral("the matrix FLOPs the kernels executed (no fused attention backward")));
        // What held the step longest is a sum over stretches, and says how many: never one kernel's "Longest".
        QVERIFY(text.contains(QStringLiteral("Most time on step #")));
        QVERIFY(text.contains(QStringLiteral(" stretches of ")) || text.contains(QStringLiteral(" stretch of ")));
        QVERIFY(text.contains(QStringLiteral("12.35%"))); // over the loop's step, not the GPU window (16.69%)
        QVERIFY(text.contains(QStringLiteral("under the GPU's roofs"))); // the H100 is named: its roofs are drawn
        QVERIFY(text.contains(QStringLiteral("They ran on different GPUs")) || text.contains(QStringLiteral("slower"))
            || text.contains(QStringLiteral("faster")));
    }

    // HTA's sampled recommender traces record no synchronisation: the report's critical path says its host time is
    // only as recorded, and the idle row splits the gaps by what they waited on.
    void sampledTraceHostTimeAsRecorded()
    {
        const QString rank0 = QStringLiteral(MFU_SHARED_TRACES_DIR "/hta__trace_filter__sampled_rank-0.json.gz");
        if (!QFileInfo::exists(rank0))
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        ScenarioDocument doc = vectorLabsJob();
        doc.tracePaths = { rank0.toStdString() };
        const QString scenario = m_dir.filePath(QStringLiteral("sampled.json"));
        QString error;
        QVERIFY2(app::saveScenarioFile(scenario, doc, &error), qPrintable(error));
        const QString html = m_dir.filePath(QStringLiteral("sampled.html"));
        const Run r = report({ QStringLiteral("--scenario"), scenario, QStringLiteral("--out"), html });
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(page.readAll());
        QVERIFY(text.contains(QStringLiteral("Host time on this path is only as recorded")));
        QVERIFY(text.contains(QStringLiteral("waiting on a launch from the host")));
        QVERIFY(text.contains(QStringLiteral("with the next work already launched")));
    }

    void pdfPages()
    {
        if (m_pdf.isEmpty())
            QSKIP("pdfAndHtml did not produce a PDF");
        const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
        if (pdfinfo.isEmpty() || pdftotext.isEmpty() || pdftoppm.isEmpty())
            QSKIP("poppler-utils (pdfinfo, pdftotext, pdftoppm) not installed: PDF pages not checked");

        const Run info = run(pdfinfo, { m_pdf });
        QCOMPARE(info.status, 0);
        QVERIFY2(info.out.contains(QRegularExpression(QStringLiteral("Pages:\\s+%1\\b").arg(m_pages))),
            qPrintable(info.out));
        QVERIFY(info.out.contains(QStringLiteral("A4")));

        const Run text = run(pdftotext, { QStringLiteral("-layout"), m_pdf, QStringLiteral("-") });
        QCOMPARE(text.status, 0);
        for (const char* expected :
            { "MFU report: vector_labs_job", "Llama 3.1 70B", "FLOP per token", "$1,382,400", "552,960",
                "102.4 -> 153.6", "51.2 GPU-equivalents", "worth $276,480", "33.33%", "Cost of the job vs MFU",
                "Predicted step time breakdown", "Cost of the same job by GPU", "Savings from 40.00% to 60.00% MFU",
                "Planner's best", "Trace breakdown", "traces/rank0.json.gz", "no longer exists", "60.00%",
                "overlapped with compute", "Measured MFU", "Step time by kernel category" })
            QVERIFY2(text.out.contains(QString::fromUtf8(expected)), expected);
        // The planner's rows give the current configuration's figure beside the best's.
        QVERIFY2(
            text.out.contains(QRegularExpression(QStringLiteral("now \\d"))), "the current configuration's figure");

        const QString prefix = m_dir.filePath(QStringLiteral("page"));
        QCOMPARE(
            run(pdftoppm, { QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("30"), m_pdf, prefix }).status,
            0);
        const QStringList images
            = QDir(m_dir.path()).entryList({ QStringLiteral("page*.png") }, QDir::Files, QDir::Name);
        QCOMPARE(images.size(), m_pages);
        for (const auto& name : images) {
            const QImage image(m_dir.filePath(name));
            QVERIFY(!image.isNull());
            QVERIFY2(image.height() > image.width(), qPrintable(name)); // portrait
            QVERIFY2(inkShare(image) > 0.01, qPrintable(name)); // no blank pages
        }
    }

    void writeFailurePartwayKeepsPreviousReport()
    {
        // The disk fills while the report is written (a 4 KiB file size limit; the PDF is far larger): the export
        // fails naming the file and the system's reason, and the previous report is left as it was.
        const QString path = m_dir.filePath(QStringLiteral("kept.pdf"));
        const QByteArray previous = "%PDF- the previous report";
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(previous);
        }
        ScenarioDocument document = vectorLabsJob();
        document.tracePaths.clear();
        QString error;
        bool written = true;
        {
            const test::FileSizeLimit limit(4096);
            QVERIFY(limit.active());
            written = app::writeReportPdf(path, QStringLiteral("kept"), document, figuresWithoutPlanner(document),
                app::presetLibrary(), nullptr, &error);
        }
        QVERIFY(!written);
        QVERIFY2(error.contains(path) && error.contains(QStringLiteral("File too large")), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), previous);
        QCOMPARE(QDir(m_dir.path()).entryList({ QStringLiteral("kept*") }, QDir::Files),
            QStringList { QStringLiteral("kept.pdf") });
    }

    // An HTML report is a page and its images: a full disk part-way (the file-size limit, set so the first image
    // fits and a later one does not) keeps the old page with all of its old images, never some of the new
    // scenario's among them.
    void htmlWriteFailurePartwayKeepsEveryOldFile()
    {
        const QString page = m_dir.filePath(QStringLiteral("whole.html"));
        ScenarioDocument document = vectorLabsJob();
        document.tracePaths.clear();
        app::ReportResult first;
        QString error;
        QVERIFY2(app::writeReportHtml(page, QStringLiteral("old"), document, figuresWithoutPlanner(document),
                     app::presetLibrary(), &first, &error),
            qPrintable(error));
        std::map<QString, QByteArray> before;
        for (const QString& file : first.files) {
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            before[file] = f.readAll();
        }
        QVERIFY(first.files.size() >= 3);
        const qint64 firstImage = before[first.files.front()].size();
        qint64 largest = 0;
        for (const auto& [file, bytes] : before)
            largest = std::max<qint64>(largest, bytes.size());
        if (largest <= firstImage + 1024)
            QSKIP("the first image is the largest: no limit lets it through and stops a later one");
        document.scenario.cluster.gpuCount *= 2; // other figures, other images
        const ReportFigures figures = figuresWithoutPlanner(document);
        bool written = true;
        {
            const test::FileSizeLimit limit(static_cast<rlim_t>(firstImage + 1024));
            QVERIFY(limit.active());
            written = app::writeReportHtml(
                page, QStringLiteral("new"), document, figures, app::presetLibrary(), nullptr, &error);
        }
        QVERIFY(!written);
        QVERIFY2(error.contains(QStringLiteral("File too large")), qPrintable(error));
        for (const auto& [file, bytes] : before) {
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(f.readAll() == bytes, qPrintable(file + " was replaced"));
        }
        const QDir images(m_dir.filePath(QStringLiteral("whole_files")));
        QCOMPARE(images.entryList(QDir::Files).size(), qsizetype(before.size() - 1)); // no temporary left
    }

    // --out onto a symbolic link or a device is refused, never replaced by a regular file.
    void outOntoWhatIsNotARegularFileIsRefused()
    {
        const QString scenario = m_dir.filePath(QStringLiteral("vector_labs_job.json"));
        const QString target = m_dir.filePath(QStringLiteral("target.pdf"));
        QFile::remove(target);
        QVERIFY(QFile(target).open(QIODevice::WriteOnly));
        const QString link = m_dir.filePath(QStringLiteral("link.pdf"));
        QFile::remove(link);
        QVERIFY(QFile::link(target, link));
        const Run r = report({ QStringLiteral("--scenario"), scenario, QStringLiteral("--out"), link });
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(QStringLiteral("refusing to replace what is not a regular file (a symbolic link)")),
            qPrintable(r.err));
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(QFileInfo(target).size(), qint64(0));
    }

    void longUnbrokenStringLaysOutPromptly()
    {
        // Qt's layout of a run that must break anywhere is superlinear: a 100,000-character path took minutes. The
        // cut before layout shows as pages (no pages of a's); a hang would meet CTest's time limit.
        ScenarioDocument document = vectorLabsJob();
        document.tracePaths = { "traces/short.json.gz" };
        QString error;
        app::ReportResult plain;
        QVERIFY2(app::writeReportPdf(m_dir.filePath(QStringLiteral("short.pdf")), QStringLiteral("short"), document,
                     figuresWithoutPlanner(document), app::presetLibrary(), &plain, &error),
            qPrintable(error));
        document.tracePaths = { "traces/" + std::string(100000, 'a') + ".json.gz" };
        const ReportFigures figures = figuresWithoutPlanner(document);
        const auto holdsLongPath
            = [](const std::string& text) { return text.find(std::string(1000, 'a')) != std::string::npos; };
        bool shown = std::any_of(figures.notes.begin(), figures.notes.end(), holdsLongPath);
        for (const ReportSection& section : figures.sections)
            for (const ReportRow& row : section.rows)
                shown = shown || holdsLongPath(row.value) || holdsLongPath(row.note);
        QVERIFY(shown); // the report has the path to lay out
        app::ReportResult result;
        QVERIFY2(app::writeReportPdf(m_dir.filePath(QStringLiteral("long.pdf")), QStringLiteral("long"), document,
                     figures, app::presetLibrary(), &result, &error),
            qPrintable(error));
        // The same report with a short missing path: cut, the long one adds a line, not pages of a's.
        QVERIFY2(result.pages <= plain.pages + 1,
            qPrintable(QStringLiteral("%1 pages against %2").arg(result.pages).arg(plain.pages)));
    }

    void htmlOnly()
    {
        const QString scenario = m_dir.filePath(QStringLiteral("vector_labs_job.json"));
        const QString html = m_dir.filePath(QStringLiteral("only.html"));
        const Run r = report({ QStringLiteral("--scenario"), scenario, QStringLiteral("--out"), html });
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(html));
        QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("only_files/cost_vs_mfu.png"))));
    }

    // The text names every file written: the PDF, and the page beside it with the folder of its PNGs.
    void wroteNamesEveryFile()
    {
        const QString pdf = m_dir.filePath(QStringLiteral("v0.pdf"));
        const QString html = m_dir.filePath(QStringLiteral("v0.html"));
        const Run r
            = report({ QStringLiteral("--scenario"), QStringLiteral(MFU_SOURCE_DIR "/tests/data/scenario_v0.json"),
                QStringLiteral("--out"), pdf, QStringLiteral("--html"), html });
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith(QStringLiteral("Wrote ") + pdf + QStringLiteral(" (")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral(" and ") + html + QStringLiteral(" (")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("their PNGs in v0_files")), qPrintable(r.out));
        QVERIFY(QFile::exists(pdf) && QFile::exists(html));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no scenario") << QStringList { QStringLiteral("--out"), QStringLiteral("r.pdf") }
                                     << "--scenario";
        QTest::newRow("no out") << QStringList { QStringLiteral("--scenario"), QStringLiteral("s.json") } << "--out";
        QTest::newRow("missing file") << QStringList { QStringLiteral("--scenario"),
            QStringLiteral("/nonexistent/s.json"), QStringLiteral("--out"), QStringLiteral("r.pdf") }
                                      << "cannot be opened";
        QTest::newRow("unwritable out") << QStringList { QStringLiteral("--scenario"),
            QStringLiteral(MFU_SOURCE_DIR "/tests/data/scenario_v0.json"), QStringLiteral("--out"),
            QStringLiteral("/nonexistent/dir/r.pdf") }
                                        << "Could not write";
        // The format follows the name: a PDF written under r.txt would open as neither.
        QTest::newRow("out neither pdf nor html") << QStringList { QStringLiteral("--scenario"),
            QStringLiteral(MFU_SOURCE_DIR "/tests/data/scenario_v0.json"), QStringLiteral("--out"),
            QStringLiteral("r.txt") } << "end the name with";
        QTest::newRow("html not an html name") << QStringList { QStringLiteral("--scenario"),
            QStringLiteral(MFU_SOURCE_DIR "/tests/data/scenario_v0.json"), QStringLiteral("--out"),
            QStringLiteral("r.pdf"), QStringLiteral("--html"), QStringLiteral("r2.pdf") }
                                               << "--html: 'r2.pdf' is not an HTML page's name";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run r = report(args);
        QVERIFY(r.status != 0);
        const QStringList lines
            = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts).filter(QStringLiteral("mfu-explorer report"));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].startsWith(QStringLiteral("mfu-explorer report: error: ")), qPrintable(r.err));
        QVERIFY2(lines[0].contains(mentions), qPrintable(r.err));
    }

private:
    QTemporaryDir m_dir;
    QString m_pdf;
    int m_pages = 0;
};

QTEST_MAIN(TestReport) // a QApplication: writeReportPdf draws its charts as widgets in-process too
#include "tst_report.moc"
