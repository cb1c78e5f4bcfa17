// mfu-explorer calc: FLOP/token under each formula side by side, and (with a throughput) achieved TFLOPS, MFU, HFU.
#include <QCommandLineParser>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/scenario_io.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/layer_type_flops.h"
#include "core/model/mfu.h"
#include "core/model/mfu_json.h"
#include "core/model/param_count.h"
#include "core/number_format.h"
#include "core/scenario/scenario_facts.h"
#include "core/text.h"

namespace mfu::cli {

namespace {

nlohmann::json optionalNumber(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

struct CalcResult {
    ModelSpec model;
    std::optional<HardwareSpec> hardware;
    int gpus = 1;
    int64_t seq = 0;
    SequencePacking packing;
    VisionWorkload vision;
    std::optional<double> visionFlopsPerToken; // the encoder's FLOP per sequence token
    std::optional<double> mfuWithVision;
    TrainingPrecision precision = TrainingPrecision::BF16;
    ActivationCheckpointing ac = ActivationCheckpointing::None;
    FlopFormula formula = kDefaultFlopFormula;
    ParameterCounts params;
    FlopsPerToken flops;
    std::optional<MfuResult> mfu;
    std::map<std::string, double> mfuByFormula;
    std::vector<LayerTypeFlops> byLayerType; // forward FLOP per token by layer type (empty for a bare model)
};

std::optional<Throughput> throughputOf(const QCommandLineParser& p, int64_t seq, int gpus)
{
    // The batch shape only gives the tokens per step of a --step-time: anywhere else it would be read and dropped.
    const bool batchShape = p.isSet(QStringLiteral("micro-batch")) || p.isSet(QStringLiteral("grad-accum"))
        || p.isSet(QStringLiteral("dp"));
    if (batchShape && (!p.isSet(QStringLiteral("step-time")) || p.isSet(QStringLiteral("tokens-per-step"))))
        throw InputError("--micro-batch, --grad-accum and --dp give the tokens per step of a --step-time: use them "
                         "with --step-time and without --tokens-per-step");
    if (p.isSet(QStringLiteral("step-time")) && !p.isSet(QStringLiteral("tokens-per-step"))
        && p.isSet(QStringLiteral("micro-batch"))) {
        // tokens per step = micro-batch x sequence x gradient accumulation x data-parallel ranks
        const int64_t mb = parsePositiveInteger(p.value(QStringLiteral("micro-batch")), QStringLiteral("micro-batch"));
        const int64_t ga = p.isSet(QStringLiteral("grad-accum"))
            ? parsePositiveInteger(p.value(QStringLiteral("grad-accum")), QStringLiteral("grad-accum"))
            : 1;
        const int64_t dp = p.isSet(QStringLiteral("dp"))
            ? parsePositiveInteger(p.value(QStringLiteral("dp")), QStringLiteral("dp"))
            : gpus;
        if (dp > gpus || gpus % dp != 0)
            throw InputError("--dp: " + std::to_string(dp) + " data-parallel ranks cannot run on "
                + std::to_string(gpus) + " GPUs (they must divide --gpus)");
        return throughputFromStep(parsePositive(p.value(QStringLiteral("step-time")), QStringLiteral("step-time")),
            double(tokensPerStep(mb, seq, ga, dp)));
    }
    return resolveThroughput(p);
}

CalcResult compute(const QCommandLineParser& p)
{
    CalcResult r;
    // --scenario FILE: a saved scenario (the window's), flags override it, as predict does; its measured throughput
    // gives the MFU the Calculator shows for it.
    const std::optional<Scenario> file = p.isSet(QStringLiteral("scenario"))
        ? std::optional(app::openScenarioFile(p.value(QStringLiteral("scenario"))).scenario)
        : std::nullopt;
    const bool modelFlag = p.isSet(QStringLiteral("model")) || p.isSet(QStringLiteral("params"));
    r.model = file && !modelFlag ? file->model : resolveModel(p);
    noteEchoedName(r.model.name);
    r.gpus = resolveGpuCount(p, file ? file->cluster.gpuCount : 1);
    r.seq = resolvePackedSeqLen(p, file ? file->workload.seqLen : 8192);
    r.packing = resolvePacking(p, r.seq, file ? file->workload.packing : SequencePacking {});
    r.vision = resolveVision(p, r.seq, file ? file->workload.vision : VisionWorkload {});
    r.precision = file && !p.isSet(QStringLiteral("precision")) ? file->precision : resolvePrecision(p);
    if (file)
        r.ac = file->activationCheckpointing;
    if (p.isSet(QStringLiteral("ac"))) {
        const auto ac = activationCheckpointingFromKey(p.value(QStringLiteral("ac")).toStdString());
        if (!ac)
            throw InputError("--ac: must be none, selective or full");
        r.ac = *ac;
    }
    r.params = countParameters(r.model);
    r.flops = countFlopsPerToken(r.model, r.seq, r.packing);
    r.byLayerType = forwardFlopsByLayerType(r.model, r.seq, r.packing);
    requireVisionEncoder(p, r.model, r.vision);
    if (r.model.vision && r.vision.tokensPerSequence > 0)
        r.visionFlopsPerToken = visionFlopsPerSequenceToken(*r.model.vision, r.vision, r.seq);
    r.formula = formulaFlag(p).value_or(flopFormulaFor(r.model, file ? file->mfuFormula : kDefaultFlopFormula));
    resolveFlopsPerToken(r.model, r.seq, r.formula); // a formula the model cannot answer is an error now
    auto throughput = throughputOf(p, r.seq, r.gpus);
    if (!throughput && file)
        throughput = file->measuredThroughput;
    if (file && !p.isSet(QStringLiteral("gpu")))
        r.hardware = file->cluster.hardware;
    else if (p.isSet(QStringLiteral("gpu")) || throughput)
        r.hardware = resolveHardware(p);
    if (r.hardware && r.precision == TrainingPrecision::BF16_FP8 && !r.hardware->densePeak(NumberFormat::FP8))
        throw InputError("--precision fp8: " + r.hardware->name + " has no dense FP8 peak (no FP8 tensor cores)");
    if (r.hardware && r.precision == TrainingPrecision::BF16_FP4 && !r.hardware->densePeak(NumberFormat::FP4))
        throw InputError("--precision fp4: " + r.hardware->name + " has no dense FP4 peak (no FP4 tensor cores)");
    if (throughput) {
        // The same MFU/HFU as the Calculator panel and the report: the scenario's facts (core/scenario).
        Scenario s;
        s.model = r.model;
        s.cluster.hardware = *r.hardware;
        s.cluster.gpuCount = r.gpus;
        s.workload.seqLen = r.seq;
        s.workload.packing = r.packing;
        s.workload.vision = r.vision;
        s.precision = r.precision;
        s.activationCheckpointing = r.ac;
        s.mfuFormula = r.formula;
        s.measuredThroughput = throughput;
        r.mfu = scenarioMeasuredMfu(s);
        r.mfuWithVision = scenarioMfuWithVision(s);
        for (FlopFormula f : kAllFlopFormulas)
            if (const auto v = r.flops.get(f))
                r.mfuByFormula[std::string(flopFormulaKey(f))] = mfuAtFlopsPerToken(*r.mfu, *v);
    }
    return r;
}

// The packed batch as counted: its attention length, its padding, and PaLM's formula over the packing length (the
// naive count) beside the per-document one, each with its MFU.
nlohmann::json packingJson(const CalcResult& r)
{
    const SequencePacking& p = r.packing;
    nlohmann::json j;
    j["packed"] = p.packed();
    j["packing_length"] = r.seq;
    j["attention_mask"] = p.packed() ? nlohmann::json(std::string(packedAttentionKey(p.attention))) : nlohmann::json();
    j["mean_document_length"] = meanDocumentLength(p, r.seq);
    j["document_lengths_are_mean"] = p.meanOnly;
    j["effective_attention_length"] = r.flops.effectiveAttentionLength;
    j["padding_fraction"] = p.paddingFraction;
    j["useful_tokens_fraction"] = usefulTokenFraction(p);
    j["palm_over_packing_length"] = optionalNumber(r.flops.palmOverPackingLength);
    j["mfu_palm_over_packing_length"] = r.mfu && r.flops.palmOverPackingLength
        ? nlohmann::json(mfuAtFlopsPerToken(*r.mfu, *r.flops.palmOverPackingLength))
        : nlohmann::json();
    return j;
}

// The vision encoder, outside MFU (which counts the language model, as multimodal references do) and in a second,
// labelled figure.
nlohmann::json visionJson(const CalcResult& r)
{
    nlohmann::json j;
    const auto& v = r.model.vision;
    j["has_encoder"] = v.has_value();
    j["encoder_params"] = v ? nlohmann::json(visionParameters(*v)) : nlohmann::json();
    j["vision_tokens_per_sequence"] = r.vision.tokensPerSequence;
    j["vision_tokens_per_image"] = r.vision.tokensPerImage > 0 ? r.vision.tokensPerImage : r.vision.tokensPerSequence;
    j["encoder_trained"] = r.vision.encoderTrained;
    j["flops_per_vision_token"] = v && r.vision.tokensPerSequence > 0
        ? nlohmann::json(visionTrainingFlopsPerToken(*v,
            double(r.vision.tokensPerImage > 0 ? r.vision.tokensPerImage : r.vision.tokensPerSequence),
            r.vision.encoderTrained))
        : nlohmann::json();
    j["vision_flops_per_token"] = optionalNumber(r.visionFlopsPerToken);
    j["mfu_with_vision"] = optionalNumber(r.mfuWithVision);
    return j;
}

nlohmann::json toJson(const CalcResult& r)
{
    nlohmann::json j;
    j["model"] = { { "id", r.model.id }, { "name", r.model.name }, { "bare", r.model.isBare() } };
    // What the counts leave out (a multimodal model's vision encoder); empty for most models.
    j["model_notes"] = r.model.notes;
    j["gpus"] = r.gpus;
    j["seq_len"] = r.seq;
    j["precision"] = std::string(trainingPrecisionKey(r.precision));
    j["activation_checkpointing"] = std::string(activationCheckpointingKey(r.ac));
    j["params"] = { { "total", r.params.total }, { "embedding", r.params.embedding },
        { "non_embedding", r.params.nonEmbedding }, { "active", r.params.active } };
    nlohmann::json flops;
    for (FlopFormula f : kAllFlopFormulas)
        flops[std::string(flopFormulaKey(f))] = optionalNumber(r.flops.get(f));
    j["flops_per_token"] = flops;
    j["mfu_formula"] = std::string(flopFormulaKey(r.formula));
    j["packing"] = packingJson(r);
    j["vision"] = visionJson(r);
    const auto& c = r.flops.forward;
    j["forward_flops_per_token"] = { { "qkv_projection", c.qkvProjection }, { "attention_scores", c.attentionScores },
        { "attention_values", c.attentionValues }, { "output_projection", c.outputProjection }, { "ffn", c.ffn },
        { "router", c.router }, { "lm_head", c.lmHead } };
    nlohmann::json byType = nlohmann::json::array();
    for (const LayerTypeFlops& t : r.byLayerType)
        byType.push_back({ { "part", std::string(layerPartKey(t.part)) }, { "kind", t.kind }, { "layers", t.layers },
            { "label", t.label }, { "forward_flops", t.forward }, { "forward_flops_causal", t.forwardCausal } });
    j["forward_flops_by_layer_type"] = byType;
    if (r.hardware)
        j["gpu"] = { { "id", r.hardware->id }, { "name", r.hardware->name } };
    const auto bf16 = r.hardware ? r.hardware->mfuPeak() : std::nullopt;
    // The fixed earlier name of the dense BF16 peak (FP16 on a device without BF16), known from the GPU even without a
    // throughput.
    j["peak_tflops_per_gpu"] = bf16 ? nlohmann::json(*bf16 / 1e12) : nlohmann::json();
    // Every MFU key, null without a throughput (docs/cli.md, docs/json-keys.md).
    j.update(mfuResultToJson(r.mfu));
    if (!r.mfu) // the GPU's peak is known when --gpu is given, whether or not there is a throughput
        j["peak_dense_tflops_per_gpu"] = j["peak_tflops_per_gpu"];
    j["mfu_by_formula"] = r.mfu ? nlohmann::json(r.mfuByFormula) : nlohmann::json();
    const auto warning = r.mfu ? impossibleMfuWarning(*r.mfu) : std::nullopt;
    j["warning"] = warning ? nlohmann::json(*warning) : nlohmann::json();
    // An impossible MFU is no run's: null, as trace --json withholds one, with the figure on record beside its reason.
    j["withheld"] = warning ? nlohmann::json(*warning) : nlohmann::json();
    j["withheld_mfu"] = warning ? nlohmann::json(r.mfu->mfu) : nlohmann::json();
    if (warning) {
        for (const char* key : { "mfu", "hfu", "mfu_vs_fp8_peak", "mfu_vs_fp4_peak", "achieved_tflops_per_gpu",
                 "achieved_tflops_cluster", "mfu_by_formula" })
            j[key] = nullptr;
        j["vision"]["mfu_with_vision"] = nullptr;
    } else if (r.mfu && r.mfu->hfu > r.mfu->mfuCeiling) {
        j["hfu"] = nullptr;
    }
    const bool fp8 = r.mfu && r.mfu->mfuVsFp8Peak;
    // The fixed earlier name of peak_dense_fp8_tflops_per_gpu; null unless BF16+FP8, like it.
    j["fp8_peak_tflops_per_gpu"] = fp8 ? nlohmann::json(*r.mfu->fp8PeakFlopsPerGpu / 1e12) : nlohmann::json();
    return j;
}

// Ends a label in toText's lines until withLabelsAligned pads it.
const QChar kLabelEnd(0x1f);

// Every "label<kLabelEnd>value" line with its value in one column: after 34 characters of label, or after the longest
// (a long formula's name, "61 sparse-attention layers (top 2,048 keys)") with a space to spare, never running into it.
QString withLabelsAligned(const QString& text)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    qsizetype width = 34;
    for (const QString& l : lines)
        if (const qsizetype end = l.indexOf(kLabelEnd); end >= 0)
            width = std::max(width, end - 2); // the two spaces of indent are not the label's
    for (QString& l : lines)
        if (const qsizetype end = l.indexOf(kLabelEnd); end >= 0)
            l = l.left(end).leftJustified(width + 2) + QLatin1Char(' ') + l.mid(end + 1);
    return lines.join(QLatin1Char('\n'));
}

QString toText(const CalcResult& r)
{
    QString out;
    // Label and value apart by a separator for now: the labels are aligned at the end, to the longest one.
    auto line = [&out](const std::string& label, const std::string& value) {
        out += QStringLiteral("  %1%2%3\n")
                   .arg(QString::fromStdString(label), kLabelEnd, QString::fromStdString(value));
    };
    out += QStringLiteral("%1, S = %2\n").arg(QString::fromStdString(r.model.name)).arg(r.seq);
    for (const std::string& note : r.model.notes)
        out += QStringLiteral("Note: %1\n").arg(QString::fromStdString(note));
    out += QStringLiteral("Parameters\n");
    line("total N", formatNumber(double(r.params.total)));
    line("embedding N_emb", formatNumber(double(r.params.embedding)));
    line("non-embedding", formatNumber(double(r.params.nonEmbedding)));
    if (r.model.isMoe())
        line("active per token", formatNumber(double(r.params.active)));
    out += QStringLiteral("Training FLOP per token\n");
    for (FlopFormula f : kAllFlopFormulas)
        if (const auto v = r.flops.get(f))
            line(std::string(flopFormulaLabel(f)) + (f == r.formula ? " *" : ""), formatGflop(*v));
    if (r.flops.palmOverPackingLength)
        line("PaLM, S = packing length (naive)", formatGflop(*r.flops.palmOverPackingLength));
    if (!r.byLayerType.empty()) {
        out += r.packing.packed() && r.packing.attention == PackedAttention::PerDocument
            ? QStringLiteral(
                "Forward FLOP per token by layer type (each document's attention, not halved by the causal "
                "mask)\n")
            : QStringLiteral("Forward FLOP per token by layer type (attention not halved by the causal mask)\n");
        for (const LayerTypeFlops& t : r.byLayerType)
            line(t.label, formatGflop(t.forward));
    }
    if (r.packing.packed() || r.packing.padded()) {
        out += QStringLiteral("Packing\n");
        if (r.packing.packed()) {
            line("documents",
                r.packing.meanOnly
                    ? "mean " + formatNumber(meanDocumentLength(r.packing, r.seq)) + " tokens (taken as equal)"
                    : formatNumber(meanDocumentLength(r.packing, r.seq)) + " tokens on average");
            line("attention",
                r.packing.attention == PackedAttention::PerDocument ? "per document (masked)"
                                                                    : "over the packed sequence");
            line("effective attention length", formatNumber(r.flops.effectiveAttentionLength) + " tokens");
        }
        if (r.packing.padded())
            line("padding kept",
                formatPercent(r.packing.paddingFraction) + " of processed tokens (MFU counts the rest)");
    }
    if (r.visionFlopsPerToken) {
        out += QStringLiteral("Vision encoder (not in MFU)\n");
        line("encoder parameters", formatNumber(double(visionParameters(*r.model.vision))));
        line("vision tokens per sequence", formatNumber(double(r.vision.tokensPerSequence)));
        line("encoder FLOP per sequence token", formatGflop(*r.visionFlopsPerToken));
    }
    if (r.mfu) {
        const MfuResult& m = *r.mfu;
        out += QStringLiteral("Throughput on %1 x %2 (%3)\n")
                   .arg(r.gpus)
                   .arg(QString::fromStdString(r.hardware->name))
                   .arg(QString::fromStdString(std::string(trainingPrecisionLabel(r.precision))));
        line("tokens/s per GPU", formatNumber(m.tokensPerSecPerGpu));
        line("tokens/s whole run", formatNumber(m.tokensPerSecCluster));
        const bool impossible = impossibleMfu(m);
        line("achieved per GPU", formatMeasuredTflops(m));
        if (!impossible)
            line("achieved whole run", formatTflops(m.achievedFlopsCluster));
        const std::string peakLabel(numberFormatLabel(m.peakFormat)); // FP16 on a GPU without BF16 (V100)
        line("dense " + peakLabel + " peak per GPU", formatTflops(m.peakFlopsPerGpu));
        line("MFU (* formula, " + peakLabel + " peak)", formatMeasuredMfu(m.mfu, m.mfuCeiling));
        if (r.mfuWithVision && !impossible)
            line("MFU including the vision encoder", formatPercent(*r.mfuWithVision));
        if (r.flops.palmOverPackingLength && !impossible)
            line("MFU, attention over packing length",
                formatPercent(mfuAtFlopsPerToken(m, *r.flops.palmOverPackingLength)));
        line("HFU (AC " + std::string(activationCheckpointingKey(r.ac)) + ")", formatMeasuredMfu(m.hfu, m.mfuCeiling));
        if (m.mfuVsFp8Peak && !impossible)
            line(
                "MFU vs dense FP8 peak", formatPercent(*m.mfuVsFp8Peak) + " of " + formatTflops(*m.fp8PeakFlopsPerGpu));
        if (m.mfuVsFp4Peak && !impossible)
            line(
                "MFU vs dense FP4 peak", formatPercent(*m.mfuVsFp4Peak) + " of " + formatTflops(*m.fp4PeakFlopsPerGpu));
        if (const auto warning = impossibleMfuWarning(m))
            out += QStringLiteral("warning: %1\n").arg(QString::fromStdString(*warning));
    } else {
        out += QStringLiteral("(give --tokens-per-sec, --tokens-per-sec-per-gpu or --step-time for MFU)\n");
    }
    return withLabelsAligned(out);
}

} // namespace

int runCalc(const QStringList& args)
{
    const QString command = QStringLiteral("calc");
    QCommandLineParser parser;
    addModelOptions(parser);
    addClusterOptions(parser);
    addWorkloadOptions(parser);
    addPackingOptions(parser);
    addVisionOptions(parser);
    addThroughputOptions(parser);
    parser.addOption(option(QStringLiteral("micro-batch"),
        QStringLiteral("Sequences per GPU per micro-step (with --step-time)"), QStringLiteral("N")));
    parser.addOption(option(QStringLiteral("grad-accum"),
        QStringLiteral("Gradient accumulation micro-steps (default 1)"), QStringLiteral("N")));
    parser.addOption(
        { QStringLiteral("dp"), QStringLiteral("Data-parallel ranks (default: --gpus)"), QStringLiteral("N") });
    parser.addOption(option(QStringLiteral("ac"),
        QStringLiteral("Activation checkpointing for HFU: none|selective|full"), QStringLiteral("MODE")));
    addFlopFormulaOption(parser);
    parser.addOption(option(QStringLiteral("scenario"),
        QStringLiteral("Start from a saved scenario file: its model, GPU, count, sequence, packing, precision, "
                       "checkpointing, formula and measured throughput (flags override them)"),
        QStringLiteral("FILE")));
    addJsonOption(parser);
    if (const auto exit = parseArguments(parser, args, command))
        return *exit;
    return runSubcommand(command, [&] {
        if (!parser.positionalArguments().isEmpty())
            throw InputError(
                "unexpected argument " + quotedForMessage(parser.positionalArguments().first().toStdString()));
        const CalcResult r = compute(parser);
        if (parser.isSet(QStringLiteral("json")))
            printJson(toJson(r));
        else
            printText(toText(r));
        return 0;
    });
}

} // namespace mfu::cli
