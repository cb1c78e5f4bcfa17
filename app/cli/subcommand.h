#pragma once
// The command-line front end: `mfu-explorer <subcommand> [options]`. Each subcommand lives in its own
// cmd_<name>.cpp and is listed once in subcommands.cpp. With no subcommand the window opens.
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

namespace mfu::cli {

struct Subcommand {
    const char* name;
    const char* summary;
    bool needsGui; // renders charts (report): runs under a QApplication, offscreen when there is no display
    std::function<int(const QStringList& args)> run; // args[0] is the subcommand name; returns the exit status
};

// The command line's subcommands, in the order `mfu-explorer --help` lists them. The ones that need no widgets are
// built in (mfu_cli, which the Python module links); the binary adds `report`, which renders charts
// (app/report/report_subcommand.h), before it reads its arguments.
const std::vector<Subcommand>& subcommands();
const Subcommand* findSubcommand(const QString& name);
// Adds a subcommand after the one named `after` (at the end when there is none); a name already listed is left as
// it is. Called once at start-up, before any subcommand runs.
void addSubcommand(Subcommand subcommand, const char* after);

// Whether a first argument that is no subcommand was meant as one ("calibrat"): a bare word, neither an option nor
// a path that exists or looks like one (no '/' or '.'). The window opens for anything else.
bool isUnknownSubcommand(const QString& first);
// "unknown subcommand 'x'; the subcommands are: presets, calc, ..." from the list, so a new one appears by itself.
QString unknownSubcommandMessage(const QString& first);

} // namespace mfu::cli
