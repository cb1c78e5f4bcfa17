// Keyboard and accessibility audit of the whole main window: every control that takes keyboard focus has a name a
// screen reader can speak (as Qt's accessibility layer reports it: its own accessibleName, its text, or its buddy
// label), icon-only buttons have tooltips, menu actions use Qt's standard shortcuts where Qt defines one and no two
// share a shortcut, Ctrl+1..5 switch panels, and Tab walks the scenario editor in its visual order.
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QtTest>

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "app/main_window.h"
#include "dark_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_editor.h"
#include "widgets/trace/trace_panel.h"

using mfu::app::MainWindow;

namespace {

// Qt's own parts of composite widgets (a spin box's line edit, a dock's close button, a scroll area's viewport)
// are named by Qt or reached through their owner; the audit is about our controls.
bool isQtInternal(const QWidget* w)
{
    // A widget with a focus proxy never holds focus itself (a QTabWidget hands it to its tab bar); a popup's list
    // (a combo box's drop-down) is spoken through the combo box.
    if (w->objectName().startsWith(QLatin1String("qt_")) || w->focusProxy() || w->window()->windowType() == Qt::Popup)
        return true;
    const QWidget* parent = w->parentWidget();
    return parent
        && (qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QComboBox*>(parent)
            || qobject_cast<const QTabBar*>(parent)); // a tab bar's scroll arrows
}

QString describe(const QWidget* w)
{
    QString path;
    for (const QObject* o = w; o; o = o->parent())
        if (!o->objectName().isEmpty()) {
            path = o->objectName();
            break;
        }
    return QStringLiteral("%1 '%2' (in %3)")
        .arg(QLatin1String(w->metaObject()->className()), w->objectName(), path.isEmpty() ? QStringLiteral("?") : path);
}

QString spokenName(QWidget* w)
{
    QAccessibleInterface* a = QAccessible::queryAccessibleInterface(w);
    return a ? a->text(QAccessible::Name).trimmed() : QString();
}

// WCAG 2 contrast ratio of two colours (1 to 21); 4.5 is the minimum for body text.
double contrast(const QColor& a, const QColor& b)
{
    auto luminance = [](const QColor& c) {
        auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Every piece of chart text (title, axis labels and ticks, legend, text items) against the chart's background.
QStringList illegibleChartText(const MainWindow& w, const QString& panel)
{
    QStringList problems;
    for (auto* chart : w.findChildren<mfu::widgets::ChartView*>()) {
        QCustomPlot* plot = chart->plot();
        const QColor background = chart->palette().color(QPalette::Base);
        auto check = [&](const QString& what, const QColor& color) {
            if (contrast(color, background) < 4.5)
                problems << QStringLiteral("%1 / %2 / %3: %4 on %5 (contrast %6)")
                                .arg(panel, chart->objectName(), what, color.name(), background.name())
                                .arg(contrast(color, background), 0, 'f', 1);
        };
        for (QCPAxis* axis : plot->axisRect()->axes()) {
            check(QStringLiteral("axis label"), axis->labelColor());
            check(QStringLiteral("tick label"), axis->tickLabelColor());
        }
        check(QStringLiteral("legend"), plot->legend->textColor());
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
                check(QStringLiteral("title"), title->textColor());
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)))
                if (text->visible() && text->brush().style() == Qt::NoBrush)
                    check(QStringLiteral("text '%1'").arg(text->text()), text->color());
    }
    return problems;
}

QAction* actionNamed(const MainWindow& w, const QString& text)
{
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
    return nullptr;
}

} // namespace

