#include "app/cli/cli_common.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "app/cli/cli_text.h"
#include "app/preset_store.h"
#include "app/validation_store.h"
#include "core/errors.h"
#include "core/io/read_file.h"
#include "core/job_ceilings.h"
#include "core/model/hardware_spec.h"
#include "core/number_parse.h"
#include "core/presets/hf_config.h"
#include "core/scenario/predict_command.h"
#include "core/text.h"

namespace mfu::cli {

QCommandLineOption option(const QStringList& names, const QString& description, const QString& valueName)
{
    // Qt 6.4's help wrapper loses a description's last word when that word fills the line's last column (it breaks
    // at the space before it and then ends the loop). A trailing space gives it a break after the word instead.
    const QString padded = description + QLatin1Char(' ');
    return valueName.isEmpty() ? QCommandLineOption(names, padded) : QCommandLineOption(names, padded, valueName);
}

QCommandLineOption option(const QString& name, const QString& description, const QString& valueName)
{
    return option(QStringList { name }, description, valueName);
}

namespace {
std::string s(const QString& q)
{
    return q.toStdString();
}

// "2,500" reads as 2500 where a ',' groups digits and as 2.5 where it is the decimal point: say so, rather than the
// general rule.
std::string whyNotANumber(const QString& text)
{
    if (text.count(QLatin1Char(',')) == 1 && !text.contains(QLatin1Char('.'))
        && parseQuantity(text.toStdString(), NumberText::Lenient))
        return "a single ',' could be a decimal comma: write it without the ',', or with '.' as the decimal point";
    return numberRefusalReason(text.toStdString());
}

std::string presetIdList(bool hardware)
{
    std::string out;
    const auto& lib = app::presetLibrary();
    if (hardware) {
        for (const auto& h : lib.hardware())
            out += (out.empty() ? "" : ", ") + h.id;
    } else {
        for (const auto& m : lib.models())
            out += (out.empty() ? "" : ", ") + m.id;
    }
    return out;
}
} // namespace

void addModelOptions(QCommandLineParser& parser)
{
    parser.addOption(option("model",
        "Model preset id, a published run's own model ('mfu-explorer validate --json' gives each run's command), or "
        "the path of a Hugging Face config.json",
        "ID|FILE"));
    parser.addOption(
        option("params", "Bare parameter count instead of --model (only 6N applies), e.g. 7e9 or 7B", "N"));
}

void addClusterOptions(QCommandLineParser& parser)
{
    parser.addOption(option("gpu",
        "Hardware preset id (see 'mfu-explorer presets'), or a published run's own GPU ('mfu-explorer validate "
        "--json' gives each run's command)",
        "ID"));
    parser.addOption(option("gpus", "Number of GPUs in the run (default 1)", "N"));
}

void addSettingOption(QCommandLineParser& parser, const Setting& setting)
{
    parser.addOption(option(
        qs(setting.flag), qs(setting.help), setting.kind == SettingKind::Switch ? QString() : qs(setting.valueName)));
}

void addWorkloadOptions(QCommandLineParser& parser)
{
    addSettingOption(parser, *findSetting("seq_len"));
    addSettingOption(parser, *findSetting("precision"));
}

void addPackingOptions(QCommandLineParser& parser)
{
    parser.addOption(option("packing-length", "Packed sequence length in tokens (the same as --seq)", "S"));
    parser.addOption(
        option("doc-length", "Mean document length in a packed sequence, tokens (taken as all equal)", "N"));
    parser.addOption(option("doc-lengths",
        "File of document lengths: a JSON array of lengths or [length, count] pairs, or one 'length[,count]' per line",
        "FILE"));
    parser.addOption(option("attention-mask",
        "Attention in a packed sequence: document (per-document masking, varlen; default) or packed (spans the "
        "whole sequence)",
        "MASK"));
    parser.addOption(option("padding-fraction",
        "Share of processed tokens that are padding kept in the batch, in [0, 1) (default 0: removed)", "F"));
}

SequencePacking resolvePacking(const QCommandLineParser& parser, int64_t seqLen, SequencePacking base)
{
    SequencePacking p = std::move(base);
    const bool mean = parser.isSet(QStringLiteral("doc-length"));
    const bool file = parser.isSet(QStringLiteral("doc-lengths"));
    if (mean && file)
        throw InputError("--doc-length and --doc-lengths: give one of them (a mean or a file of lengths)");
    if (mean) {
        const int64_t d
            = parseSequenceLengthFlag(parser.value(QStringLiteral("doc-length")), QStringLiteral("doc-length"));
        p.documents = { { d, 1.0 } };
        p.meanOnly = true;
    }
    if (file) {
        const QString path = parser.value(QStringLiteral("doc-lengths"));
        try {
            p.documents = documentLengthsFromFile(QFile::encodeName(path).toStdString());
        } catch (const InputError& e) {
            throw InputError(std::string("--doc-lengths: ") + e.what());
        }
        p.meanOnly = false;
    }
    if (parser.isSet(QStringLiteral("attention-mask"))) {
        const QString v = parser.value(QStringLiteral("attention-mask"));
        if (!packedAttentionFromKey(s(v), p.attention))
            throw InputError("--attention-mask: " + quotedForMessage(s(v)) + " is not one of document, packed");
    }
    if (parser.isSet(QStringLiteral("padding-fraction"))) {
        const double f
            = parseNumber(parser.value(QStringLiteral("padding-fraction")), QStringLiteral("padding-fraction"));
        if (!(f >= 0.0 && f < 1.0))
            throw InputError("--padding-fraction: must lie in [0, 1), the share of processed tokens that are padding");
        p.paddingFraction = f;
    }
    try {
        validatePacking(p, seqLen);
    } catch (const InputError& e) {
        throw InputError(std::string(file ? "--doc-lengths: " : mean ? "--doc-length: " : "packing: ") + e.what());
    }
    return p;
}

void addVisionOptions(QCommandLineParser& parser)
{
    parser.addOption(option("vision-tokens",
        "Vision tokens per sequence (a vision-language model): the vision encoder's FLOPs are given beside MFU", "N"));
    parser.addOption(
        option("vision-tokens-per-image", "Vision tokens per image (default: one image per sequence)", "N"));
    parser.addOption(option("vision-frozen", "The vision encoder is frozen: its forward only"));
}

VisionWorkload resolveVision(const QCommandLineParser& parser, int64_t seqLen, VisionWorkload base)
{
    VisionWorkload v = base;
    if (parser.isSet(QStringLiteral("vision-tokens"))) {
        // 0 is a text-only run: accepted, so a script can sweep from it.
        const double n = parseNumber(parser.value(QStringLiteral("vision-tokens")), QStringLiteral("vision-tokens"));
        if (!(n >= 0) || n != std::floor(n) || n > 1e9)
            throw InputError("--vision-tokens: must be a whole number of tokens from 0 to 1,000,000,000");
        v.tokensPerSequence = static_cast<int64_t>(n);
    }
    if (parser.isSet(QStringLiteral("vision-tokens-per-image")))
        v.tokensPerImage = parsePositiveInteger(
            parser.value(QStringLiteral("vision-tokens-per-image")), QStringLiteral("vision-tokens-per-image"));
    if (parser.isSet(QStringLiteral("vision-frozen")))
        v.encoderTrained = false;
    // Each figure's check under the flag that gave it (a base scenario's per-image count, not given here, stays
    // the per-sequence flag's concern, as before).
    const auto underFlag = [](const char* flag, const auto& check) {
        try {
            check();
        } catch (const InputError& e) {
            throw InputError(std::string(flag) + ": " + e.what());
        }
    };
    underFlag("--vision-tokens", [&] { validateVisionTokensPerSequence(v, seqLen); });
    underFlag(parser.isSet(QStringLiteral("vision-tokens-per-image")) ? "--vision-tokens-per-image" : "--vision-tokens",
        [&] { validateVisionTokensPerImage(v); });
    return v;
}

void requireVisionEncoder(const QCommandLineParser& parser, const ModelSpec& model, const VisionWorkload& vision)
{
    if (model.vision)
        return;
    const char* flag = vision.tokensPerSequence > 0     ? "--vision-tokens"
        : parser.isSet(QStringLiteral("vision-frozen")) ? "--vision-frozen"
                                                        : nullptr;
    if (flag)
        throw InputError(std::string(flag)
            + ": the model has no vision encoder this application counts (a Qwen2-VL, Qwen2.5-VL, Qwen3-VL or "
              "Qwen3.5 config.json has one)");
}

void addThroughputOptions(QCommandLineParser& parser)
{
    parser.addOption(option("tokens-per-sec", "Measured throughput of the whole cluster, tokens/s", "X"));
    parser.addOption(option("tokens-per-sec-per-gpu", "Measured throughput per GPU, tokens/s", "X"));
    parser.addOption(
        option("step-time", "Measured time per optimizer step, seconds (with --tokens-per-step)", "SECONDS"));
    parser.addOption(
        option("tokens-per-step", "Global tokens per step: micro-batch x seq x grad-accum x DP ranks", "N"));
}

void addJsonOption(QCommandLineParser& parser)
{
    parser.addOption(option("json", "Print machine-readable JSON instead of text"));
}

double parseNumber(const QString& text, const QString& flag)
{
    const auto v = parseQuantity(text.toStdString()); // core/number_parse.h: one reader for flags, files and logs
    if (!v)
        throw InputError(
            "--" + s(flag) + ": " + quotedForMessage(s(text)) + " is not a number (" + whyNotANumber(text) + ")");
    return *v;
}

// The figures past which no real job lies, by flag (core/job_ceilings.h). Documented in docs/cli.md.
struct Ceiling {
    const char* flag;
    double most;
    const char* why;
};
constexpr Ceiling kCeilings[] = {
    { "tokens-per-sec", ceiling::kClusterTokensPerSec, "tokens/s for a whole cluster" },
    { "tokens-per-sec-per-gpu", ceiling::kGpuTokensPerSec, "tokens/s on one GPU" },
    { "step-time", ceiling::kStepSeconds, "seconds a step (116 days)" },
    { "tokens-per-step", ceiling::kTokensPerStep, "tokens a step" },
    { "global-batch-tokens", ceiling::kTokensPerStep, "tokens a step" },
    { "tokens", ceiling::kTrainingTokens, "tokens of training" },
    { "days", 36500, "days (100 years)" },
    { "steps", 1e12, "steps" },
    { "price-per-gpu-hour", 1e4, "dollars per GPU-hour, as in a preset" },
    { "flops-per-token", ceiling::kFlopsPerToken, "FLOP per token" },
    { "params", 1e15, "parameters" },
};

double parsePositive(const QString& text, const QString& flag)
{
    const double v = parseNumber(text, flag);
    if (!(v > 0))
        throw InputError("--" + s(flag) + ": must be greater than zero, got " + quotedForMessage(s(text)));
    for (const Ceiling& c : kCeilings)
        if (flag == QLatin1String(c.flag) && v > c.most)
            throw InputError("--" + s(flag) + ": " + quotedForMessage(s(text)) + " is beyond any real job (at most "
                + s(QString::number(c.most, 'g', 6)) + " " + c.why + ")");
    return v;
}

double statedNetworkFlag(const QString& text, const QString& flag)
{
    const double gbitPerSec = parsePositive(text, flag); // its errors name the flag
    HardwareSpec probe;
    try {
        setStatedScaleOut(probe, gbitPerSec); // the one range check, the window's and the sweep's too
    } catch (const InputError& e) {
        throw InputError("--" + s(flag) + ": " + e.what());
    }
    return gbitPerSec;
}

namespace {

// An MFU flag as read: its fraction, and in which unit (a '%' states it; a bare value above 1 is a percentage).
struct MfuFlagReading {
    double fraction = 0;
    bool percentSign = false;
    bool asPercentage = false;
};

MfuFlagReading readMfuFlag(const QString& text, const QString& flag)
{
    QString t = text;
    MfuFlagReading r;
    r.percentSign = t.endsWith(QLatin1Char('%'));
    if (r.percentSign)
        t.chop(1);
    const double v = parsePositive(t, flag);
    r.asPercentage = r.percentSign || v > 1;
    r.fraction = r.asPercentage ? v / 100.0 : v;
    if (r.fraction > 1)
        throw InputError("--" + s(flag) + ": " + quotedForMessage(s(text)) + " is above 100%");
    // Below 0.01% no job runs; a time divided by 1e-300 would be inf.
    if (r.fraction < 1e-4)
        throw InputError(
            "--" + s(flag) + ": " + quotedForMessage(s(text)) + " is below 0.01%, the least MFU of any real job");
    return r;
}

} // namespace

double parseMfuFlag(const QString& text, const QString& flag)
{
    return readMfuFlag(text, flag).fraction;
}

void refuseMixedMfuUnits(
    const QString& firstText, const QString& firstFlag, const QString& secondText, const QString& secondFlag)
{
    const MfuFlagReading first = readMfuFlag(firstText, firstFlag);
    const MfuFlagReading second = readMfuFlag(secondText, secondFlag);
    if (first.percentSign || second.percentSign || first.asPercentage == second.asPercentage)
        return;
    auto reads = [](const QString& text, const QString& flag, const MfuFlagReading& r) {
        return "--" + s(flag) + " " + s(text) + " reads as a " + (r.asPercentage ? "percentage" : "fraction") + " ("
            + formatPercent(r.fraction) + ")";
    };
    throw InputError(reads(firstText, firstFlag, first) + " and " + reads(secondText, secondFlag, second)
        + ": give both as fractions (0.4) or both as percentages (40, or 40%)");
}

int64_t parseSequenceLengthFlag(const QString& text, const QString& flag)
{
    const auto v = parseSequenceLength(text.toStdString()); // a 32k context is 32,768 tokens (core/number_parse.h)
    if (!v)
        throw InputError("--" + s(flag) + ": " + quotedForMessage(s(text)) + " is not a number of tokens ("
            + whyNotANumber(text) + "; 32k is 32,768)");
    if (!(*v >= 1) || *v != std::floor(*v))
        throw InputError(
            "--" + s(flag) + ": must be a whole number of tokens, at least 1, got " + quotedForMessage(s(text)));
    if (const Setting& seq = *findSetting("seq_len"); *v > static_cast<double>(seq.maximum))
        throw InputError("--" + s(flag) + ": " + s(text) + " tokens is refused: must be " + settingRangeText(seq));
    return static_cast<int64_t>(*v);
}

int64_t parsePositiveInteger(const QString& text, const QString& flag)
{
    const double v = parsePositive(text, flag);
    if (v != std::floor(v))
        throw InputError("--" + s(flag) + ": must be a whole number, got " + quotedForMessage(s(text)));
    if (v > 9.0e15) // beyond it a double no longer holds every whole number, and 2^63 overflows int64
        throw InputError("--" + s(flag) + ": " + quotedForMessage(s(text)) + " is too large (at most 9e15)");
    return static_cast<int64_t>(v);
}

std::optional<ModelSpec> resolveOptionalModel(const QCommandLineParser& parser)
{
    const bool hasModel = parser.isSet(QStringLiteral("model"));
    const bool hasParams = parser.isSet(QStringLiteral("params"));
    if (hasModel && hasParams)
        throw InputError("give either --model or --params, not both");
    if (hasParams)
        return bareModel(parsePositiveInteger(parser.value(QStringLiteral("params")), QStringLiteral("params")));
    if (!hasModel)
        return std::nullopt;
    const QString value = parser.value(QStringLiteral("model"));
    if (const ModelSpec* preset = app::presetLibrary().findModel(s(value)))
        return *preset;
    // A published run's own model (validate --json states each run with these flags).
    if (const ModelSpec* run = app::shippedValidationDefinitions().findModel(s(value)))
        return *run;
    // A config.json, or a downloaded model's folder with one (a FIFO there is refused by the reader, not taken for a
    // missing file).
    if (QFileInfo::exists(value) || QFileInfo(value).isSymLink()) {
        ModelSpec model = modelFromHfConfigFile(QFile::encodeName(value).toStdString());
        noteEchoedName(model.name);
        return model;
    }
    throw InputError("--model: " + quotedForMessage(s(value)) + " is neither a model preset (" + presetIdList(false)
        + "), a published run's model ('mfu-explorer validate --json' names them) nor a readable config.json file");
}

ModelSpec resolveModel(const QCommandLineParser& parser)
{
    if (auto m = resolveOptionalModel(parser))
        return *m;
    throw InputError("a model is required: --model ID|config.json or --params N");
}

HardwareSpec resolveHardware(const QCommandLineParser& parser, const QString& defaultId)
{
    const QString id = parser.isSet(QStringLiteral("gpu")) ? parser.value(QStringLiteral("gpu")) : defaultId;
    if (id.isEmpty())
        throw InputError("--gpu is required (one of: " + presetIdList(true) + ")");
    if (const HardwareSpec* h = app::presetLibrary().findHardware(s(id)))
        return *h;
    if (const HardwareSpec* h = app::shippedValidationDefinitions().findHardware(s(id)))
        return *h; // a published run's own GPU (validate --json states each run with these flags)
    throw InputError("--gpu: unknown hardware preset " + quotedForMessage(s(id)) + " (one of: " + presetIdList(true)
        + "; or a published run's GPU, as 'mfu-explorer validate --json' names them)");
}

std::optional<CostModelConstants> resolvedCostModel(const std::string& id)
{
    return costModelNamedBy(id, app::presetLibrary(), &app::shippedValidationDefinitions());
}

int resolveGpuCount(const QCommandLineParser& parser, int defaultCount)
{
    if (!parser.isSet(QStringLiteral("gpus")))
        return defaultCount;
    return parseGpuCount(parser.value(QStringLiteral("gpus")), QStringLiteral("gpus"));
}

int parseGpuCount(const QString& text, const QString& flag)
{
    // The cluster bound first: 2^63 GPUs is beyond any cluster before it is beyond a 64-bit count.
    if (parsePositive(text, flag) > kMaxClusterGpus)
        throw InputError("--" + s(flag) + ": " + s(text) + " GPUs is beyond any cluster (at most "
            + formatNumber(kMaxClusterGpus) + ")");
    return static_cast<int>(parsePositiveInteger(text, flag));
}

int64_t resolvePackedSeqLen(const QCommandLineParser& parser, int64_t defaultSeq)
{
    // --packing-length is the packed sequence's length: the same S as --seq, under the packing trainers' name.
    if (!parser.isSet(QStringLiteral("packing-length")))
        return resolveSeqLen(parser, defaultSeq);
    const int64_t packing
        = parseSequenceLengthFlag(parser.value(QStringLiteral("packing-length")), QStringLiteral("packing-length"));
    if (parser.isSet(QStringLiteral("seq"))
        && parseSequenceLengthFlag(parser.value(QStringLiteral("seq")), QStringLiteral("seq")) != packing)
        throw InputError(
            "--seq and --packing-length differ: a packed sequence's length is the packing length; give one of them");
    return packing;
}

int64_t resolveSeqLen(const QCommandLineParser& parser, int64_t defaultSeq)
{
    if (!parser.isSet(QStringLiteral("seq")))
        return defaultSeq;
    return parseSequenceLengthFlag(parser.value(QStringLiteral("seq")), QStringLiteral("seq"));
}

TrainingPrecision resolvePrecision(const QCommandLineParser& parser)
{
    if (!parser.isSet(QStringLiteral("precision")))
        return TrainingPrecision::BF16;
    Scenario scenario;
    try {
        applySettingText(*findSetting("precision"), s(parser.value(QStringLiteral("precision"))), scenario);
    } catch (const InputError& e) {
        throw InputError(std::string("--precision: ") + e.what());
    }
    return scenario.precision;
}

void addFlopFormulaOption(QCommandLineParser& parser)
{
    parser.addOption(option(QStringList { QStringLiteral("flop-formula"), QStringLiteral("formula") },
        QString::fromStdString("FLOP/token formula for MFU: " + flopFormulaKeyList()
            + " (default per_layer: PaLM's 6(N-N_emb) + 12HQ x the keys each layer attends; docs/formulas.md)"),
        QStringLiteral("F")));
}

std::optional<FlopFormula> formulaFlag(const QCommandLineParser& parser)
{
    if (!parser.isSet(QStringLiteral("flop-formula")))
        return std::nullopt;
    const QString value = parser.value(QStringLiteral("flop-formula"));
    if (const auto f = flopFormulaFromKey(s(value)))
        return *f;
    throw InputError("--flop-formula: " + quotedForMessage(s(value)) + " is not one of " + flopFormulaKeyList());
}

FlopFormula resolveFormula(const QCommandLineParser& parser, const ModelSpec& model)
{
    return formulaFlag(parser).value_or(flopFormulaFor(model, kDefaultFlopFormula));
}

double resolveFlopsPerToken(const ModelSpec& model, int64_t seq, FlopFormula formula)
{
    if (const auto flops = countFlopsPerToken(model, seq).get(formula))
        return *flops;
    throw InputError("--flop-formula " + std::string(flopFormulaKey(formula)) + " needs the model's architecture; "
        + model.id + " is a bare parameter count (use six_n)");
}

std::optional<Throughput> resolveThroughput(const QCommandLineParser& parser)
{
    const bool cluster = parser.isSet(QStringLiteral("tokens-per-sec"));
    const bool perGpu = parser.isSet(QStringLiteral("tokens-per-sec-per-gpu"));
    const bool step = parser.isSet(QStringLiteral("step-time"));
    const bool stepTokens = parser.isSet(QStringLiteral("tokens-per-step"));
    if (int(cluster) + int(perGpu) + int(step || stepTokens) > 1)
        throw InputError("give one throughput: --tokens-per-sec, --tokens-per-sec-per-gpu, or --step-time with "
                         "--tokens-per-step");
    if (cluster)
        return Throughput { parsePositive(
                                parser.value(QStringLiteral("tokens-per-sec")), QStringLiteral("tokens-per-sec")),
            ThroughputScope::Cluster };
    if (perGpu)
        return Throughput { parsePositive(parser.value(QStringLiteral("tokens-per-sec-per-gpu")),
                                QStringLiteral("tokens-per-sec-per-gpu")),
            ThroughputScope::PerGpu };
    if (step != stepTokens)
        throw InputError(step ? "--step-time needs --tokens-per-step" : "--tokens-per-step needs --step-time");
    if (step)
        return throughputFromStep(parsePositive(parser.value(QStringLiteral("step-time")), QStringLiteral("step-time")),
            parsePositive(parser.value(QStringLiteral("tokens-per-step")), QStringLiteral("tokens-per-step")));
    return std::nullopt;
}

namespace {
// The help text without the spaces option() gives each description to end its last line with.
QString withoutTrailingSpaces(const QString& text)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString& line : lines)
        while (line.endsWith(QLatin1Char(' ')))
            line.chop(1);
    return lines.join(QLatin1Char('\n'));
}
} // namespace

