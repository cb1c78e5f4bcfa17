#include "widgets/scenario/scenario_model.h"

#include <algorithm>

#include "core/errors.h"
#include "core/scenario/scenario_facts.h"
#include "widgets/cost/price_memory.h"

namespace mfu::widgets {

ScenarioModel::ScenarioModel(QObject* parent)
    : QObject(parent)
{
}

void ScenarioModel::setTraceCalibration(std::optional<TraceCalibration> calibration, const QString& source)
{
    m_traceCalibration = std::move(calibration);
    m_traceCalibrationSource = m_traceCalibration ? source : QString();
    emit traceCalibrationChanged();
}

void ScenarioModel::setScenario(const Scenario& scenario, bool builtInExample)
{
    m_scenario = scenario;
    if (scenario.measuredThroughput) {
        m_throughputInput = scenario.measuredThroughput->scope == ThroughputScope::PerGpu
            ? ThroughputInput::TokensPerSecPerGpu
            : ThroughputInput::TokensPerSecCluster;
        m_throughputValue = scenario.measuredThroughput->tokensPerSec;
    } else {
        m_throughputValue = 0;
    }
    deriveAndNotify(builtInExample);
}

void ScenarioModel::setModel(const ModelSpec& model)
{
    // The example's measurement (Llama 3.1 8B at 21,111 tokens/s on a B200) is no run of another model: kept for an
    // imported 70B on 16 H100 it read 1,028% MFU. A measurement the user gave stays (it may be typed first).
    if (m_builtInExample && model.id != m_scenario.model.id)
        m_throughputValue = 0;
    m_scenario.model = model;
    // Expert parallelism belongs to the model that had experts: carried over to a dense one, every prediction was
    // refused ("ep and expert TP need a mixture-of-experts model") until the user found the field.
    if (!model.isMoe()) {
        m_scenario.parallelism.ep = Parallelism {}.ep;
        m_scenario.parallelism.expertTp = Parallelism {}.expertTp;
    }
    deriveAndNotify();
}

void ScenarioModel::setHardware(const HardwareSpec& hardware, const std::optional<CostModelConstants>& costModel)
{
    // Another GPU starts at its own remembered (else typical) price; the same GPU with other constants (a calibration
    // applied or undone) keeps the price the scenario has.
    const bool sameGpu = hardware.id == m_scenario.cluster.hardware.id;
    m_scenario.cluster.hardware = hardware;
    m_scenario.costModel = costModel;
    if (!sameGpu) {
        m_scenario.pricePerGpuHourUsd = rememberedPrice(hardware.id);
        if (m_builtInExample)
            m_throughputValue = 0; // the example's, measured on the other GPU
    }
    deriveAndNotify();
}

void ScenarioModel::setCostModel(const std::optional<CostModelConstants>& costModel)
{
    m_scenario.costModel = costModel;
    deriveAndNotify();
}

void ScenarioModel::setGpuCount(int gpus)
{
    const int64_t accumulation = accumulationToKeep();
    m_scenario.cluster.gpuCount = gpus;
    keepAccumulation(accumulation);
    deriveAndNotify();
}

void ScenarioModel::setNetworkGbitPerSec(double gbitPerSec)
{
    setStatedScaleOut(m_scenario.cluster.hardware, gbitPerSec); // the editor's range is the function's
    deriveAndNotify();
}

void ScenarioModel::setMfuFormula(FlopFormula formula)
{
    m_scenario.mfuFormula = formula;
    deriveAndNotify();
}

void ScenarioModel::setPrecision(TrainingPrecision precision)
{
    m_scenario.precision = precision;
    deriveAndNotify();
}

void ScenarioModel::setSeqLen(int64_t seqLen)
{
    const int64_t accumulation = accumulationToKeep();
    m_scenario.workload.seqLen = seqLen;
    keepAccumulation(accumulation);
    deriveAndNotify();
}

void ScenarioModel::setPacking(const SequencePacking& packing)
{
    m_scenario.workload.packing = packing;
    deriveAndNotify();
}

void ScenarioModel::setVision(const VisionWorkload& vision)
{
    m_scenario.workload.vision = vision;
    deriveAndNotify();
}

void ScenarioModel::setMtpLayers(int layers)
{
    m_scenario.workload.mtpLayers = layers;
    deriveAndNotify();
}

void ScenarioModel::setMicroBatch(int64_t microBatch)
{
    const int64_t accumulation = accumulationToKeep();
    m_scenario.workload.microBatch = microBatch;
    keepAccumulation(accumulation);
    deriveAndNotify();
}

void ScenarioModel::setGradAccum(int64_t gradAccum)
{
    keepAccumulation(gradAccum);
    deriveAndNotify();
}

int64_t ScenarioModel::accumulationToKeep() const
{
    // No global batch stated: one micro-step per data-parallel rank, whatever its shape, so nothing to keep.
    return m_scenario.workload.globalBatchTokens > 0 ? gradAccum() : 0;
}

void ScenarioModel::keepAccumulation(int64_t gradAccum)
{
    if (gradAccum <= 0)
        return;
    try {
        m_scenario.workload.globalBatchTokens = gradAccum * tokensPerMicroStep(m_scenario);
    } catch (const InputError&) {
        // No micro-step to multiply (layoutError() says why): the stated batch stays until there is one.
    }
}

int64_t ScenarioModel::gradAccum() const
{
    return scenarioMicroSteps(m_scenario);
}

void ScenarioModel::setThroughput(ThroughputInput input, double value)
{
    m_throughputInput = input;
    m_throughputValue = value;
    deriveAndNotify();
}

void ScenarioModel::setThroughputInput(ThroughputInput input)
{
    if (input == m_throughputInput)
        return;
    const int gpus = std::max(1, m_scenario.cluster.gpuCount);
    const double tokens = static_cast<double>(tokensPerStep());
    double value = 0;
    if (m_scenario.measuredThroughput) {
        const Throughput& t = *m_scenario.measuredThroughput;
        switch (input) {
        case ThroughputInput::TokensPerSecPerGpu:
            value = tokensPerSecPerGpu(t, gpus);
            break;
        case ThroughputInput::TokensPerSecCluster:
            value = tokensPerSecPerGpu(t, gpus) * gpus;
            break;
        case ThroughputInput::StepTime:
            value = stepSecondsAt(t, gpus, tokens); // core/model/mfu.h
            break;
        }
    }
    m_throughputInput = input;
    m_throughputValue = value;
    deriveAndNotify();
}

void ScenarioModel::setConfiguration(const Parallelism& parallelism, ActivationCheckpointing checkpointing,
    const FrameworkFlags& flags, int64_t microBatch)
{
    // The global batch in tokens is kept (one unstated becomes the tokens it stood for, so it is kept too).
    if (m_scenario.workload.globalBatchTokens <= 0)
        m_scenario.workload.globalBatchTokens = tokensPerStep();
    m_scenario.parallelism = parallelism;
    m_scenario.activationCheckpointing = checkpointing;
    m_scenario.flags = flags;
    m_scenario.workload.microBatch = microBatch;
    deriveAndNotify();
}

void ScenarioModel::setGlobalBatchTokens(int64_t tokens)
{
    m_scenario.workload.globalBatchTokens = tokens;
    deriveAndNotify();
}

void ScenarioModel::setPricePerGpuHour(std::optional<double> pricePerGpuHourUsd)
{
    m_scenario.pricePerGpuHourUsd = pricePerGpuHourUsd;
    deriveAndNotify();
}

void ScenarioModel::setCostInputs(const CostInputs& inputs)
{
    m_scenario.cost = inputs;
    deriveAndNotify();
}

void ScenarioModel::adoptFileFacts(const HardwareSpec* hardware, std::optional<int> gpus, std::optional<int64_t> seqLen,
    std::optional<int64_t> tokensPerStep, const ModelSpec* model, std::optional<TrainingPrecision> precision,
    std::optional<AttentionKernel> attentionKernel, std::optional<bool> compiled, std::optional<int64_t> microBatch,
    std::optional<double> tokensPerSecPerGpu, std::optional<bool> autocast)
{
    // The file's measured throughput becomes the scenario's measurement, stated per GPU as the file measured it. A
    // file that measured none leaves the user's, but not the window's example's: Lambda's 21,111 tokens/s on a B200
    // is no measurement of the file's run (kept, a report of HTA's traces costed its job at that example's MFU).
    if (tokensPerSecPerGpu && *tokensPerSecPerGpu > 0) {
        m_throughputInput = ThroughputInput::TokensPerSecPerGpu;
        m_throughputValue = *tokensPerSecPerGpu;
    } else if (m_builtInExample) {
        m_throughputValue = 0;
    }
    if (compiled)
        m_scenario.flags.compiled = *compiled;
    if (autocast)
        m_scenario.flags.autocast = *autocast;
    if (microBatch && *microBatch > 0)
        m_scenario.workload.microBatch = *microBatch;
    if (model)
        m_scenario.model = *model;
    if (attentionKernel)
        m_scenario.flags.attentionKernel = *attentionKernel;
    if (precision)
        m_scenario.precision = *precision;
    if (hardware) {
        m_scenario.cluster.hardware = *hardware;
        m_scenario.pricePerGpuHourUsd = rememberedPrice(hardware->id);
    }
    if (gpus && *gpus > 0)
        m_scenario.cluster.gpuCount = *gpus;
    if (seqLen && *seqLen > 0)
        m_scenario.workload.seqLen = *seqLen;
    if (tokensPerStep && *tokensPerStep > 0)
        m_scenario.workload.globalBatchTokens = *tokensPerStep; // as the file states it, as a scenario file keeps it
    deriveAndNotify();
}

ScenarioModelState ScenarioModel::state() const
{
    return { m_scenario, m_throughputInput, m_throughputValue, m_builtInExample };
}

void ScenarioModel::restore(const ScenarioModelState& state)
{
    m_scenario = state.scenario;
    m_throughputInput = state.throughputInput;
    m_throughputValue = state.throughputValue;
    deriveAndNotify(state.builtInExample);
}

QString ScenarioModel::layoutError() const
{
    try {
        (void)tokensPerMicroStep(m_scenario);
        return {};
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
}

int ScenarioModel::dataParallelRanks() const
{
    return parallelLayoutError(m_scenario) ? 0 : mfu::dataParallelRanks(m_scenario);
}

int64_t ScenarioModel::tokensPerStep() const
{
    return processedTokensPerStep(m_scenario);
}

// The batch and the measurement follow from the editor inputs; invalid inputs (zero or negative) leave the
// measurement empty so panels show "no measurement" instead of a wrong number. Every change but setting or
// restoring the example itself ends the example (builtInExample false): set before changed() fires, so listeners
// read the new state.
void ScenarioModel::deriveAndNotify(bool builtInExample)
{
    m_builtInExample = builtInExample;
    m_scenario.measuredThroughput.reset();
    if (m_throughputValue > 0) {
        switch (m_throughputInput) {
        case ThroughputInput::TokensPerSecPerGpu:
            m_scenario.measuredThroughput = Throughput { m_throughputValue, ThroughputScope::PerGpu };
            break;
        case ThroughputInput::TokensPerSecCluster:
            m_scenario.measuredThroughput = Throughput { m_throughputValue, ThroughputScope::Cluster };
            break;
        case ThroughputInput::StepTime:
            if (tokensPerStep() > 0)
                m_scenario.measuredThroughput
                    = throughputFromStep(m_throughputValue, static_cast<double>(tokensPerStep()));
            break;
        }
    }
    emit changed();
}

Scenario defaultScenario(const PresetLibrary& presets)
{
    Scenario s;
    if (const ModelSpec* model = presets.findModel("llama-3.1-8b"))
        s.model = *model;
    else if (!presets.models().empty())
        s.model = presets.models().front();
    if (const HardwareSpec* gpu = presets.findHardware("b200"))
        s.cluster.hardware = *gpu;
    else if (!presets.hardware().empty())
        s.cluster.hardware = presets.hardware().front();
    s.costModel = presets.costModelFor(s.cluster.hardware.id);
    s.cluster.gpuCount = 1;
    s.precision = TrainingPrecision::BF16;
    s.workload.seqLen = 8192;
    s.workload.microBatch = 1;
    s.measuredThroughput = Throughput { 21111, ThroughputScope::PerGpu };
    s.pricePerGpuHourUsd = rememberedPrice(s.cluster.hardware.id);
    // The VECTOR Labs cost article's reading: the cluster for 90 days, and what 60% MFU would be worth.
    s.cost.days = 90;
    s.cost.targetMfu = 0.6;
    return s;
}

} // namespace mfu::widgets