class TestAccessibility : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_accessibility"));
        QSettings().clear();
    }

    void everyFocusableControlHasAName()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QStringList unnamed, noTooltip;
        int audited = 0;
        for (int tab = 0; tab < w.panels()->count(); ++tab) { // each panel shown once, so lazy parts exist
            w.panels()->setCurrentIndex(tab);
            QCoreApplication::processEvents();
        }
        for (QWidget* c : w.findChildren<QWidget*>()) {
            if (!(c->focusPolicy() & Qt::TabFocus) || isQtInternal(c))
                continue;
            ++audited;
            if (spokenName(c).isEmpty())
                unnamed << describe(c);
            if (auto* button = qobject_cast<QAbstractButton*>(c))
                if (button->text().trimmed().isEmpty() && button->toolTip().isEmpty())
                    noTooltip << describe(c);
        }
        QVERIFY2(audited > 30, "the walk found too few controls to be a walk of the whole window");
        QVERIFY2(unnamed.isEmpty(),
            qPrintable(QStringLiteral("focusable controls without an accessible name:\n  ") + unnamed.join("\n  ")));
        QVERIFY2(noTooltip.isEmpty(),
            qPrintable(QStringLiteral("icon-only buttons without a tooltip:\n  ") + noTooltip.join("\n  ")));
    }

    void abbreviatedLabelsAreSpelledOutOnHover()
    {
        // "TP:", "HSDP replicas:": a field whose label starts with an abbreviation explains it in a tooltip.
        MainWindow w;
        const QRegularExpression abbreviation(QStringLiteral("^[A-Z][A-Z0-9]+\\b"));
        QStringList unexplained;
        int abbreviated = 0;
        for (QLabel* label : w.findChildren<QLabel*>()) {
            const QString text = label->text().remove(QLatin1Char('&'));
            if (!label->buddy() || !abbreviation.match(text).hasMatch() || text.startsWith(QLatin1String("GPU")))
                continue;
            ++abbreviated;
            if (label->buddy()->toolTip().isEmpty() && label->toolTip().isEmpty())
                unexplained << text;
        }
        QVERIFY(abbreviated >= 4); // the parallelism editor's TP, PP, CP, EP at least
        QVERIFY2(unexplained.isEmpty(), qPrintable(unexplained.join(QStringLiteral(", "))));
    }

    void standardShortcuts_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<int>("keyValue"); // a QKeySequence::StandardKey
        QTest::addColumn<QString>("fallback"); // where the platform defines no binding for it
        QTest::newRow("open") << "Open..." << static_cast<int>(QKeySequence::Open) << QStringLiteral("");
        QTest::newRow("save") << "Save Scenario" << static_cast<int>(QKeySequence::Save) << QStringLiteral("");
        QTest::newRow("save as") << "Save Scenario As..." << static_cast<int>(QKeySequence::SaveAs)
                                 << QStringLiteral("Ctrl+Shift+S");
        QTest::newRow("quit") << "Quit" << static_cast<int>(QKeySequence::Quit) << QStringLiteral("Ctrl+Q");
        QTest::newRow("undo") << "Undo" << static_cast<int>(QKeySequence::Undo) << QStringLiteral("");
        QTest::newRow("redo") << "Redo" << static_cast<int>(QKeySequence::Redo) << QStringLiteral("");
        QTest::newRow("help") << "Start Here" << static_cast<int>(QKeySequence::HelpContents) << QStringLiteral("F1");
    }

    void standardShortcuts()
    {
        QFETCH(QString, action);
        QFETCH(int, keyValue);
        const auto key = static_cast<QKeySequence::StandardKey>(keyValue);
        MainWindow w;
        QAction* a = actionNamed(w, action);
        QVERIFY2(a, qPrintable(action));
        QFETCH(QString, fallback);
        QList<QKeySequence> expected = QKeySequence::keyBindings(key); // all of them: Redo is Ctrl+Y and Ctrl+Shift+Z
        if (expected.isEmpty())
            expected = { QKeySequence(fallback) };
        QVERIFY2(!expected.first().isEmpty(), "no standard binding here and no fallback either");
        QCOMPARE(a->shortcuts(), expected);
    }

    void noTwoActionsShareAShortcut()
    {
        MainWindow w;
        QHash<QString, QString> owner;
        QStringList clashes;
        for (QAction* a : w.findChildren<QAction*>())
            for (const QKeySequence& k : a->shortcuts()) {
                const QString keys = k.toString(QKeySequence::PortableText);
                if (owner.contains(keys) && owner[keys] != a->text())
                    clashes << QStringLiteral("%1: %2 and %3").arg(keys, owner[keys], a->text());
                owner[keys] = a->text();
            }
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join(QLatin1Char('\n'))));
    }

    void ctrlDigitSwitchesPanels()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        if (!QTest::qWaitForWindowActive(&w))
            QSKIP("this platform plugin cannot activate windows, so shortcuts cannot be delivered");
        QVERIFY(w.panels()->count() <= 9);
        for (int i = w.panels()->count() - 1; i >= 0; --i) {
            QTest::keySequence(&w, QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
            QCOMPARE(w.panels()->currentIndex(), i);
        }
    }

    void scenarioEditorTabChainFollowsVisualOrder()
    {
        // Walk Tab from the first field; each next field must be on a lower row, or on the same row to the right.
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        mfu::widgets::ScenarioEditor* editor = w.scenarioEditor();
        QList<QWidget*> chain;
        QWidget* first = nullptr;
        for (QWidget* c : editor->findChildren<QWidget*>())
            if ((c->focusPolicy() & Qt::TabFocus) && c->isVisibleTo(editor) && !isQtInternal(c)) {
                first = c;
                break;
            }
        QVERIFY(first);
        // Start from the earliest in the chain: step back until leaving the editor.
        for (QWidget* p = first->previousInFocusChain(); p != first && editor->isAncestorOf(p);
             p = p->previousInFocusChain())
            if ((p->focusPolicy() & Qt::TabFocus) && p->isVisibleTo(editor) && !isQtInternal(p))
                first = p;
        QWidget* c = first;
        do {
            if ((c->focusPolicy() & Qt::TabFocus) && c->isVisibleTo(editor) && !isQtInternal(c)
                && editor->isAncestorOf(c) && !chain.contains(c))
                chain << c;
            c = c->nextInFocusChain();
        } while (c != first && chain.size() < 200);
        int focusable = 0;
        for (QWidget* f : editor->findChildren<QWidget*>())
            if ((f->focusPolicy() & Qt::TabFocus) && f->isVisibleTo(editor) && !isQtInternal(f))
                ++focusable;
        QCOMPARE(chain.size(), focusable); // every field is reachable by Tab
        for (int i = 1; i < chain.size(); ++i) {
            const QRect a(chain[i - 1]->mapTo(editor, QPoint(0, 0)), chain[i - 1]->size());
            const QRect b(chain[i]->mapTo(editor, QPoint(0, 0)), chain[i]->size());
            const bool sameRow = b.center().y() >= a.top() && b.center().y() <= a.bottom();
            const bool inOrder = sameRow ? b.left() > a.left() : b.top() > a.top();
            QVERIFY2(inOrder,
                qPrintable(QStringLiteral("Tab goes from %1 at (%2,%3) to %4 at (%5,%6)")
                               .arg(chain[i - 1]->objectName())
                               .arg(a.left())
                               .arg(a.top())
                               .arg(chain[i]->objectName())
                               .arg(b.left())
                               .arg(b.top())));
        }
    }

    // Both palettes: all chart text stays legible (and MFU_SCREENSHOT_DIR=folder keeps each panel as a PNG).
    void chartsAreLegibleInLightAndDarkPalettes()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // A real trace fills the Trace panel's charts and timeline (without the shared traces they stay empty).
        auto* tracePanel = w.findChild<mfu::widgets::TracePanel*>();
        QVERIFY(tracePanel);
        const QString trace = QStringLiteral(MFU_SHARED_TRACES_DIR "/tracelens__h100__qwen1.5-0.5b-chat.json.gz");
        if (QFileInfo::exists(trace)) {
            QSignalSpy done(tracePanel, &mfu::widgets::TracePanel::imported);
            QVERIFY2(w.openFiles({ trace }), qPrintable(w.lastMessage()));
            QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 30000);
        } else {
            qInfo("%s is absent: the Trace panel is checked empty", qPrintable(trace));
        }
        const QString folder = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        QStringList problems;
        for (const bool dark : { false, true }) {
            QApplication::setPalette(dark ? mfu::test::darkPalette() : QPalette());
            for (int tab = 0; tab < w.panels()->count(); ++tab) {
                w.panels()->setCurrentIndex(tab);
                const bool isTrace = w.panels()->widget(tab) == tracePanel;
                for (int view = 0; view < (isTrace ? tracePanel->views()->count() : 1); ++view) {
                    if (isTrace)
                        tracePanel->views()->setCurrentIndex(view);
                    QTest::qWait(50);
                    for (auto* chart : w.findChildren<mfu::widgets::ChartView*>())
                        chart->plot()->replot();
                    QString panel = w.panels()->tabText(tab);
                    if (isTrace)
                        panel += QLatin1Char(' ') + tracePanel->views()->tabText(view).remove(QLatin1Char('&'));
                    problems << illegibleChartText(w, panel + (dark ? QStringLiteral(" (dark)") : QString()));
                    if (!folder.isEmpty())
                        QVERIFY(
                            w.grab().save(QStringLiteral("%1/panel_%2_%3.png")
                                              .arg(folder, panel.toLower().replace(QLatin1Char(' '), QLatin1Char('_')),
                                                  dark ? QStringLiteral("dark") : QStringLiteral("light"))));
                }
            }
        }
        QApplication::setPalette(QPalette());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