namespace {
std::vector<std::string>& echoedNames()
{
    static std::vector<std::string> names;
    return names;
}

// `text` with every echoed name blanked out, as the non-finite guard is to read it.
std::string withoutEchoedNames(std::string text)
{
    for (const std::string& name : echoedNames())
        for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + name.size()))
            text.replace(at, name.size(), name.size(), '#');
    return text;
}
} // namespace

std::optional<int> parseArguments(QCommandLineParser& parser, const QStringList& args, const QString& command)
{
    echoedNames().clear(); // a subcommand run in-process (the Python module, tests) starts without the last one's
    parser.setApplicationDescription(QStringLiteral("mfu-explorer ") + command);
    const QCommandLineOption help = parser.addHelpOption();
    QStringList argv = args;
    argv[0] = QStringLiteral("mfu-explorer ") + command; // shown in the usage line
    if (!parser.parse(argv)) {
        writeErr("mfu-explorer " + command.toLocal8Bit().toStdString()
            + ": error: " + parser.errorText().toLocal8Bit().toStdString() + "\n");
        return 2;
    }
    if (parser.isSet(help)) {
        // Qt names the program by the path it was started from ("Usage: /usr/bin/mfu-explorer [options]"): say the
        // subcommand instead, as a user types it.
        QString text = parser.helpText();
        if (text.startsWith(QStringLiteral("Usage: "))) {
            const qsizetype end = text.indexOf(QStringLiteral(" [options]"));
            if (end > 0)
                text.replace(7, end - 7, QStringLiteral("mfu-explorer ") + command);
        }
        writeOut(withoutTrailingSpaces(text).toLocal8Bit().toStdString());
        return 0;
    }
    return std::nullopt;
}

