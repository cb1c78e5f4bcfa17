#include "core/calibration/calibration_file.h"
#include "core/io/json_errors.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/calibration/shape_bins.h"
#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/io/atomic_file.h"
#include "core/io/document_kind.h"
#include "core/io/field_reader.h"
#include "core/io/read_file.h"
#include "core/model/precision.h"
#include "core/number_format.h"
#include "core/scenario/scenario_file.h"

namespace mfu {

using nlohmann::json;

namespace {

// A positive number up to `most`, or a FieldError naming the key.
double positiveNumber(const FieldReader& f, std::string_view key, double most)
{
    const double v = f.requiredNumber(key);
    if (!(v > 0 && v <= most))
        throw FieldError(f.keyPath(key), "must be a positive number up to " + formatNumber(most));
    return v;
}

// A list of traced shapes under `key`, at most `most` long.
const json& shapeList(const json& root, const char* key, size_t most)
{
    const json& list = root.at(key);
    if (!list.is_array())
        throw FieldError(key, "must be a list of traced shapes");
    if (list.size() > most)
        throw FieldError(
            key, std::to_string(list.size()) + " shapes; a calibration keeps at most " + std::to_string(most));
    return list;
}

// What every traced shape holds: its calls, time and work per step. The TFLOPS shown beside them follow from those,
// and one that does not is an edited file.
template <typename Bin> void readShapeTiming(const FieldReader& f, Bin& b)
{
    b.callsPerStep = positiveNumber(f, "calls_per_step", 1e12);
    b.secondsPerStep = positiveNumber(f, "seconds_per_step", 1e6);
    if (b.secondsPerStep < 1e-9) // under a nanosecond a step, its TFLOPS would not stay finite
        throw FieldError(f.keyPath("seconds_per_step"), "is under a nanosecond");
    b.flopsPerStep = positiveNumber(f, "flops_per_step", 1e30);
    if (const auto shown = f.optionalNumber("tflops");
        shown && std::abs(*shown / (b.flopsPerSecond() / 1e12) - 1) > 1e-6)
        throw FieldError(f.keyPath("tflops"), "is not flops_per_step / seconds_per_step");
}

template <typename Bin> json shapeTimingJson(const Bin& b)
{
    return { { "calls_per_step", b.callsPerStep }, { "seconds_per_step", b.secondsPerStep },
        { "flops_per_step", b.flopsPerStep }, { "tflops", b.flopsPerSecond() / 1e12 } };
}

// The traced GEMM shapes (gemm_shapes.h): dimensions, precision, and the time and work of each per step.
std::vector<GemmShapeBin> gemmShapesFromJson(const json& root)
{
    const json& list = shapeList(root, "gemm_shapes", kMostGemmShapes);
    std::vector<GemmShapeBin> out;
    for (size_t i = 0; i < list.size(); ++i) {
        const FieldReader f(list[i], "gemm_shapes[" + std::to_string(i) + "]");
        f.rejectUnknownKeys(
            { "m", "n", "k", "precision", "calls_per_step", "seconds_per_step", "flops_per_step", "tflops" });
        GemmShapeBin b;
        b.m = positiveNumber(f, "m", 1e12);
        b.n = positiveNumber(f, "n", 1e12);
        b.k = positiveNumber(f, "k", 1e12);
        b.precision = f.requiredString("precision");
        const std::string_view format = std::string_view(b.precision).substr(b.precision.rfind("mx", 0) == 0 ? 2 : 0);
        if (!numberFormatFromKey(format))
            throw FieldError(f.keyPath("precision"), "'" + b.precision + "' is not a GEMM precision");
        readShapeTiming(f, b);
        out.push_back(std::move(b));
    }
    return out;
}

json gemmShapesToJson(const std::vector<GemmShapeBin>& bins)
{
    json out = json::array();
    for (const GemmShapeBin& b : bins) {
        json j = { { "m", b.m }, { "n", b.n }, { "k", b.k }, { "precision", b.precision } };
        j.update(shapeTimingJson(b));
        out.push_back(std::move(j));
    }
    return out;
}

// The traced attention calls (attention_shapes.h): their dimensions, pass and mask, and the time and work per step.
std::vector<AttentionShapeBin> attentionShapesFromJson(const json& root)
{
    const json& list = shapeList(root, "attention_shapes", kMostAttentionShapes);
    std::vector<AttentionShapeBin> out;
    for (size_t i = 0; i < list.size(); ++i) {
        const FieldReader f(list[i], "attention_shapes[" + std::to_string(i) + "]");
        f.rejectUnknownKeys({ "batch", "heads", "seq_q", "seq_k", "head_dim_qk", "head_dim_v", "causal", "pass",
            "calls_per_step", "seconds_per_step", "flops_per_step", "tflops" });
        AttentionShapeBin b;
        b.batch = positiveNumber(f, "batch", 1e9);
        b.heads = positiveNumber(f, "heads", 1e9);
        b.seqQ = positiveNumber(f, "seq_q", 1e12);
        b.seqK = positiveNumber(f, "seq_k", 1e12);
        b.headDimQk = positiveNumber(f, "head_dim_qk", 1e9);
        b.headDimV = positiveNumber(f, "head_dim_v", 1e9);
        b.causal = f.optionalBool("causal", true);
        const std::string pass = f.requiredString("pass");
        if (pass != "forward" && pass != "backward")
            throw FieldError(f.keyPath("pass"), "'" + pass + "' is not forward or backward");
        b.backward = pass == "backward";
        readShapeTiming(f, b);
        out.push_back(b);
    }
    return out;
}

json attentionShapesToJson(const std::vector<AttentionShapeBin>& bins)
{
    json out = json::array();
    for (const AttentionShapeBin& b : bins) {
        json j = { { "batch", b.batch }, { "heads", b.heads }, { "seq_q", b.seqQ }, { "seq_k", b.seqK },
            { "head_dim_qk", b.headDimQk }, { "head_dim_v", b.headDimV }, { "causal", b.causal },
            { "pass", b.backward ? "backward" : "forward" } };
        j.update(shapeTimingJson(b));
        out.push_back(std::move(j));
    }
    return out;
}

// A traced shape's speed must be one the traced GPU can run at (impossibleShapeSpeed): beyond, the file was edited,
// and its ratios would carry infinities into predictions.
void refuseImpossibleShapes(const TraceCalibration& c)
{
    const HardwareSpec& hw = c.traced.cluster.hardware;
    const auto check = [](double rate, double peak, const std::string& key) {
        if (impossibleShapeSpeed(rate, peak))
            throw FieldError(key,
                formatTflops(rate) + " is not a speed this GPU runs at (" + formatTflops(peak)
                    + " dense peak): not a trace's measurement");
    };
    for (size_t i = 0; i < c.gemmShapes.size(); ++i)
        check(c.gemmShapes[i].flopsPerSecond(), peakOf(c.gemmShapes[i], hw), "gemm_shapes[" + std::to_string(i) + "]");
    for (size_t i = 0; i < c.attentionShapes.size(); ++i)
        check(
            c.attentionShapes[i].flopsPerSecond(), attentionPeakOf(hw), "attention_shapes[" + std::to_string(i) + "]");
}

// The file's figures against its own scenario: `calibrate` fitted each term's measured time against the model's
// prediction of that scenario, on the trace's GPU, from at most one trace per GPU. A scenario edited afterwards (its
// GPU, GPU count, batch or layout) keeps measured times of another run, which every factor would then carry in
// silence; so does a file written by a version of the cost model that predicts the run otherwise.
void refuseAnotherRunsScenario(const TraceCalibration& c)
{
    const Scenario& s = c.traced;
    const std::string edited = ": the scenario was edited after calibrate wrote it; run calibrate on the traces again";
    if (c.ranks > s.cluster.gpuCount)
        throw FieldError("ranks",
            std::to_string(c.ranks) + " traced ranks, more than the scenario's " + std::to_string(s.cluster.gpuCount)
                + " GPUs" + edited);
    if (const auto other = c.gpuName.empty() ? std::nullopt : tracedOnAnotherGpu(c.gpuName, s.cluster.hardware))
        throw FieldError("gpu_name", *other + edited);
    StepPrediction p;
    try {
        p = evaluate(s);
    } catch (const InputError& e) {
        throw FieldError("scenario", std::string("the cost model cannot predict it: ") + e.what());
    }
    const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)); };
    const auto differs = [](const std::string& what, double now, double then) {
        return "the scenario in the file predicts " + formatMilliseconds(now) + " " + what
            + " where the calibration was fitted against " + formatMilliseconds(then)
            + ": its scenario was edited after calibrate wrote it, or another version of MFU Explorer wrote it; run "
              "calibrate on the traces again";
    };
    if (!same(p.stepTimeSeconds, c.uncalibratedStepSeconds))
        throw FieldError("uncalibrated_step_s", differs("a step", p.stepTimeSeconds, c.uncalibratedStepSeconds));
    const std::array<double, 5> predicted = predictedTermSeconds(p);
    for (size_t i = 0; i < c.fits.size(); ++i) {
        const std::string key(calibratedTermKey(c.fits[i].term));
        if (!same(predicted[i], c.fits[i].predictedSeconds))
            throw FieldError("terms[" + key + "].predicted_s",
                differs("of " + key + " a step", predicted[i], c.fits[i].predictedSeconds));
    }
}

} // namespace

