#include "app/cli/log_input.h"

#include <QFile>
#include <QFileInfo>

#include <fstream>

#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "core/errors.h"
#include "core/io/read_file.h"

namespace mfu::cli {

namespace {
} // namespace

void addLogOptions(QCommandLineParser& parser)
{
    parser.addOption(option(qs("log-pattern"),
        qs("Training logs: an ECMAScript regex for a step line of your own format (with --log-groups)"), qs("REGEX")));
    parser.addOption(option(qs("log-groups"),
        qs("Capture groups of --log-pattern: KEY=N,... with keys step, time_s, time_ms, tokens_per_sec, tflops, "
           "mfu_percent, loss"),
        qs("SPEC")));
    parser.addOption(
        { qs("warmup-steps"), qs("Training logs: leading steps left out of the medians (default 1)"), qs("N") });
}

std::optional<trace::LogPattern> resolveLogPattern(const QCommandLineParser& parser)
{
    if (!parser.isSet(qs("log-pattern"))) {
        if (parser.isSet(qs("log-groups")))
            throw InputError("--log-groups needs --log-pattern");
        return std::nullopt;
    }
    if (!parser.isSet(qs("log-groups")))
        throw InputError("--log-pattern needs --log-groups (e.g. step=1,time_ms=2)");
    return trace::logPatternFromGroups(
        parser.value(qs("log-pattern")).toStdString(), parser.value(qs("log-groups")).toStdString());
}

size_t resolveWarmupSteps(const QCommandLineParser& parser)
{
    if (!parser.isSet(qs("warmup-steps")))
        return 1;
    const double n = parseNumber(parser.value(qs("warmup-steps")), qs("warmup-steps"));
    if (n < 0 || n > 1e9 || n != static_cast<double>(static_cast<int64_t>(n))) // bounded before the cast
        throw InputError("--warmup-steps: expected a whole number of steps, got '"
            + parser.value(qs("warmup-steps")).toStdString() + "'");
    return static_cast<size_t>(n);
}

bool isTrainingLogFile(const QString& path)
{
    QFile file(path);
    if (!isRegularFile(QFile::encodeName(path).toStdString()) || !file.open(QIODevice::ReadOnly))
        return false; // a FIFO would block the open
    const QByteArray head = file.read(qint64 { 256 } * 1024);
    return trace::looksLikeTrainingLog(std::string_view(head.constData(), static_cast<size_t>(head.size())));
}

trace::TrainingLog readTrainingLog(const QString& path, const std::optional<trace::LogPattern>& pattern)
{
    // The parser streams the file line by line; the file must be regular (a FIFO would block).
    std::ifstream in = openInputStream(QFile::encodeName(path).toStdString(), "a training log");
    return trace::parseTrainingLog(in, path.toStdString(), pattern);
}

trace::LogRunContext logRunContext(const QCommandLineParser& parser, const QString& label)
{
    trace::LogRunContext c;
    c.label = label.toStdString();
    c.model = resolveOptionalModel(parser);
    if (parser.isSet(qs("gpu")))
        c.hardware = resolveHardware(parser);
    if (parser.isSet(qs("gpus")))
        c.gpus = resolveGpuCount(parser);
    if (parser.isSet(qs("seq")))
        c.seqLen = resolveSeqLen(parser, 0);
    if (parser.isSet(qs("tokens-per-step")))
        c.tokensPerStep = parsePositive(parser.value(qs("tokens-per-step")), qs("tokens-per-step"));
    c.precision = resolvePrecision(parser);
    c.formula = resolveFormula(parser, c.model ? *c.model : ModelSpec {});
    return c;
}

} // namespace mfu::cli
