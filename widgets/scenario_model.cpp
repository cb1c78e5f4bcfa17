#include "widgets/scenario_model.h"

#include <algorithm>

#include "widgets/price_memory.h"

namespace mfu::widgets {

ScenarioModel::ScenarioModel(QObject* parent)
    : QObject(parent)
{
}

void ScenarioModel::setScenario(const Scenario& scenario)
{
    m_scenario = scenario;
    const Workload& w = scenario.workload;
    const int64_t perMicroStep = std::max<int64_t>(1, w.microBatch * w.seqLen * dataParallelRanks());
    m_gradAccum = scenario.workload.globalBatchTokens > 0
        ? std::max<int64_t>(1, scenario.workload.globalBatchTokens / perMicroStep)
        : 1;
    if (scenario.measuredThroughput) {
        m_throughputInput = scenario.measuredThroughput->scope == ThroughputScope::PerGpu
            ? ThroughputInput::TokensPerSecPerGpu
            : ThroughputInput::TokensPerSecCluster;
        m_throughputValue = scenario.measuredThroughput->tokensPerSec;
    } else {
        m_throughputValue = 0;
    }
    deriveAndNotify();
}

void ScenarioModel::setModel(const ModelSpec& model)
{
    m_scenario.model = model;
    deriveAndNotify();
}

void ScenarioModel::setHardware(const HardwareSpec& hardware, const std::optional<CostModelConstants>& costModel)
{
    m_scenario.cluster.hardware = hardware;
    m_scenario.costModel = costModel;
    m_scenario.pricePerGpuHourUsd = rememberedPrice(hardware.id);
    deriveAndNotify();
}

void ScenarioModel::setCostModel(const std::optional<CostModelConstants>& costModel)
{
    m_scenario.costModel = costModel;
    deriveAndNotify();
}

void ScenarioModel::setGpuCount(int gpus)
{
    m_scenario.cluster.gpuCount = gpus;
    deriveAndNotify();
}

void ScenarioModel::setPrecision(TrainingPrecision precision)
{
    m_scenario.precision = precision;
    deriveAndNotify();
}

void ScenarioModel::setSeqLen(int64_t seqLen)
{
    m_scenario.workload.seqLen = seqLen;
    deriveAndNotify();
}

void ScenarioModel::setMicroBatch(int64_t microBatch)
{
    m_scenario.workload.microBatch = microBatch;
    deriveAndNotify();
}

void ScenarioModel::setGradAccum(int64_t gradAccum)
{
    m_gradAccum = gradAccum;
    deriveAndNotify();
}

void ScenarioModel::setThroughput(ThroughputInput input, double value)
{
    m_throughputInput = input;
    m_throughputValue = value;
    deriveAndNotify();
}

void ScenarioModel::setConfiguration(const Parallelism& parallelism, ActivationCheckpointing checkpointing,
    const FrameworkFlags& flags, int64_t microBatch)
{
    const int64_t batch = tokensPerStep();
    m_scenario.parallelism = parallelism;
    m_scenario.activationCheckpointing = checkpointing;
    m_scenario.flags = flags;
    m_scenario.workload.microBatch = microBatch;
    setGlobalBatchTokens(batch);
}

void ScenarioModel::setGlobalBatchTokens(int64_t tokens)
{
    const Workload& w = m_scenario.workload;
    const int64_t perMicroStep = std::max<int64_t>(1, w.microBatch * w.seqLen * dataParallelRanks());
    m_gradAccum = std::max<int64_t>(1, tokens / perMicroStep);
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

ScenarioModelState ScenarioModel::state() const
{
    return { m_scenario, m_gradAccum, m_throughputInput, m_throughputValue };
}

void ScenarioModel::restore(const ScenarioModelState& state)
{
    m_scenario = state.scenario;
    m_gradAccum = state.gradAccum;
    m_throughputInput = state.throughputInput;
    m_throughputValue = state.throughputValue;
    deriveAndNotify();
}

int ScenarioModel::dataParallelRanks() const
{
    const Parallelism& p = m_scenario.parallelism;
    const int modelParallel = std::max(1, p.tp * p.pp * p.cp);
    return std::max(1, m_scenario.cluster.gpuCount / modelParallel);
}

int64_t ScenarioModel::tokensPerStep() const
{
    const Workload& w = m_scenario.workload;
    if (w.microBatch <= 0 || w.seqLen <= 0 || m_gradAccum <= 0)
        return 0;
    return mfu::tokensPerStep(w.microBatch, w.seqLen, m_gradAccum, dataParallelRanks());
}

// The batch and the measurement follow from the editor inputs; invalid inputs (zero or negative) leave the
// measurement empty so panels show "no measurement" instead of a wrong number.
void ScenarioModel::deriveAndNotify()
{
    m_scenario.workload.globalBatchTokens = tokensPerStep();
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
