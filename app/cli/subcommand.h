#pragma once
// The command-line front end: `mfu-explorer <subcommand> [options]`. Each subcommand lives in its own
// cmd_<name>.cpp and is listed once in subcommands.cpp. With no subcommand the window opens.
#include <QStringList>

#include <functional>
#include <optional>

namespace mfu::cli {

struct Subcommand {
    const char* name;
    const char* summary;
    bool needsGui; // renders charts (report): runs under a QApplication, offscreen when there is no display
    std::function<int(const QStringList& args)> run; // args[0] is the subcommand name; returns the exit status
};

const std::vector<Subcommand>& subcommands();
const Subcommand* findSubcommand(const QString& name);

// Whether a first argument that is no subcommand was meant as one ("calibrat"): a bare word, neither an option nor
// a path that exists or looks like one (no '/' or '.'). The window opens for anything else.
bool isUnknownSubcommand(const QString& first);
// "unknown subcommand 'x'; the subcommands are: presets, calc, ..." from the list, so a new one appears by itself.
QString unknownSubcommandMessage(const QString& first);

} // namespace mfu::cli
