#include "app/cli/subcommand.h"

#include <QFileInfo>

#include <algorithm>
#include <cstring>

#include "app/cli/commands.h"

namespace mfu::cli {

namespace {

std::vector<Subcommand>& registry()
{
    // One line per subcommand; keep in the order `mfu-explorer --help` should list them.
    static std::vector<Subcommand> list {
        { "presets", "List hardware and model presets", false, runPresets },
        { "calc", "FLOP/token under each formula, achieved TFLOPS, MFU and HFU", false, runCalc },
        { "diagnose", "Check a reported run (JSON) and name each mistake with the corrected MFU", false, runDiagnose },
        { "cost", "GPU-hours, days, dollars and energy of a job; what an MFU uplift saves", false, runCost },
        { "trace", "Import profiler traces: step-time breakdown, overlap, idle, measured MFU, comparison", false,
            runTrace },
        { "predict", "Cost-model prediction of a training step: time by component, MFU/HFU, memory, fit", false,
            runPredict },
        { "sweep", "Predicted MFU along --axis seq|gpus|precision|network, current and best configuration", false,
            runSweep },
        { "plan", "Search parallel layouts, checkpointing and micro-batches; best configurations first", false,
            runPlan },
        { "calibrate", "Fit the cost model's terms to a traced run; predict, sweep and plan take it (--calibration)",
            false, runCalibrate },
        { "validate", "Cost model against published training runs: predicted vs measured, error per group", false,
            runValidate },
    };
    return list;
}

} // namespace

const std::vector<Subcommand>& subcommands()
{
    return registry();
}

void addSubcommand(Subcommand subcommand, const char* after)
{
    auto& list = registry();
    if (findSubcommand(QLatin1String(subcommand.name)))
        return;
    auto at
        = std::find_if(list.begin(), list.end(), [&](const Subcommand& s) { return std::strcmp(s.name, after) == 0; });
    list.insert(at == list.end() ? at : at + 1, std::move(subcommand));
}

const Subcommand* findSubcommand(const QString& name)
{
    for (const auto& s : subcommands())
        if (name == QLatin1String(s.name))
            return &s;
    return nullptr;
}

bool isUnknownSubcommand(const QString& first)
{
    if (first.trimmed().isEmpty())
        return true; // `mfu-explorer "$UNSET"`: no file to open, and no subcommand
    if (first.startsWith(QLatin1Char('-')) || findSubcommand(first))
        return false;
    if (first.contains(QLatin1Char('/')) || first.contains(QLatin1Char('.')) || QFileInfo::exists(first))
        return false; // a file or folder to open, even one that is missing (the window says so)
    return true;
}

QString unknownSubcommandMessage(const QString& first)
{
    QStringList names;
    for (const auto& s : subcommands())
        names << QLatin1String(s.name);
    return QStringLiteral("mfu-explorer: unknown subcommand '%1'; the subcommands are: %2 (mfu-explorer --help)")
        .arg(first, names.join(QStringLiteral(", ")));
}

} // namespace mfu::cli
