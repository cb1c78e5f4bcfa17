// ChartView: every export format writes a real, readable file; a failed save returns false with a reason; the CSV
// holds exactly the plotted numbers; the hover read-out names the series and the units.
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QXmlStreamReader>
#include <QtTest>

#include <qcustomplot.h>

#include "file_size_limit.h"
#include "widgets/charts/chart_view.h"

using mfu::widgets::ChartView;

class TestChartView : public QObject {
    Q_OBJECT

private:
    static void fillSequenceChart(ChartView& chart)
    {
        chart.setTitle(QStringLiteral("Training FLOP per token"));
        chart.setXAxis(QStringLiteral("Sequence length"), QStringLiteral("tokens"));
        chart.setYAxis(QStringLiteral("FLOP per token"), QStringLiteral("GFLOP/token"));
        chart.setLogX(true, 2);
        chart.addLine(QStringLiteral("6N"), { 1024, 8192, 131072 }, { 48.18, 48.18, 48.18 });
        chart.addLine(QStringLiteral("PaLM"), { 1024, 8192, 131072 }, { 45.92, 57.93, 251.2 });
        chart.addScatter(QStringLiteral("Measured"), { 8192 }, { 0.1 + 0.2 });
        chart.addMisfits(QStringLiteral("Does not fit"), { 32768 }, { 100.5 });
        chart.rescale();
    }

private slots:
    void exportsEachFormat_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::newRow("png") << QStringLiteral("chart.png");
        QTest::newRow("svg") << QStringLiteral("chart.svg");
        QTest::newRow("pdf") << QStringLiteral("chart.pdf");
        QTest::newRow("csv") << QStringLiteral("chart.csv");
    }

    void exportsEachFormat()
    {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // MFU_KEEP_TEST_OUTPUT=1 keeps the files to look at them.
        dir.setAutoRemove(qEnvironmentVariableIsEmpty("MFU_KEEP_TEST_OUTPUT"));
        if (!dir.autoRemove())
            qInfo("exports kept in %s", qPrintable(dir.path()));
        ChartView chart;
        fillSequenceChart(chart);
        const QString path = dir.filePath(fileName);
        QVERIFY2(chart.exportTo(path), qPrintable(chart.lastError()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();

        if (fileName.endsWith(QLatin1String(".png"))) {
            const QImage image = QImage::fromData(bytes, "PNG");
            QVERIFY(!image.isNull());
            QCOMPARE(image.size(), chart.exportSize() * 2); // default scale 2 for print quality
        } else if (fileName.endsWith(QLatin1String(".svg"))) {
            QXmlStreamReader xml(bytes);
            QString rootName;
            while (!xml.atEnd()) {
                xml.readNext();
                if (xml.isStartElement() && rootName.isEmpty())
                    rootName = xml.name().toString();
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QCOMPARE(rootName, QStringLiteral("svg"));
            QVERIFY(bytes.contains("Training FLOP per token"));
            QVERIFY(bytes.contains("Sequence length (tokens)")); // axis label as real text, not a pixmap
        } else if (fileName.endsWith(QLatin1String(".pdf"))) {
            QVERIFY(bytes.startsWith("%PDF"));
            QVERIFY2(bytes.size() > 2000, qPrintable(QString::number(bytes.size())));
            QVERIFY(bytes.contains("%%EOF"));
        } else {
            const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            QCOMPARE(lines.value(0),
                QStringLiteral("Sequence length (tokens),6N (GFLOP/token),PaLM (GFLOP/token),Measured (GFLOP/token),"
                               "Does not fit (GFLOP/token)"));
            QCOMPARE(lines.size(), 1 + 4); // union of x: 1024, 8192, 32768, 131072
            QCOMPARE(lines[1], QStringLiteral("1024,48.18,45.92,,"));
            QCOMPARE(lines[2], QStringLiteral("8192,48.18,57.93,0.30000000000000004,")); // exact, not rounded
            QCOMPARE(lines[3], QStringLiteral("32768,,,,100.5"));
            QCOMPARE(lines[4], QStringLiteral("131072,48.18,251.2,,"));
        }
    }

    void failedSaveReturnsFalse_data()
    {
        QTest::addColumn<QString>("fileName");
        for (const char* suffix : { "png", "svg", "pdf", "csv" })
            QTest::newRow(suffix) << QStringLiteral("chart.") + QLatin1String(suffix);
    }

    void failedSaveReturnsFalse()
    {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        ChartView chart;
        fillSequenceChart(chart);
        const QString missing = dir.filePath(QStringLiteral("no/such/folder/") + fileName);
        QVERIFY(!chart.exportTo(missing));
        QVERIFY(!chart.lastError().isEmpty());
        QVERIFY(!QFile::exists(missing));
    }

    void failedSaveIntoReadOnlyFolderReturnsFalse_data() { failedSaveReturnsFalse_data(); }

    void failedSaveIntoReadOnlyFolderReturnsFalse()
    {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        ChartView chart;
        fillSequenceChart(chart);
        QDir(dir.path()).mkdir(QStringLiteral("locked"));
        const QString lockedDir = dir.filePath(QStringLiteral("locked"));
        QFile::setPermissions(lockedDir, QFile::ReadOwner | QFile::ExeOwner);
        if (QFileInfo(lockedDir).isWritable())
            QSKIP("running as a user who can write into read-only folders (root)");
        QVERIFY(!chart.exportTo(lockedDir + QLatin1Char('/') + fileName));
        QVERIFY(!chart.lastError().isEmpty());
        QFile::setPermissions(lockedDir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    void writeFailurePartwayKeepsPreviousFile_data() { failedSaveReturnsFalse_data(); }

    void writeFailurePartwayKeepsPreviousFile()
    {
        // The disk fills while the export is written (here: a 64-byte file size limit, which every format's
        // output exceeds): the export fails with the system's reason and the previous file is left as it was.
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        ChartView chart;
        fillSequenceChart(chart);
        const QString path = dir.filePath(fileName);
        const QByteArray previous = "the previous export";
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(previous);
        }
        bool exported = true;
        {
            const mfu::test::FileSizeLimit limit(64);
            QVERIFY(limit.active());
            exported = chart.exportTo(path);
        }
        QVERIFY(!exported);
        QVERIFY2(chart.lastError().contains(path) && chart.lastError().contains(QStringLiteral("File too large")),
            qPrintable(chart.lastError()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), previous);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList { fileName }); // no temporary left behind
    }

    void unknownSuffixIsRefused()
    {
        ChartView chart;
        QVERIFY(!chart.exportTo(QStringLiteral("chart.bmpx")));
        QVERIFY(chart.lastError().contains(QStringLiteral("bmpx")));
    }

    void stackedBarsCsvAndCategories()
    {
        ChartView chart;
        chart.setTitle(QStringLiteral("Forward FLOP per token by component"));
        chart.setXAxis(QStringLiteral("Formula"), QString());
        chart.setYAxis(QStringLiteral("FLOP per token"), QStringLiteral("GFLOP/token"));
        chart.setCategories({ QStringLiteral("S=8k"), QStringLiteral("S=32k") });
        const int ffn = chart.addBars(QStringLiteral("FFN"), { 0, 1 }, { 10, 10 });
        chart.addBars(QStringLiteral("Attention, core"), { 0, 1 }, { 2, 8 }, ffn);
        chart.rescale();
        QCOMPARE(chart.data().series[1].stackedOn, ffn);
        auto* top = qobject_cast<QCPBars*>(chart.plot()->plottable(1));
        QVERIFY(top);
        QCOMPARE(top->barBelow(), qobject_cast<QCPBars*>(chart.plot()->plottable(0)));
        const QString csv = mfu::widgets::chartDataToCsv(chart.data());
        QCOMPARE(csv,
            QStringLiteral("Formula,FFN (GFLOP/token),\"Attention, core (GFLOP/token)\"\nS=8k,10,2\nS=32k,10,8\n"));
        QVERIFY(chart.plot()->yAxis->range().upper >= 18); // stacked total fits
    }

    // A log axis read at its points, not at powers of its base: a network sweep's 25 ... 3,200 Gb/s are the ticks,
    // labelled as people write them, and the axis stays logarithmic.
    void ticksAtTheGivenPoints()
    {
        ChartView chart;
        chart.resize(600, 400);
        chart.setLogX(true, 2);
        chart.setXTicksAt({ 25, 400, 3200 });
        chart.addLine(QStringLiteral("MFU"), { 25, 400, 3200 }, { 10, 50, 55 });
        chart.rescale();
        chart.plot()->replot();
        QCOMPARE(chart.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
        const auto ticker = chart.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().keys(), QList<double>({ 25, 400, 3200 }));
        QCOMPARE(ticker->ticks().value(3200), QStringLiteral("3,200"));
    }

    // A chart without series (cleared: the Cost panel with no job) draws no empty legend frame; data brings it back.
    void emptyChartHasNoLegend()
    {
        ChartView chart;
        chart.resize(600, 400);
        chart.plot()->replot();
        QVERIFY(!chart.plot()->legend->visible());
        fillSequenceChart(chart);
        chart.plot()->replot();
        QVERIFY(chart.plot()->legend->visible());
        chart.clearSeries();
        chart.plot()->replot();
        QVERIFY(!chart.plot()->legend->visible());
    }

    // Below a narrow chart the legend takes as many columns as its entries' own widths allow: one long entry and
    // five short ones sit in two columns (three rows), where columns as wide as the longest gave one column of six
    // rows and squeezed the plot at 1280x720.
    void legendBelowFitsColumnsToItsEntries()
    {
        ChartView chart;
        chart.setLegendOutside(true);
        const QVector<double> x { 1, 2 };
        const QVector<double> y { 1, 2 };
        chart.addLine(QStringLiteral("Planner's best (simplest of the ties)"), x, y);
        for (const char* name : { "A", "B", "C", "D", "E" })
            chart.addLine(QString::fromLatin1(name), x, y);
        int widest = 0;
        for (int i = 0; i < chart.plot()->legend->itemCount(); ++i)
            widest = std::max(widest, chart.plot()->legend->item(i)->minimumOuterSizeHint().width());
        // Narrower than the legend on the right needs, wider than two columns of the longest entry.
        chart.layoutLegendFor(QSize(static_cast<int>(1.9 * widest), 400));
        QVERIFY2(chart.plot()->legend->wrap() >= 2, qPrintable(QString::number(chart.plot()->legend->wrap())));
        QVERIFY2(chart.plot()->legend->rowCount() <= 3, qPrintable(QString::number(chart.plot()->legend->rowCount())));
        // Too narrow for two: one column.
        chart.layoutLegendFor(QSize(widest + 30, 400));
        QCOMPARE(chart.plot()->legend->wrap(), 1);
    }

    // An emptied chart that says why shows no scale of nothing: no ticks, numbers or grid, and the reason wrapped
    // in the middle; the first series brings the axes back and hides the reason, as clearAll() does.
    void showEmptySaysWhyInsteadOfAxes()
    {
        ChartView chart;
        chart.resize(600, 400);
        fillSequenceChart(chart);
        const QString why = QStringLiteral("No price per GPU-hour: set one for mi350x to cost the job on it");
        chart.showEmpty(why);
        chart.plot()->replot();
        QVERIFY(chart.data().series.isEmpty());
        QCOMPARE(chart.emptyReason().simplified(), why);
        QVERIFY(chart.emptyReason().contains(QLatin1Char('\n'))); // wrapped for a narrow chart
        for (QCPAxis* axis : { chart.plot()->xAxis, chart.plot()->yAxis }) {
            QVERIFY(!axis->tickLabels());
            QVERIFY(!axis->ticks());
            QVERIFY(!axis->grid()->visible());
            QVERIFY(axis->label().isEmpty());
        }
        fillSequenceChart(chart);
        QVERIFY(chart.emptyReason().isEmpty());
        QVERIFY(chart.plot()->xAxis->tickLabels() && chart.plot()->yAxis->grid()->visible());
        chart.showEmpty(why);
        chart.clearAll();
        QVERIFY(chart.emptyReason().isEmpty());
        QVERIFY(chart.plot()->yAxis->ticks());
    }

    // A tilted category label hangs left of its tick; QCustomPlot drops one that would cross the widget's edge, so the
    // first bar (the Cost panel's cheapest GPU at 1280x720) lost its name and the rest read one bar off. Bars too
    // narrow for 40 degrees stand their names upright, a line's height apart at least.
    void tiltedCategoryLabelsFit()
    {
        ChartView chart;
        chart.resize(420, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QStringList names { QStringLiteral("a100-sxm-80gb (60%)"), QStringLiteral("b200 (39%)"),
            QStringLiteral("gb200 (38%)"), QStringLiteral("b300 (39%)"), QStringLiteral("h200 (52%)"),
            QStringLiteral("gb300 (38%)"), QStringLiteral("h100-pcie (50%)"), QStringLiteral("a800 (60%)") };
        const auto draw = [&chart](const QStringList& categories) {
            QVector<double> x, y;
            for (int i = 0; i < categories.size(); ++i) {
                x << i;
                y << 5 + i;
            }
            chart.clearSeries();
            chart.setCategories(categories);
            chart.setCategoryLabelsTilted(true);
            chart.addBars(QStringLiteral("Cost"), x, y);
            chart.rescale();
            chart.plot()->replot();
            chart.plot()->replot(); // the margin settles on the second layout
        };
        draw(names);
        QCPAxis* x = chart.plot()->xAxis;
        const QFontMetricsF metrics(x->tickLabelFont());
        QVERIFY2(x->tickLabelRotation() == -40.0,
            qPrintable(QStringLiteral("%1 px a category, %2 px a line")
                           .arg(x->coordToPixel(1) - x->coordToPixel(0))
                           .arg(metrics.height())));
        chart.plot()->replot(); // a hover replots: the tilt stays
        QCOMPARE(x->tickLabelRotation(), -40.0);
        const double hang = metrics.horizontalAdvance(names.front()) * std::cos(40 * M_PI / 180);
        QVERIFY2(x->coordToPixel(0) - hang >= 0,
            qPrintable(QStringLiteral("first tick at %1 px, label hangs %2 px").arg(x->coordToPixel(0)).arg(hang)));
        for (int i = 0; i < 12; ++i)
            names << QStringLiteral("gpu-%1 (40%)").arg(i);
        draw(names);
        QCOMPARE(x->tickLabelRotation(), -90.0);
        chart.plot()->replot();
        QCOMPARE(x->tickLabelRotation(), -90.0);
        QVERIFY(x->coordToPixel(1) - x->coordToPixel(0) >= metrics.height() * 0.9);
        // Without tilted categories the margin is QCustomPlot's own again.
        chart.setCategoryLabelsTilted(false);
        chart.plot()->replot();
        QCOMPARE(x->tickLabelRotation(), 0.0);
        QCOMPARE(chart.plot()->axisRect()->minimumMargins().left(), 15);
    }

    // A chart drawn for a file without ever being shown (the report's) fits its tilted names to the size it is drawn
    // at: the report's "Cost of the same job by GPU" had 13 names level and run together.
    void tiltedCategoryLabelsFitAnExportNeverShown()
    {
        ChartView chart;
        QStringList names;
        QVector<double> x, y;
        for (int i = 0; i < 13; ++i) {
            names << QStringLiteral("a100-sxm-80gb-%1 (60%)").arg(i);
            x << i;
            y << 5 + i;
        }
        chart.setCategories(names);
        chart.setCategoryLabelsTilted(true);
        chart.addBars(QStringLiteral("Cost"), x, y);
        QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), 0.0); // no replot yet: nothing has fitted them
        chart.layoutLegendFor(QSize(1120, 616));
        QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), -40.0);
        chart.layoutLegendFor(QSize(260, 300)); // too narrow for 13 names at 40 degrees
        QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), -90.0);
        QTemporaryDir dir;
        QVERIFY(chart.exportPng(dir.filePath(QStringLiteral("by-gpu.png")), 1.0));
    }

    // The wheel over a chart scrolls the page it sits in; only Ctrl+wheel zooms the chart.
    void wheelZoomsOnlyWithControl()
    {
        ChartView chart;
        chart.resize(600, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        fillSequenceChart(chart);
        chart.plot()->replot();
        const QCPRange before = chart.plot()->yAxis->range();
        const QPointF centre(300, 200);
        const auto wheel = [&](Qt::KeyboardModifiers modifiers) {
            QWheelEvent event(centre, chart.plot()->mapToGlobal(centre), QPoint(), QPoint(0, -240), Qt::NoButton,
                modifiers, Qt::NoScrollPhase, false);
            QCoreApplication::sendEvent(chart.plot(), &event);
            return event.isAccepted();
        };
        QVERIFY(!wheel(Qt::NoModifier)); // left for the page around the chart
        QCOMPARE(chart.plot()->yAxis->range().lower, before.lower);
        QCOMPARE(chart.plot()->yAxis->range().upper, before.upper);
        wheel(Qt::ControlModifier);
        QVERIFY(chart.plot()->yAxis->range().size() != before.size());
    }

    void hoverReadoutNamesSeriesAndUnits()
    {
        ChartView chart;
        fillSequenceChart(chart);
        chart.resize(800, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
        const QPointF onPoint(chart.plot()->xAxis->coordToPixel(8192), chart.plot()->yAxis->coordToPixel(57.93));
        const QString text = chart.readoutAt(onPoint);
        QVERIFY2(text.startsWith(QStringLiteral("PaLM\n")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("8,192 tokens")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("57.93 GFLOP/token")), qPrintable(text));
        QVERIFY(chart.readoutAt(QPointF(2, 2)).isEmpty()); // far from every point

        QSignalSpy spy(&chart, &ChartView::hovered);
        QTest::mouseMove(chart.plot(), onPoint.toPoint());
        QTRY_VERIFY(chart.hoverText().startsWith(QStringLiteral("PaLM")));
        QVERIFY(spy.count() >= 1);
    }

    // The hover marker is the screen's: an export made while the mouse rests on a point is the export made without.
    void exportLeavesOutTheHoverMarker()
    {
        ChartView chart;
        fillSequenceChart(chart);
        chart.resize(800, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
        QTemporaryDir dir;
        const QString without = dir.filePath(QStringLiteral("without.png"));
        QVERIFY(chart.exportPng(without, 1.0));
        const QPointF onPoint(chart.plot()->xAxis->coordToPixel(8192), chart.plot()->yAxis->coordToPixel(57.93));
        QTest::mouseMove(chart.plot(), QPoint(3, 3)); // from elsewhere: the cursor may rest there from another test
        QTest::mouseMove(chart.plot(), onPoint.toPoint());
        QTRY_VERIFY(!chart.hoverText().isEmpty());
        const auto tracerShown = [&chart] {
            for (int i = 0; i < chart.plot()->itemCount(); ++i)
                if (auto* tracer = qobject_cast<QCPItemTracer*>(chart.plot()->item(i)))
                    return tracer->visible();
            return false;
        };
        QVERIFY(tracerShown()); // the marker is on screen as the export starts
        const QString with = dir.filePath(QStringLiteral("with.png"));
        QVERIFY(chart.exportPng(with, 1.0));
        QCOMPARE(QImage(with), QImage(without));
        QVERIFY(tracerShown()); // and still on screen after it
    }

    void recoloursOnPaletteChange()
    {
        ChartView chart;
        fillSequenceChart(chart);
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        chart.setPalette(dark);
        QCOMPARE(chart.plot()->xAxis->tickLabelColor(), QColor(0xee, 0xee, 0xee));
        QCOMPARE(chart.plot()->axisRect()->backgroundBrush().color(), QColor(0x20, 0x20, 0x20));
        QCOMPARE(chart.plot()->legend->textColor(), QColor(0xee, 0xee, 0xee));
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        chart.setPalette(light);
        QCOMPARE(chart.plot()->xAxis->labelColor(), QColor(Qt::black));
    }

    // A reference line in the text's colour (a roofline's roof) follows the palette, as the axes do; a series given
    // a fixed colour keeps it.
    void textColouredSeriesFollowsThePalette()
    {
        ChartView chart;
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        chart.setPalette(light);
        const int roof = chart.addLine(QStringLiteral("roof"), { 1, 10 }, { 5, 50 });
        chart.setSeriesInTextColour(roof);
        const int fixed = chart.addLine(QStringLiteral("fixed"), { 1, 10 }, { 2, 20 });
        chart.setSeriesColour(fixed, QColor(0x00, 0x72, 0xb2));
        const auto penOf = [&chart](int i) { return chart.plot()->graph(i)->pen().color(); };
        QCOMPARE(penOf(roof), QColor(Qt::black));
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        chart.setPalette(dark);
        QCOMPARE(penOf(roof), QColor(0xee, 0xee, 0xee));
        QCOMPARE(penOf(fixed), QColor(0x00, 0x72, 0xb2));
    }
};

QTEST_MAIN(TestChartView)
#include "tst_chart_view.moc"
