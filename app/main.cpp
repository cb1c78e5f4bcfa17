// mfu-explorer: with a subcommand it answers on the command line (no window); without one it opens the window.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>

#include <csignal>
#include <cstdio>
#include <memory>

#include "app/application_info.h"
#include "app/cli/cli_common.h"
#include "app/cli/subcommand.h"
#include "app/main_window.h"
#include "app/report/report_subcommand.h"

namespace {

void printTopLevelHelp()
{
    std::printf("Usage: mfu-explorer [FILE...]            open the window (traces, configs, scenarios)\n"
                "       mfu-explorer <subcommand> [options] [--json]\n\nSubcommands:\n");
    for (const auto& s : mfu::cli::subcommands())
        std::printf("  %-10s %s\n", s.name, s.summary);
    std::printf("\nRun 'mfu-explorer <subcommand> --help' for its options.\n"
                "  -h, --help     Show this help\n  -v, --version  Show the version\n");
}

// Where X11 and Wayland are the only displays, none named and no Qt platform chosen means the window cannot open:
// QApplication would abort ("could not connect to display") with a core dump. Over SSH that is a forgotten
// subcommand (`mfu-explorer trace.json.gz`) or a typo with a dot in it (`mfu-explorer calc.`).
bool noDisplayForTheWindow()
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_MACOS)
    return qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
#else
    return false;
#endif
}

int refuseWindowWithoutDisplay(const QString& first)
{
    QString what;
    if (!first.isEmpty() && !first.startsWith(QLatin1Char('-')) && !QFileInfo::exists(first))
        what = QStringLiteral("'%1' is neither a subcommand nor an existing file, and ").arg(first);
    std::fprintf(stderr, "%s\n",
        QStringLiteral("mfu-explorer: %1there is no display to open the window on (DISPLAY and WAYLAND_DISPLAY are "
                       "unset). Without one, use a subcommand, e.g. 'mfu-explorer trace FILE' or 'mfu-explorer "
                       "predict --model ID --gpu ID' (mfu-explorer --help), or QT_QPA_PLATFORM=offscreen.")
            .arg(what)
            .toLocal8Bit()
            .constData());
    return 2;
}

} // namespace

int main(int argc, char* argv[])
{
    // Past a file-size limit (ulimit -f) a write would kill the process with SIGXFSZ, leaving a temporary behind
    // and no message; ignored, the write fails with EFBIG and the save says so and cleans up.
    std::signal(SIGXFSZ, SIG_IGN);
    mfu::cli::occupyClosedStandardStreams();
    mfu::app::setApplicationInfo();
    mfu::cli::registerReportSubcommand();
    if (argc >= 2) {
        const QString first = QString::fromLocal8Bit(argv[1]);
        if (const auto* sub = mfu::cli::findSubcommand(first)) {
            // Subcommands that render charts need a GUI application; without a display they render offscreen.
            std::unique_ptr<QCoreApplication> app;
            if (sub->needsGui) {
                if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
                    && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
                    qputenv("QT_QPA_PLATFORM", "offscreen");
                app = std::make_unique<QApplication>(argc, argv);
            } else {
                app = std::make_unique<QCoreApplication>(argc, argv);
            }
            QStringList args = QCoreApplication::arguments();
            args.removeFirst(); // program name
            const int status = sub->run(args);
            if (const auto error = mfu::cli::standardOutputError()) {
                std::fprintf(stderr, "mfu-explorer %s: %s\n", sub->name, error->c_str());
                return status != 0 ? status : 2;
            }
            return status;
        }
        if (first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("help")) {
            printTopLevelHelp();
            return 0;
        }
        if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
            std::printf("mfu-explorer %s\n", MFU_VERSION_STRING);
            return 0;
        }
        // A mistyped subcommand would otherwise open the window (and abort where there is no display).
        if (mfu::cli::isUnknownSubcommand(first)) {
            std::fprintf(stderr, "%s\n", mfu::cli::unknownSubcommandMessage(first).toLocal8Bit().constData());
            return 2;
        }
    }

    if (noDisplayForTheWindow())
        return refuseWindowWithoutDisplay(argc >= 2 ? QString::fromLocal8Bit(argv[1]) : QString());
    QApplication app(argc, argv);
    QGuiApplication::setDesktopFileName(QStringLiteral("mfu-explorer")); // Wayland matches the installed .desktop
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("MFU Explorer: measure, predict, explain and value MFU"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("files"), QStringLiteral("Traces, logs, config.json or scenarios"), QStringLiteral("[FILE...]"));
    parser.process(app);

    mfu::app::MainWindow window;
    window.show();
    window.openFiles(parser.positionalArguments());
    return app.exec();
}
