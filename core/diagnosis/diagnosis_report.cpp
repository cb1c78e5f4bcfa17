#include "core/diagnosis/diagnosis_report.h"
#include "core/io/json_errors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <set>

#include "core/errors.h"
#include "core/io/document_kind.h"
#include "core/job_ceilings.h"

namespace mfu {

using nlohmann::json;

namespace {

const std::set<std::string> kKeys { "label", "gpu", "gpus", "model", "params", "precision", "seq_len", "micro_batch",
    "grad_accum", "tokens_per_step", "step_time_s", "tokens_per_sec", "tokens_per_sec_scope", "flops_per_token",
    "achieved_tflops", "achieved_tflops_scope", "peak_tflops", "mfu", "mfu_percent", "notes", "packing_length",
    "document_lengths", "mean_document_length", "attention_mask", "padding_fraction", "flop_formula" };

class RunReader {
public:
    RunReader(const json& object, std::string where)
        : m_object(object)
        , m_where(std::move(where))
    {
    }
    [[noreturn]] void fail(const std::string& key, const std::string& reason) const
    {
        throw InputError(m_where + "." + key + ": " + reason);
    }
    bool has(const char* key) const { return m_object.contains(key) && !m_object.at(key).is_null(); }
    std::optional<double> positive(const char* key) const
    {
        if (!has(key))
            return std::nullopt;
        const json& v = m_object.at(key);
        if (!v.is_number())
            fail(key, "must be a number, got " + v.dump());
        const double d = v.get<double>();
        if (!std::isfinite(d) || d <= 0)
            fail(key, "must be greater than zero, got " + v.dump());
        return d;
    }
    // A figure past which no real job lies (core/job_ceilings.h, as the command line's flags): a typo or a logger's
    // overflow, refused with the key rather than carried into a 200-digit TFLOPS or an inf.
    std::optional<double> positiveAtMost(const char* key, double most, const char* what) const
    {
        const auto d = positive(key);
        if (d && *d > most) {
            char ceiling[32];
            std::snprintf(ceiling, sizeof ceiling, "%g", most);
            fail(key, m_object.at(key).dump() + " is beyond any real job (at most " + ceiling + " " + what + ")");
        }
        return d;
    }
    std::optional<int64_t> count(const char* key) const
    {
        const auto d = positive(key);
        if (!d)
            return std::nullopt;
        if (*d != std::floor(*d) || *d > 1e15)
            fail(key, "must be a whole number, got " + m_object.at(key).dump());
        return int64_t(*d);
    }
    std::optional<std::string> text(const char* key) const
    {
        if (!has(key))
            return std::nullopt;
        if (!m_object.at(key).is_string())
            fail(key, "must be a string, got " + m_object.at(key).dump());
        return m_object.at(key).get<std::string>();
    }
    StatedScope scope(const char* key) const
    {
        const auto s = text(key);
        if (!s || *s == "unknown")
            return StatedScope::Unknown;
        if (*s == "per_gpu" || *s == "gpu")
            return StatedScope::PerGpu;
        if (*s == "cluster" || *s == "total")
            return StatedScope::Cluster;
        fail(key, "must be per_gpu, cluster or unknown, got '" + *s + "'");
    }

private:
    const json& m_object;
    std::string m_where;
};

// document_lengths (array of lengths or [length, count] pairs, or {length: count}), mean_document_length,
// attention_mask ("document" | "packed"), padding_fraction: the same as a scenario file's workload.packing.
void readPacking(const RunReader& r, const json& object, ReportedRun& run)
{
    SequencePacking& p = run.packing;
    if (r.has("document_lengths") && r.has("mean_document_length"))
        r.fail("mean_document_length", "give document_lengths or mean_document_length, not both");
    if (r.has("document_lengths")) {
        try {
            p.documents = parseDocumentLengths(object.at("document_lengths").dump(), "document_lengths");
        } catch (const InputError& e) {
            r.fail("document_lengths", e.what());
        }
    } else if (const auto mean = r.count("mean_document_length")) {
        p.documents = { { *mean, 1.0 } };
        p.meanOnly = true;
    }
    if (const auto mask = r.text("attention_mask"))
        if (!packedAttentionFromKey(*mask, p.attention))
            r.fail("attention_mask", "must be document or packed, got '" + *mask + "'");
    if (r.has("padding_fraction")) {
        const json& v = object.at("padding_fraction");
        if (!v.is_number() || !(v.get<double>() >= 0.0 && v.get<double>() < 1.0))
            r.fail("padding_fraction", "must be a fraction in [0, 1), got " + v.dump());
        p.paddingFraction = v.get<double>();
    }
    try {
        validatePacking(p, run.seqLen.value_or(0));
    } catch (const InputError& e) {
        r.fail(r.has("document_lengths") ? "document_lengths" : "mean_document_length", e.what());
    }
}

ReportedRun readRun(const json& object, const std::string& where, const PresetLibrary& presets)
{
    if (!object.is_object())
        throw InputError(where + ": a run must be a JSON object");
    for (const auto& [key, value] : object.items())
        if (!kKeys.count(key))
            throw InputError(where + "." + key + ": unknown key");
    RunReader r(object, where);
    ReportedRun run;
    run.label = r.text("label").value_or(where);
    const auto gpu = r.text("gpu");
    if (!gpu)
        r.fail("gpu", "missing (a hardware preset id)");
    const HardwareSpec* hardware = presets.findHardware(*gpu);
    if (!hardware)
        r.fail("gpu", "unknown hardware preset '" + *gpu + "'");
    run.hardware = *hardware;
    if (const auto g = r.count("gpus")) {
        if (*g > 10'000'000)
            r.fail("gpus", "more GPUs than any cluster");
        run.gpus = int(*g);
    }
    if (r.has("model") && r.has("params"))
        r.fail("params", "give either model or params, not both");
    if (const auto id = r.text("model")) {
        const ModelSpec* model = presets.findModel(*id);
        if (!model)
            r.fail("model", "unknown model preset '" + *id + "'");
        run.model = *model;
    }
    if (const auto n = r.count("params"))
        run.model = bareModel(*n);
    if (const auto f = r.text("flop_formula")) {
        const auto formula = flopFormulaFromKey(*f);
        if (!formula)
            r.fail("flop_formula", "must be one of " + flopFormulaKeyList() + ", got '" + *f + "'");
        run.formula = *formula;
    }
    if (const auto p = r.text("precision")) {
        const auto precision = trainingPrecisionFromKey(*p);
        if (!precision)
            r.fail("precision", "must be bf16, fp8 or fp4, got '" + *p + "'");
        run.precision = *precision;
    }
    run.seqLen = r.count("seq_len");
    // A packed run: packing_length is its sequence length; its documents as lengths, pairs or a mean.
    if (const auto packingLength = r.count("packing_length")) {
        if (run.seqLen && *run.seqLen != *packingLength)
            r.fail("packing_length", "differs from seq_len: a packed sequence's length is the packing length");
        run.seqLen = packingLength;
    }
    readPacking(r, object, run);
    run.microBatch = r.count("micro_batch");
    run.gradAccum = r.count("grad_accum");
    run.tokensPerStep = r.positiveAtMost("tokens_per_step", ceiling::kTokensPerStep, "tokens a step");
    run.stepTimeSeconds = r.positiveAtMost("step_time_s", ceiling::kStepSeconds, "seconds a step");
    run.tokensPerSec = r.positiveAtMost("tokens_per_sec", ceiling::kClusterTokensPerSec, "tokens/s");
    run.tokensPerSecScope = r.scope("tokens_per_sec_scope");
    run.flopsPerToken = r.positiveAtMost("flops_per_token", ceiling::kFlopsPerToken, "FLOP per token");
    if (const auto a = r.positiveAtMost("achieved_tflops", ceiling::kClusterTflops, "TFLOPS"))
        run.achievedFlops = *a * 1e12;
    run.achievedScope = r.scope("achieved_tflops_scope");
    if (const auto p = r.positiveAtMost("peak_tflops", ceiling::kClusterTflops, "TFLOPS"))
        run.peakFlops = *p * 1e12;
    if (r.has("mfu") && r.has("mfu_percent"))
        r.fail("mfu_percent", "give either mfu (fraction) or mfu_percent, not both");
    run.mfu = r.positive("mfu");
    if (const auto pct = r.positive("mfu_percent"))
        run.mfu = *pct / 100.0;
    return run;
}

} // namespace

std::vector<ReportedRun> reportedRunsFromJson(const json& document, const PresetLibrary& presets)
{
    std::vector<ReportedRun> runs;
    if (document.is_object() && document.contains("runs")) {
        const json& list = document.at("runs");
        if (!list.is_array() || list.empty())
            throw InputError("runs: must be a non-empty array of run objects");
        for (size_t i = 0; i < list.size(); ++i)
            runs.push_back(readRun(list[i], "runs[" + std::to_string(i) + "]", presets));
    } else {
        runs.push_back(readRun(document, "run", presets));
    }
    return runs;
}

std::vector<ReportedRun> reportedRunsFromText(
    std::string_view text, const std::string& sourceName, const PresetLibrary& presets)
{
    refuseGzip(text, sourceName, "a report of training runs (JSON)");
    const json document = parseJsonDocument(text, sourceName);
    // Another of the product's inputs, given here: named, rather than refused for its first key.
    refuseOtherDocument(document, DocumentKind::None, sourceName, "a report of training runs");
    try {
        return reportedRunsFromJson(document, presets);
    } catch (const InputError& e) {
        throw InputError(sourceName + ": " + e.what());
    }
}

} // namespace mfu
