// Where the window's cold start goes: loading the binary and its libraries (a process that only prints its version,
// against /bin/true in the same run), constructing QApplication, reading the shipped presets, building the main
// window, and showing it until its first frame is painted. Goal (issue "A window that never freezes"): under 0.3 s
// from launch to the first frame.
//
// Runs offscreen (QT_QPA_PLATFORM=offscreen is set when no platform is given); the in-process phases are measured
// once, as a launch would see them, after the process phases have warmed the page cache. Usage:
//   bench_window_startup [launches]     default 10 launches of each process
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QProcess>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/main_window.h"
#include "app/preset_store.h"

using namespace mfu;

namespace {

// Median wall time of starting a program and waiting for it to exit, in milliseconds.
double medianLaunchMs(const QString& program, const QStringList& args, int launches)
{
    std::vector<double> ms;
    for (int i = 0; i < launches; ++i) {
        QProcess p;
        QElapsedTimer t;
        t.start();
        p.start(program, args);
        if (!p.waitForFinished(30000) || p.exitCode() != 0) {
            std::fprintf(stderr, "bench_window_startup: %s did not run\n", qPrintable(program));
            return -1;
        }
        ms.push_back(t.nsecsElapsed() / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// Sets a flag at the window's first paint.
class FirstPaint : public QObject {
public:
    bool painted = false;

protected:
    bool eventFilter(QObject* watched, QEvent* e) override
    {
        if (e->type() == QEvent::Paint)
            painted = true;
        return QObject::eventFilter(watched, e);
    }
};

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    const int launches = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;

    QElapsedTimer phase;
    phase.start();
    QApplication app(argc, argv);
    const double appMs = phase.nsecsElapsed() / 1e6;

    const double trueMs = medianLaunchMs(QStringLiteral("/bin/true"), {}, launches);
    const double versionMs = medianLaunchMs(QStringLiteral(MFU_CLI_BINARY), { QStringLiteral("--version") }, launches);

    phase.restart();
    const auto& presets = app::presetLibrary();
    const double presetsMs = phase.nsecsElapsed() / 1e6;

    phase.restart();
    app::MainWindow w;
    const double constructMs = phase.nsecsElapsed() / 1e6;

    FirstPaint paint;
    w.installEventFilter(&paint);
    phase.restart();
    w.show();
    while (!paint.painted && phase.elapsed() < 10000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    const double showMs = phase.nsecsElapsed() / 1e6;

    const double loadMs = std::max(0.0, versionMs - trueMs);
    std::printf(
        "window cold start, %zu model presets, %d launches per process (median)\n", presets.models().size(), launches);
    std::printf("  %-46s %8.1f ms\n", "baseline: start and exit /bin/true", trueMs);
    std::printf("  %-46s %8.1f ms\n", "load mfu-explorer and its libraries (--version)", loadMs);
    std::printf("  %-46s %8.1f ms\n", "construct QApplication", appMs);
    std::printf("  %-46s %8.1f ms\n", "read the shipped presets", presetsMs);
    std::printf("  %-46s %8.1f ms\n", "construct the main window", constructMs);
    std::printf("  %-46s %8.1f ms\n", "show it until the first frame is painted", showMs);
    std::printf("  %-46s %8.1f ms   (goal 300 ms)\n", "launch to first frame",
        loadMs + appMs + presetsMs + constructMs + showMs);
    return 0;
}