json calibrationToJson(const TraceCalibration& c)
{
    json terms = json::array();
    for (const TermFit& f : c.fits)
        terms.push_back({ { "term", calibratedTermKey(f.term) }, { "measured_s", f.measuredSeconds },
            { "predicted_s", f.predictedSeconds }, { "factor", f.factor }, { "fitted", f.fitted },
            { "evidence", f.evidence } });
    ScenarioDocument traced;
    traced.scenario = c.traced;
    return {
        { "format", kCalibrationFormat },
        { "version", kCalibrationFileVersion },
        { "trace_paths", c.tracePaths },
        { "gpu_name", c.gpuName },
        { "ranks", c.ranks },
        { "steps", c.steps },
        { "measured_step_s", c.measuredStepSeconds },
        { "step_spread_s", c.stepSpreadSeconds },
        { "uncalibrated_step_s", c.uncalibratedStepSeconds },
        { "replay_step_s", c.replayStepSeconds },
        { "replay_error", c.replayError() },
        { "terms", terms },
        { "gemm_shapes", gemmShapesToJson(c.gemmShapes) },
        { "attention_shapes", attentionShapesToJson(c.attentionShapes) },
        { "scenario", scenarioToJson(traced) },
    };
}

TraceCalibration calibrationFromJson(const json& root, const std::string& fileName)
{
    refuseOtherDocument(root, DocumentKind::Calibration, fileName,
        "a calibration (mfu-explorer calibrate TRACE... --out FILE writes one)");
    try {
        if (!root.is_object())
            throw FieldError("", "not a calibration file (expected a JSON object)");
        const FieldReader r(root, "");
        r.rejectUnknownKeys({ "format", "version", "trace_paths", "gpu_name", "ranks", "steps", "measured_step_s",
            "step_spread_s", "uncalibrated_step_s", "replay_step_s", "replay_error", "terms", "gemm_shapes",
            "attention_shapes", "scenario" });
        if (r.optionalString("format").value_or("") != kCalibrationFormat)
            throw FieldError("format", std::string("not an MFU Explorer calibration (\"") + kCalibrationFormat + "\")");
        const int64_t version = r.requiredInteger("version", 1, std::numeric_limits<int32_t>::max());
        if (version > kCalibrationFileVersion)
            throw FieldError("version", std::to_string(version) + " is newer than this MFU Explorer reads");
        TraceCalibration c;
        if (!r.has("scenario"))
            throw FieldError("scenario", "missing");
        c.traced = scenarioFromJson(root.at("scenario"), "scenario", nullptr).scenario;
        if (r.has("trace_paths") && root.at("trace_paths").is_array())
            for (const json& p : root.at("trace_paths"))
                if (p.is_string())
                    c.tracePaths.push_back(p.get<std::string>());
        c.gpuName = r.optionalString("gpu_name").value_or("");
        c.ranks = static_cast<int>(r.requiredInteger("ranks", 1, kMaxFileCount));
        c.steps = static_cast<int>(r.requiredInteger("steps", 1, kMaxFileCount));
        const auto positive = [&](std::string_view key) {
            const double v = r.requiredNumber(key);
            if (!(v > 0) || !std::isfinite(v))
                throw FieldError(std::string(key), "must be a positive number of seconds");
            return v;
        };
        c.measuredStepSeconds = positive("measured_step_s");
        c.stepSpreadSeconds = r.optionalNumber("step_spread_s").value_or(0.0);
        // The spread widens every calibrated band: a negative one, or one as long as the step itself (no steady run
        // has that), gave bands below 0% MFU.
        if (!(c.stepSpreadSeconds >= 0) || !(c.stepSpreadSeconds < c.measuredStepSeconds))
            throw FieldError("step_spread_s", "must be at least 0 and shorter than measured_step_s");
        c.uncalibratedStepSeconds = positive("uncalibrated_step_s");
        c.replayStepSeconds = positive("replay_step_s");
        // Derived from the two steps, as the factors are from their times: a stored one that is not is an edit.
        if (const auto stored = r.optionalNumber("replay_error"); stored && std::abs(*stored - c.replayError()) > 1e-6)
            throw FieldError("replay_error", "is not replay_step_s / measured_step_s - 1");
        if (!r.has("terms") || !root.at("terms").is_array())
            throw FieldError("terms", "missing: a list of the fitted terms");
        const json& terms = root.at("terms");
        c.fits.resize(std::size(kAllCalibratedTerms));
        for (const CalibratedTerm t : kAllCalibratedTerms)
            c.fits[static_cast<size_t>(t)].term = t;
        std::vector<bool> listed(c.fits.size(), false);
        for (size_t i = 0; i < terms.size(); ++i) {
            const FieldReader f(terms[i], "terms[" + std::to_string(i) + "]");
            f.rejectUnknownKeys({ "term", "measured_s", "predicted_s", "factor", "fitted", "evidence" });
            const std::string key = f.requiredString("term");
            const auto term = calibratedTermFromKey(key);
            if (!term)
                throw FieldError(f.keyPath("term"), "'" + key + "' is not a calibrated term");
            if (listed[static_cast<size_t>(*term)])
                throw FieldError(f.keyPath("term"), "'" + key + "' is listed twice");
            listed[static_cast<size_t>(*term)] = true;
            TermFit& fit = c.fits[static_cast<size_t>(*term)];
            fit.measuredSeconds = f.requiredNumber("measured_s");
            fit.predictedSeconds = f.requiredNumber("predicted_s");
            fit.fitted = f.optionalBool("fitted", false);
            fit.evidence = f.optionalString("evidence").value_or("");
            // The factor follows from the two figures; a stored factor that does not is an edited file.
            fit.factor = fit.fitted ? fit.measuredSeconds / fit.predictedSeconds : 1.0;
            if (fit.fitted && !(fit.factor > 0 && std::isfinite(fit.factor)))
                throw FieldError(f.keyPath("measured_s"), "a fitted term needs positive measured and predicted times");
            if (const auto stored = f.optionalNumber("factor"); stored && std::abs(*stored / fit.factor - 1) > 1e-6)
                throw FieldError(f.keyPath("factor"), "is not measured_s / predicted_s");
        }
        if (r.has("gemm_shapes"))
            c.gemmShapes = gemmShapesFromJson(root);
        if (r.has("attention_shapes"))
            c.attentionShapes = attentionShapesFromJson(root);
        refuseAnotherRunsScenario(c);
        refuseImpossibleShapes(c);
        c.scales = termScalesOf(c.fits, c.traced);
        return c;
    } catch (const InputError& e) {
        throw InputError(fileName + ": " + e.what());
    }
}

TraceCalibration calibrationFromText(std::string_view text, const std::string& fileName)
{
    refuseGzip(text, fileName, "a calibration");
    return calibrationFromJson(parseJsonDocument(text, fileName), fileName);
}

TraceCalibration readCalibrationFile(const std::filesystem::path& path)
{
    return calibrationFromText(readWholeFile(path, "a calibration file"), path.string());
}

void writeCalibrationFile(const std::filesystem::path& path, const TraceCalibration& calibration)
{
    std::string reason;
    if (!writeFileAtomically(path, calibrationToJson(calibration).dump(2) + "\n", &reason))
        throw InputError(path.string() + ": not written: " + reason);
}

} // namespace mfu
