// `mfu-explorer presets`: lists the hardware and model presets (built-in plus the user's folder). Contract:
//   presets [--json] [--hardware-only | --models-only]
// --json prints { "hardware": [...], "models": [...], "problems": [...] } (a section left out by --*-only is absent).
// Hardware figures are per GPU: peak_dense_tflops / peak_sparse_tflops by format in TFLOPS, the rest in SI units
// named by the key. Preset files that failed validation are warnings on stderr; the exit status is still 0.
#include <QString>

#include <algorithm>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/preset_store.h"
#include "core/errors.h"
#include "core/model/param_count.h"
#include "core/units.h"

namespace mfu::cli {

namespace {

using nlohmann::json;

json peaksJson(const std::array<std::optional<double>, kNumberFormatCount>& peaks)
{
    json out = json::object();
    for (int i = 0; i < kNumberFormatCount; ++i)
        if (const auto& peak = peaks[static_cast<size_t>(i)])
            out[std::string(numberFormatKey(static_cast<NumberFormat>(i)))] = *peak / kTera;
    return out;
}

json hardwareJson(const HardwareSpec& hw)
{
    return json {
        { "id", hw.id },
        { "name", hw.name },
        { "vendor", hw.vendor },
        { "peak_dense_tflops", peaksJson(hw.peakDenseFlops) },
        { "peak_sparse_tflops", peaksJson(hw.peakSparseFlops) },
        { "memory_bytes", hw.hbmBytes },
        { "hbm_bandwidth_bytes_per_sec", hw.hbmBandwidthBytesPerSec },
        { "scale_up_name", hw.scaleUpName },
        { "scale_up_domain_gpus", hw.scaleUpDomainGpus },
        { "scale_up_bandwidth_bytes_per_sec", hw.scaleUpBandwidthBytesPerSec },
        { "scale_out_bandwidth_bytes_per_sec", hw.scaleOutBandwidthBytesPerSec },
        { "host_link_name", hw.hostLinkName },
        { "host_link_bandwidth_bytes_per_sec", hw.hostLinkBytesPerSec },
        { "price_per_gpu_hour_usd", hw.pricePerGpuHourUsd },
        { "power_watts", hw.powerWatts ? json(*hw.powerWatts) : json(nullptr) },
        { "mfu_peak_format", std::string(numberFormatKey(hw.mfuPeakFormat())) },
        { "match", hw.matchPatterns },
        { "sources", hw.sources },
    };
}

json modelJson(const ModelSpec& model)
{
    const ParameterCounts counts = countParameters(model);
    return json {
        { "id", model.id },
        { "name", model.name },
        { "source", model.source },
        { "params",
            { { "total", counts.total }, { "embedding", counts.embedding }, { "non_embedding", counts.nonEmbedding },
                { "active", counts.active } } },
    };
}

// "2,250" / "19.5": thousands separators, at most one decimal, none when whole.
QString figure(double value)
{
    const bool whole = value == static_cast<double>(static_cast<int64_t>(value));
    QString text = QString::number(value, 'f', whole ? 0 : 1);
    const int point = text.contains(QLatin1Char('.')) ? static_cast<int>(text.indexOf(QLatin1Char('.')))
                                                      : static_cast<int>(text.size());
    for (int i = point - 3; i > 0; i -= 3)
        text.insert(i, QLatin1Char(','));
    return text;
}

QString optionalTflops(const std::optional<double>& flops)
{
    return flops ? figure(*flops / kTera) : QStringLiteral("-");
}

QString paramsText(int64_t params)
{
    const double p = static_cast<double>(params);
    if (p >= 1e9)
        return QString::number(p / 1e9, 'f', 2) + QLatin1Char('B');
    return QString::number(p / 1e6, 'f', 1) + QLatin1Char('M');
}

// A text column's width: its usual one, or the longest entry's (a user's preset may be longer): the columns after
// it stay in line.
template <typename Entries, typename Field> int columnWidth(const Entries& entries, int usual, Field field)
{
    qsizetype width = usual;
    for (const auto& e : entries)
        width = std::max(width, QString::fromStdString(field(e)).size());
    return static_cast<int>(width);
}

QString hardwareTable(const std::vector<HardwareSpec>& hardware)
{
    const int idWidth = columnWidth(hardware, 15, [](const HardwareSpec& h) { return h.id; });
    const int nameWidth = columnWidth(hardware, 42, [](const HardwareSpec& h) { return h.name; });
    QString out = QStringLiteral("Hardware (%1), per GPU, dense peaks:\n").arg(hardware.size());
    out += QStringLiteral("  %1 %2 %3 %4 %5 %6 %7\n")
               .arg(QStringLiteral("ID"), -idWidth)
               .arg(QStringLiteral("NAME"), -nameWidth)
               .arg(QStringLiteral("BF16 TFLOPS"), 11)
               .arg(QStringLiteral("FP8 TFLOPS"), 10)
               .arg(QStringLiteral("MEMORY GB"), 9)
               .arg(QStringLiteral("DOMAIN"), 6)
               .arg(QStringLiteral("USD/GPU-H"), 9);
    for (const auto& hw : hardware)
        out += QStringLiteral("  %1 %2 %3 %4 %5 %6 %7\n")
                   .arg(QString::fromStdString(hw.id), -idWidth)
                   .arg(QString::fromStdString(hw.name), -nameWidth)
                   .arg(optionalTflops(hw.mfuPeak())
                           + (hw.mfuPeakFormat() == NumberFormat::FP16 ? QStringLiteral(" fp16") : QString()),
                       11)
                   .arg(optionalTflops(hw.densePeak(NumberFormat::FP8)), 10)
                   .arg(figure(hw.hbmBytes / kGiga), 9)
                   .arg(hw.scaleUpDomainGpus, 6)
                   .arg(
                       hw.pricePerGpuHourUsd > 0 ? QString::number(hw.pricePerGpuHourUsd, 'f', 2) : QStringLiteral("-"),
                       9);
    return out;
}

QString modelTable(const std::vector<ModelSpec>& models)
{
    const int idWidth = columnWidth(models, 16, [](const ModelSpec& m) { return m.id; });
    const int nameWidth = columnWidth(models, 36, [](const ModelSpec& m) { return m.name; });
    QString out = QStringLiteral("Models (%1):\n").arg(models.size());
    out += QStringLiteral("  %1 %2 %3 %4\n")
               .arg(QStringLiteral("ID"), -idWidth)
               .arg(QStringLiteral("NAME"), -nameWidth)
               .arg(QStringLiteral("PARAMS"), 9)
               .arg(QStringLiteral("ACTIVE"), 9);
    for (const auto& model : models) {
        const ParameterCounts counts = countParameters(model);
        out += QStringLiteral("  %1 %2 %3 %4\n")
                   .arg(QString::fromStdString(model.id), -idWidth)
                   .arg(QString::fromStdString(model.name), -nameWidth)
                   .arg(paramsText(counts.total), 9)
                   .arg(model.isMoe() ? paramsText(counts.active) : QStringLiteral("-"), 9);
    }
    return out;
}

} // namespace

int runPresets(const QStringList& args)
{
    const QString command = QStringLiteral("presets");
    QCommandLineParser parser;
    addJsonOption(parser);
    parser.addOption(option(QStringLiteral("hardware-only"), QStringLiteral("List only the hardware presets")));
    parser.addOption(option(QStringLiteral("models-only"), QStringLiteral("List only the model presets")));
    if (const auto status = parseArguments(parser, args, command))
        return *status;
    if (!parser.positionalArguments().isEmpty()) {
        writeErr("mfu-explorer presets: error: unexpected argument '"
            + parser.positionalArguments().first().toLocal8Bit().toStdString() + "'\n");
        return 2;
    }

    return runSubcommand(command, [&] {
        const bool hardwareOnly = parser.isSet(QStringLiteral("hardware-only"));
        const bool modelsOnly = parser.isSet(QStringLiteral("models-only"));
        if (hardwareOnly && modelsOnly)
            throw InputError("give at most one of --hardware-only and --models-only");

        const PresetLibrary& library = app::presetLibrary();
        for (const auto& problem : library.problems())
            writeErr("mfu-explorer presets: warning: " + problem.message() + "\n");

        if (parser.isSet(QStringLiteral("json"))) {
            json out = json::object();
            if (!modelsOnly) {
                out["hardware"] = json::array();
                for (const auto& hw : library.hardware())
                    out["hardware"].push_back(hardwareJson(hw));
            }
            if (!hardwareOnly) {
                out["models"] = json::array();
                for (const auto& model : library.models())
                    out["models"].push_back(modelJson(model));
            }
            out["problems"] = json::array();
            for (const auto& problem : library.problems())
                out["problems"].push_back(
                    { { "file", problem.file }, { "key", problem.key }, { "reason", problem.reason } });
            printJson(out);
            return 0;
        }

        QString text;
        if (!modelsOnly)
            text += hardwareTable(library.hardware());
        if (!hardwareOnly)
            text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + modelTable(library.models());
        printText(text);
        return 0;
    });
}

} // namespace mfu::cli
