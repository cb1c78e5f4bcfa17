// StatusActivity: the status bar shows a panel's background work (after a short delay, so the millisecond reruns of
// the sweeps never flash), follows its progress, cancels it with its own button, and hides when it ends. In the main
// window it watches the Trace panel's imports and the Predict panel's sweeps and planner.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QtTest>

#include "app/main_window.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/status_activity.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/trace/trace_panel.h"

using mfu::widgets::Activity;
using mfu::widgets::StatusActivity;

class TestStatusActivity : public QObject {
    Q_OBJECT

private slots:
    void showsFollowsCancelsAndHides()
    {
        int cancels = 0;
        Activity import([&cancels] { ++cancels; });
        QWidget bar; // stands for the status bar: the indicator hides itself inside a shown parent
        StatusActivity& status = *new StatusActivity(&bar);
        status.setShowDelay(50);
        status.watch(&import);
        bar.show();
        QVERIFY(!status.isVisible());

        import.update(QStringLiteral("Importing the trace"), true, 0.25);
        QVERIFY(!status.isVisible()); // not before the delay
        QTRY_VERIFY(status.isVisible());
        QCOMPARE(status.shown(), &import);
        QCOMPARE(status.progressBar()->value(), 250);
        QVERIFY(status.findChild<QLabel*>()->text().contains(QStringLiteral("Importing the trace")));

        import.update(QStringLiteral("Importing the trace"), true, 0.75);
        QCOMPARE(status.progressBar()->value(), 750); // at once, once shown

        QTest::mouseClick(status.cancelButton(), Qt::LeftButton);
        QCOMPARE(cancels, 1);
        import.update(QStringLiteral("Importing the trace"), false, 0.75);
        QVERIFY(!status.isVisible());
        QCOMPARE(status.shown(), nullptr);
        QTest::mouseClick(status.cancelButton(), Qt::LeftButton); // nothing left to cancel
        QCOMPARE(cancels, 1);
    }

    void briefWorkNeverShows()
    {
        Activity sweeps([] {});
        QWidget bar;
        StatusActivity& status = *new StatusActivity(&bar);
        status.setShowDelay(100);
        status.watch(&sweeps);
        bar.show();
        sweeps.update(QStringLiteral("Sweeps and planner"), true, 0.0);
        sweeps.update(QStringLiteral("Sweeps and planner"), false, 1.0);
        QTest::qWait(200);
        QVERIFY(!status.isVisible());
    }

    void showsTheNextBusyActivityWhenOneEnds()
    {
        Activity first([] {});
        Activity second([] {});
        QWidget bar;
        StatusActivity& status = *new StatusActivity(&bar);
        status.setShowDelay(0);
        status.watch(&first);
        status.watch(&second);
        bar.show();
        first.update(QStringLiteral("Importing the trace"), true, 0.1);
        second.update(QStringLiteral("Sweeps and planner"), true, 0.5);
        QTRY_COMPARE(status.shown(), &first);
        first.update(QStringLiteral("Importing the trace"), false, 1.0);
        QCOMPARE(status.shown(), &second);
        QCOMPARE(status.progressBar()->value(), 500);
    }

    void mainWindowWatchesThePanels()
    {
        mfu::app::MainWindow window;
        auto* status = window.statusBar()->findChild<StatusActivity*>(QStringLiteral("statusActivity"));
        QVERIFY(status);
        status->setShowDelay(0);
        auto* trace = window.findChild<mfu::widgets::TracePanel*>();
        auto* predict = window.findChild<mfu::widgets::PredictPanel*>();
        QVERIFY(trace && predict);
        // The default scenario's first sweeps: seconds under the sanitizers on a busy machine (5 s was too few once).
        QTRY_VERIFY_WITH_TIMEOUT(!predict->isComputing(), 60000);
        window.resize(1400, 900);
        window.show();
        trace->activity()->update(QStringLiteral("Importing the trace"), true, 0.5);
        QTRY_COMPARE(status->shown(), trace->activity());
        QVERIFY(status->isVisible());
        if (const QString folder = qEnvironmentVariable("MFU_SCREENSHOT_DIR"); !folder.isEmpty())
            window.grab().save(folder + QStringLiteral("/status_bar_activity.png"));
        trace->activity()->update(QStringLiteral("Importing the trace"), false, 1.0);
        predict->activity()->update(QStringLiteral("Sweeps and planner"), true, 0.2);
        QTRY_COMPARE(status->shown(), predict->activity());
    }
};

QTEST_MAIN(TestStatusActivity)
#include "tst_status_activity.moc"
