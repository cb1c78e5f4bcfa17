#pragma once
// Shared by every subcommand: the FIXED scenario flags (--model, --params, --gpu, --gpus, --seq, --precision and the
// throughput forms), their resolution into core specs, number parsing, and the one-line error convention.
// Resolution throws mfu::InputError with a message naming the flag; runSubcommand() turns it into
// "mfu-explorer <cmd>: error: <message>" on stderr and exit status 2.
#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/cost_model_constants.h"
#include "core/model/flops.h"
#include "core/model/hardware_spec.h"
#include "core/model/mfu.h"
#include "core/model/model_spec.h"
#include "core/model/packing.h"
#include "core/model/precision.h"
#include "core/number_format.h"
#include "core/scenario/settings.h"

namespace mfu::cli {

// A flag and its help (and its value's name; none for a switch), worded for --help. Every option is made here.
QCommandLineOption option(const QString& name, const QString& description, const QString& valueName = {});
QCommandLineOption option(const QStringList& names, const QString& description, const QString& valueName = {});
// --model ID|config.json, --params N
void addModelOptions(QCommandLineParser& parser);
// --gpu ID, --gpus N
void addClusterOptions(QCommandLineParser& parser);
// --seq S, --precision bf16|fp8
void addWorkloadOptions(QCommandLineParser& parser);
// The option of one scenario setting, its help and value name from the settings table (core/scenario/settings.h).
void addSettingOption(QCommandLineParser& parser, const Setting& setting);
// --packing-length, --doc-length, --doc-lengths, --attention-mask, --padding-fraction (core/model/packing.h).
void addPackingOptions(QCommandLineParser& parser);
// --tokens-per-sec X (cluster), --tokens-per-sec-per-gpu X, --step-time SECONDS with --tokens-per-step N
void addThroughputOptions(QCommandLineParser& parser);
// --json
void addJsonOption(QCommandLineParser& parser);

// A preset id, or the path of a Hugging Face config.json; or --params N for a bare model. Throws when neither.
ModelSpec resolveModel(const QCommandLineParser& parser);
std::optional<ModelSpec> resolveOptionalModel(const QCommandLineParser& parser);
HardwareSpec resolveHardware(const QCommandLineParser& parser, const QString& defaultId = {});
// The cost-model constants of the GPU resolveHardware names by `id`: its preset's "cost_model", or a published run's
// own GPU's (a cluster's fabric, for one); none means the defaults.
std::optional<CostModelConstants> resolvedCostModel(const std::string& id);
int resolveGpuCount(const QCommandLineParser& parser, int defaultCount = 1);
// A GPU count typed for `flag`: a whole number from 1 to kMaxClusterGpus, else InputError naming the flag.
int parseGpuCount(const QString& text, const QString& flag);
int64_t resolveSeqLen(const QCommandLineParser& parser, int64_t defaultSeq);
// The packing flags applied over `base` (a scenario file's packing, or none) for sequences of seqLen tokens (the
// packing length); validated.
SequencePacking resolvePacking(const QCommandLineParser& parser, int64_t seqLen, SequencePacking base = {});
// --vision-tokens, --vision-tokens-per-image, --vision-frozen (core/model/vision_encoder.h).
void addVisionOptions(QCommandLineParser& parser);
VisionWorkload resolveVision(const QCommandLineParser& parser, int64_t seqLen, VisionWorkload base = {});
// Vision tokens, or a frozen encoder, need a model with a vision encoder: refused under the flag that stated it
// (--vision-tokens, --vision-frozen) rather than counted as a text-only run.
void requireVisionEncoder(const QCommandLineParser& parser, const ModelSpec& model, const VisionWorkload& vision);
// resolveSeqLen, with --packing-length read as the sequence length (both given and different is an error); for the
// subcommands that took addPackingOptions.
int64_t resolvePackedSeqLen(const QCommandLineParser& parser, int64_t defaultSeq);
TrainingPrecision resolvePrecision(const QCommandLineParser& parser);
// --formula six_n|palm|per_component|per_component_causal; default palm, six_n for a bare parameter count.
// --flop-formula F (also read as --formula, its earlier name): six_n, palm, per_layer (the default), per_component
// or per_component_causal. One option for calc, cost, diagnose, predict, sweep, plan, trace and report.
void addFlopFormulaOption(QCommandLineParser& parser);
// The formula the flag names, or the default (per_layer; 6N for a bare parameter count, as on every surface).
FlopFormula resolveFormula(const QCommandLineParser& parser, const ModelSpec& model);
// The formula the flag names, if it is set.
std::optional<FlopFormula> formulaFlag(const QCommandLineParser& parser);
// The model's training FLOP/token at seq under formula; throws when the formula needs an architecture (bare model).
double resolveFlopsPerToken(const ModelSpec& model, int64_t seq, FlopFormula formula);
// nullopt when no throughput flag was given; throws on a contradictory or incomplete combination.
std::optional<Throughput> resolveThroughput(const QCommandLineParser& parser);

// Parses "8192", "2.5e9", "1,000,000", "7B", "1.5M", "32k" (k/M/B/G/T suffixes; core/number_parse.h, strict: no
// spaces, no "2,50", and no "2,500", which could be a decimal comma); throws naming the flag.
double parseNumber(const QString& text, const QString& flag);
double parsePositive(const QString& text, const QString& flag);
// An MFU flag, the one rule of every subcommand: "0.4" (a value <= 1 is a fraction), "40" or "40%"; above 100% is an
// error. Returns the fraction.
double parseMfuFlag(const QString& text, const QString& flag);
// Two MFU flags of one command written as bare numbers in different units ("--baseline-mfu 0.8 --target-mfu 1.2":
// 80% and 1.2%) are refused, naming how each reads: a typo of one unit is likelier than a job that loses 98.5% of
// its MFU. A '%' makes a figure explicit and may sit beside a bare fraction.
void refuseMixedMfuUnits(
    const QString& firstText, const QString& firstFlag, const QString& secondText, const QString& secondFlag);
// A sequence length flag: a whole number of tokens from 1 to 1e8, where "32k" is 32,768 (core/number_parse.h).
int64_t parseSequenceLengthFlag(const QString& text, const QString& flag);
int64_t parsePositiveInteger(const QString& text, const QString& flag);
// A network per GPU in Gb/s (--scale-out-gbps, sweep --axis network --values): a number setStatedScaleOut takes (1 to
// kMaxNetworkGbitPerSec), else InputError naming the flag.
double statedNetworkFlag(const QString& text, const QString& flag);

// Parses args (args[0] = subcommand name). Returns nullopt to continue, or the exit status to return now (after --help,
// or a one-line error for unknown options / stray arguments).
std::optional<int> parseArguments(QCommandLineParser& parser, const QStringList& args, const QString& command);

// Runs body; an InputError or other exception becomes one line on stderr and exit status 2.
int runSubcommand(const QString& command, const std::function<int()>& body);

// Both refuse (throw InputError, so exit status 2 with the reason) a result holding a non-finite figure: JSON would
// print it as null and text as "inf" or "NaN", each with exit status 0, and a script would take it for an answer.
// Throws InputError when `out` (a file the command would write, given by `flag`) is one of the inputs it reads: a
// report or summary written over its own scenario or trace would lose the input.
void refuseWritingOverInput(const QString& out, const QStringList& inputs, const QString& flag);

void printJson(const nlohmann::json& value);
void printText(const QString& text);
// A name the user gave that a command may print (a model read from a folder called "inf", a run labelled "NaN", a
// trace's path): printText's guard passes over it, so a name is not refused as a non-finite figure. Only a name that
// would read as one is kept; a figure written exactly as such a name is then left to the JSON guard and the core.
void noteEchoedName(const std::string& name);
// The path of the first non-finite number in `value` ("fixed_work.cost_saved_usd"), if any.
std::optional<std::string> nonFiniteKey(const nlohmann::json& value, const std::string& path = {});
// core/number_format.h's: the first "inf", "-nan", "NaN" ... standing as a figure in a text.
using mfu::nonFiniteFigure;

// Everything a subcommand prints goes through these two: to the process's stdout and stderr, or, while an
// OutputCapture is alive, into its strings. The Python module runs a subcommand in-process under a capture and
// parses what the binary would have printed, so the two cannot answer differently.
void writeOut(std::string_view text);
void writeErr(std::string_view text);

// At start-up, before anything is opened: a standard stream the caller closed (`>&-`) is taken by /dev/null, so the
// next file opened (a report being saved) cannot become fd 1 and receive the answer. What a subcommand then prints
// to a closed stdout is an error, not silence.
void occupyClosedStandardStreams();
// After a subcommand: what kept its answer from reaching stdout (a full disk, a closed pipe, a closed stdout),
// flushed first, as "stdout: No space left on device"; nullopt when all of it got there. A script that redirects
// --json must not get a truncated file and exit status 0.
std::optional<std::string> standardOutputError();

// One capture at a time (a second one throws std::logic_error); not thread-safe: its user serialises the calls.
class OutputCapture {
public:
    OutputCapture();
    ~OutputCapture();
    OutputCapture(const OutputCapture&) = delete;
    OutputCapture& operator=(const OutputCapture&) = delete;
    std::string out;
    std::string err;
};

} // namespace mfu::cli