int runSubcommand(const QString& command, const std::function<int()>& body)
{
    try {
        return body();
    } catch (const std::bad_alloc&) { // what ran out and on which input, rather than "std::bad_alloc"
        writeErr("mfu-explorer " + command.toLocal8Bit().toStdString() + ": error: " + outOfMemoryMessage() + "\n");
        return 2;
    } catch (const std::exception& e) {
        writeErr("mfu-explorer " + command.toLocal8Bit().toStdString() + ": error: " + e.what() + "\n");
        return 2;
    }
}

void refuseWritingOverInput(const QString& out, const QStringList& inputs, const QString& flag)
{
    const std::filesystem::path target = out.toStdString();
    for (const QString& input : inputs) {
        std::error_code error;
        if (std::filesystem::equivalent(target, std::filesystem::path(input.toStdString()), error))
            throw InputError("--" + flag.toStdString() + ": " + out.toStdString()
                + " is also an input of this command; refusing to write over it");
    }
}

void printJson(const nlohmann::json& value)
{
    if (const auto key = nonFiniteKey(value))
        throw InputError("the result's " + *key + " is not a finite number: an input is beyond any real job");
    // A name read from a user's file may hold bytes that are not UTF-8; they print as U+FFFD rather than make
    // dump() throw and lose the whole answer.
    writeOut(value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void noteEchoedName(const std::string& name)
{
    if (!name.empty() && nonFiniteFigure(name))
        echoedNames().push_back(name);
}

void printText(const QString& text)
{
    const std::string bytes = text.toUtf8().toStdString();
    if (const auto figure = nonFiniteFigure(echoedNames().empty() ? bytes : withoutEchoedNames(bytes)))
        throw InputError("a result is not a finite number ('" + *figure + "'): an input is beyond any real job");
    writeOut(bytes);
}

std::optional<std::string> nonFiniteKey(const nlohmann::json& value, const std::string& path)
{
    if (value.is_number_float())
        return std::isfinite(value.get<double>()) ? std::nullopt : std::optional(path.empty() ? "value" : path);
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            if (auto key = nonFiniteKey(*it, path.empty() ? it.key() : path + "." + it.key()))
                return key;
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i)
            if (auto key = nonFiniteKey(value[i], path + "[" + std::to_string(i) + "]"))
                return key;
    }
    return std::nullopt;
}

