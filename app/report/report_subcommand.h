#pragma once
// `mfu-explorer report`: the one subcommand that renders charts, so it lives beside the report writer in mfu_app
// and not in the widget-free command line (mfu_cli) that the Python module links.
#include <QStringList>

namespace mfu::cli {

int runReport(const QStringList& args);

// Lists `report` among the subcommands (after `cost`, where --help has always shown it). main() calls it first.
void registerReportSubcommand();

} // namespace mfu::cli
