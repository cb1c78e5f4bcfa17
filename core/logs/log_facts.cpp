#include "core/logs/log_facts.h"

#include <cmath>
#include <limits>
#include <memory>
#include <regex>
#include <type_traits>
#include <vector>

#include "core/logs/log_text.h"
#include "core/number_parse.h"

namespace mfu::trace {

namespace {

using logtext::re;

enum class Fact {
    Gpus,
    TokensPerStep,
    GlobalBatch,
    MicroBatch,
    GradAccum,
    SeqLen,
    PeakTflops,
    PeakFlops,
    Device,
    ModelParams,
    DeviceMemory
};

struct FactRule {
    std::string needle;
    std::shared_ptr<const std::regex> re;
    Fact fact;
};

const std::vector<FactRule>& factRules()
{
    static const std::vector<FactRule> rules {
        { "GPUs:", re(R"(\bGPUs:\s*(\d+))"), Fact::Gpus },
        { "world_size", re(R"(\bworld_size\s*[.:=]*\s*(\d+))"), Fact::Gpus },
        { "Tokens per iteration:", re(R"(Tokens per iteration:\s*([\d,]+))"), Fact::TokensPerStep },
        // nanoGPT's train.py: "tokens per iteration will be: 491,520" (all ranks' tokens an optimizer step).
        { "tokens per iteration will be:", re(R"(tokens per iteration will be:\s*([\d,]+))"), Fact::TokensPerStep },
        { "lobal batch size", re(R"([Gg]lobal batch size:?\s*(\d+))"), Fact::GlobalBatch },
        { "global_batch_size", re(R"(\bglobal_batch_size\s*[.:=]*\s*(\d+))"), Fact::GlobalBatch },
        { "Batch size (micro):", re(R"(Batch size \(micro\):\s*(\d+))"), Fact::MicroBatch },
        { "micro_batch_size", re(R"(\bmicro_batch_size\s*[.:=]*\s*(\d+))"), Fact::MicroBatch },
        { "local batch size", re(R"(local batch size (\d+))"), Fact::MicroBatch },
        { "Gradient accum steps:", re(R"(Gradient accum steps:\s*(\d+))"), Fact::GradAccum },
        { "sequence length", re(R"(sequence length (\d+))"), Fact::SeqLen },
        { "seq_length", re(R"(\bseq_length\s*[.:=]*\s*(\d+))"), Fact::SeqLen },
        { "Hardware peak:", re(R"(Hardware peak:\s*([\d.]+(?:[eE][-+]?\d+)?)\s*TFLOPS)"), Fact::PeakTflops },
        { "Peak FLOPS used for computing MFU:", re(R"(Peak FLOPS used for computing MFU:\s*([\d.eE+]+))"),
            Fact::PeakFlops },
        { "Device:", re(R"(\bDevice:\s*(\S.*\S))"), Fact::Device },
        // torchtitan's device line: "GPU capacity: NVIDIA H100 80GB HBM3 (0) with 79.10GiB memory" (2024), and since
        // 2025 "CUDA capacity: NVIDIA H100 80GB HBM3 with 79.11GiB memory" (the device type, no index; ROCm too).
        { " capacity:", re(R"(\b(?:GPU|CUDA|XPU) capacity:\s*(.+?)\s*(?:\(\d+\)\s*)?with\s+[\d.]+\s*GiB memory)"),
            Fact::Device },
        // Total parameters: torchtitan's "Model llama3 8B size: 8,030,261,248 total parameters", nanoGPT's "number of
        // parameters: 123.69M", and "N=1.294B" beside a FLOP formula. Megatron's "number of parameters on (tensor,
        // pipeline) model parallel rank" is one rank's share, not the model's, and does not match.
        { "total parameters", re(R"(size:\s*([\d,]+)\s*total parameters)"), Fact::ModelParams },
        { "number of parameters:", re(R"(number of parameters:\s*([\d.]+\s*[KMBT]?))"), Fact::ModelParams },
        { "N=", re(R"(\bN\s*=\s*([\d.]+\s*[KMBT]))"), Fact::ModelParams },
        // torchtitan's step line: the memory in use and its share of the device's ("memory: 48.87GiB(51.44%)").
        { "memory:", re(R"(\bmemory:\s*([\d.]+)\s*GiB\s*\(\s*([\d.]+)\s*%\s*\))"), Fact::DeviceMemory },
    };
    return rules;
}

// A fact is a hint, not a requirement: a value its type cannot hold (a sequence length of 1e29, say) is left out,
// as if the log had not stated it, rather than converted out of range (undefined behaviour; found by fuzzing).
template <typename T> void setOnce(std::optional<T>& slot, const std::optional<double>& v)
{
    if (slot || !v || !(*v > 0) || !std::isfinite(*v))
        return;
    if constexpr (std::is_integral_v<T>) {
        // 2^63 (or 2^31) as a double: every double strictly below it converts.
        if (*v >= static_cast<double>(std::numeric_limits<T>::max()) || *v != std::floor(*v))
            return;
    }
    slot = static_cast<T>(*v);
}

// Whether the slot a fact rule fills is already set: then the rule can change nothing and its regex is skipped.
// Megatron repeats its global batch size on every iteration line, and it is read each time: a ramp-up changes it.
bool known(const LogFacts& facts, Fact fact)
{
    switch (fact) {
    case Fact::Gpus:
        return facts.gpus.has_value();
    case Fact::TokensPerStep:
        return facts.tokensPerStep.has_value();
    case Fact::GlobalBatch:
        return false; // read on every line: a ramp-up changes it (LogStep::globalBatchSamples)
    case Fact::MicroBatch:
        return facts.microBatch.has_value();
    case Fact::GradAccum:
        return facts.gradAccum.has_value();
    case Fact::SeqLen:
        return facts.seqLen.has_value();
    case Fact::PeakTflops:
    case Fact::PeakFlops:
        return facts.peakTflops.has_value();
    case Fact::Device:
        return facts.device.has_value();
    case Fact::ModelParams:
        return facts.modelParams.has_value();
    case Fact::DeviceMemory:
        return facts.deviceMemoryBytes.has_value();
    }
    return false;
}

} // namespace

void readFacts(const std::string& line, LogFacts& facts)
{
    for (const FactRule& r : factRules()) {
        if (known(facts, r.fact))
            continue;
        std::smatch m;
        if (!logtext::searchNear(line, r.needle, *r.re, m))
            continue;
        const std::string text = m[1].str();
        // With an exponent right after the capture: "world_size: 1e3" is not 1.
        const auto value
            = logtext::numberAt(line, size_t(m[1].first - line.begin()), size_t(m[1].second - line.begin()));
        switch (r.fact) {
        case Fact::Gpus:
            setOnce(facts.gpus, value);
            break;
        case Fact::TokensPerStep:
            setOnce(facts.tokensPerStep, value);
            break;
        case Fact::GlobalBatch: {
            std::optional<int64_t> latest;
            setOnce(latest, value);
            if (latest)
                facts.globalBatchSamples = latest;
            break;
        }
        case Fact::MicroBatch:
            setOnce(facts.microBatch, value);
            break;
        case Fact::GradAccum:
            setOnce(facts.gradAccum, value);
            break;
        case Fact::SeqLen:
            setOnce(facts.seqLen, value);
            break;
        case Fact::PeakTflops:
            setOnce(facts.peakTflops, value);
            break;
        case Fact::PeakFlops:
            if (const auto v = value)
                setOnce(facts.peakTflops, std::optional(*v / 1e12));
            break;
        case Fact::Device:
            if (!facts.device)
                facts.device = text;
            break;
        case Fact::ModelParams:
            setOnce(
                facts.modelParams, parseQuantity(text, NumberText::Lenient)); // "8,030,261,248", "123.69M", "1.294 B"
            break;
        case Fact::DeviceMemory: {
            // Below 1% in use the two rounded figures say too little about the whole (0.01 GiB of 0.5%).
            const auto share
                = logtext::numberAt(line, size_t(m[2].first - line.begin()), size_t(m[2].second - line.begin()));
            if (value && share && *share >= 1 && *share <= 100)
                setOnce(facts.deviceMemoryBytes, std::optional(*value / (*share / 100.0) * 1024.0 * 1024.0 * 1024.0));
            break;
        }
        }
    }
}

} // namespace mfu::trace