namespace {
OutputCapture* g_capture = nullptr;
bool g_stdoutClosed = false; // fd 1 was closed at start-up and is held by /dev/null
bool g_wroteOut = false;
int g_stdoutErrno = 0; // the first failed write's error
} // namespace

void writeOut(std::string_view text)
{
    if (g_capture) {
        g_capture->out += text;
        return;
    }
    g_wroteOut = g_wroteOut || !text.empty();
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() && g_stdoutErrno == 0)
        g_stdoutErrno = errno != 0 ? errno : EIO;
}

void occupyClosedStandardStreams()
{
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        // open() takes the lowest free descriptor: this one, as the lower ones are open by now.
        const int taken = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (taken != fd && taken >= 0)
            ::close(taken);
        if (fd == 1)
            g_stdoutClosed = true;
    }
}

std::optional<std::string> standardOutputError()
{
    if (g_stdoutClosed && g_wroteOut)
        return std::string("stdout: it is closed, and the answer went nowhere");
    errno = 0;
    if (std::fflush(stdout) != 0 && g_stdoutErrno == 0)
        g_stdoutErrno = errno != 0 ? errno : EIO;
    if (g_stdoutErrno == 0 && std::ferror(stdout))
        g_stdoutErrno = EIO;
    if (g_stdoutErrno == 0)
        return std::nullopt;
    return "stdout: " + std::string(std::strerror(g_stdoutErrno)) + "; the answer is incomplete";
}

void writeErr(std::string_view text)
{
    if (g_capture)
        g_capture->err += text;
    else
        std::fwrite(text.data(), 1, text.size(), stderr);
}

OutputCapture::OutputCapture()
{
    if (g_capture)
        throw std::logic_error("OutputCapture: a capture is already active");
    g_capture = this;
}

OutputCapture::~OutputCapture()
{
    g_capture = nullptr;
}

} // namespace mfu::cli
