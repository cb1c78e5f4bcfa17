#pragma once
// ScenarioModel: the window's one Scenario, shared by the editor and every panel. Setters change one field and emit
// changed() once; panels recompute from scenario() in their slot. It also keeps the editor inputs that a Scenario
// does not store directly (gradient accumulation, how the throughput was measured) and derives from them the
// scenario's tokens per step and measured throughput, so the two can never disagree.
#include <QObject>

#include "core/presets/presets.h"
#include "core/scenario/scenario.h"

namespace mfu::widgets {

// How the user states the measured throughput.
enum class ThroughputInput {
    TokensPerSecPerGpu,
    TokensPerSecCluster,
    StepTime // seconds per optimizer step; tokens per step from micro-batch x sequence x grad. accum. x DP ranks
};

// Everything undo must restore: the scenario and the editor inputs it is derived from (so undoing an edit made in
// step-time mode gives back step-time mode, not the tokens/s it was converted to).
struct ScenarioModelState {
    Scenario scenario;
    int64_t gradAccum = 1;
    ThroughputInput throughputInput = ThroughputInput::TokensPerSecPerGpu;
    double throughputValue = 0;
};

class ScenarioModel : public QObject {
    Q_OBJECT
public:
    explicit ScenarioModel(QObject* parent = nullptr);

    const Scenario& scenario() const { return m_scenario; }
    // Replaces everything (a loaded scenario file, a reset); gradient accumulation is derived from its batch.
    void setScenario(const Scenario& scenario);

    void setModel(const ModelSpec& model);
    // The hardware and the cost-model constants that go with it (its preset's "cost_model"; none: the defaults).
    void setHardware(const HardwareSpec& hardware, const std::optional<CostModelConstants>& costModel = std::nullopt);
    // Calibration: the constants every prediction of this hardware uses from now on (none: back to the defaults).
    void setCostModel(const std::optional<CostModelConstants>& costModel);
    void setGpuCount(int gpus);
    void setPrecision(TrainingPrecision precision);
    void setSeqLen(int64_t seqLen);
    void setMicroBatch(int64_t microBatch);
    void setGradAccum(int64_t gradAccum);
    // value: tokens/s for the tokens/s inputs, seconds for StepTime. A value <= 0 clears the measurement.
    void setThroughput(ThroughputInput input, double value);
    // The same measurement stated another way: the value is converted (tokens/s per GPU x GPUs = cluster tokens/s;
    // step time = tokens per step / cluster tokens/s), never reinterpreted.
    void setThroughputInput(ThroughputInput input);
    // Parallelism, checkpointing, framework flags and micro-batch at once (Predict panel edits, planner "Apply").
    // Keeps the global batch in tokens: gradient accumulation is re-derived for the new data-parallel degree.
    void setConfiguration(const Parallelism& parallelism, ActivationCheckpointing checkpointing,
        const FrameworkFlags& flags, int64_t microBatch);
    // Rounds down to whole micro-batches per data-parallel rank (at least one).
    void setGlobalBatchTokens(int64_t tokens);
    // Documents packed into each sequence, their attention mask and the padding kept (core/model/packing.h); the
    // caller has validated it against the sequence length.
    void setPacking(const SequencePacking& packing);
    // Vision tokens of a vision-language run (validated by the caller against the sequence length).
    void setVision(const VisionWorkload& vision);
    // Cost panel inputs. A change to another GPU resets the price to the one remembered for it (price_memory.h), else
    // its preset's typical price; the same GPU with other constants (calibration) keeps the scenario's price.
    void setPricePerGpuHour(std::optional<double> pricePerGpuHourUsd);
    void setCostInputs(const CostInputs& inputs);
    // What an opened trace or log states, adopted at once (one change, one undo step): its GPU (price as for
    // setHardware), GPU count, sequence length and tokens per step (whole micro-batches per data-parallel rank).
    void adoptFileFacts(const HardwareSpec* hardware, std::optional<int> gpus, std::optional<int64_t> seqLen,
        std::optional<int64_t> tokensPerStep);

    ScenarioModelState state() const;
    void restore(const ScenarioModelState& state);

    int64_t gradAccum() const { return m_gradAccum; }
    ThroughputInput throughputInput() const { return m_throughputInput; }
    double throughputValue() const { return m_throughputValue; }
    // GPUs that each take their own micro-batch: gpus / (tp x pp x cp) (core/scenario/scenario_facts.h); 0 while the
    // layout is invalid (layoutError() says why), and then tokensPerStep() is 0 too.
    int dataParallelRanks() const;
    int64_t tokensPerStep() const;
    // Why the parallel degrees or the batch give no tokens per micro-step; empty when they do.
    QString layoutError() const;

signals:
    void changed();

private:
    void deriveAndNotify();

    Scenario m_scenario;
    int64_t m_gradAccum = 1;
    ThroughputInput m_throughputInput = ThroughputInput::TokensPerSecPerGpu;
    double m_throughputValue = 0;
};

// What the window starts on (Lambda's MFU paper's worked example): Llama 3.1 8B on one B200, BF16, S = 8192, 21,111
// tokens/s per GPU.
Scenario defaultScenario(const PresetLibrary& presets);

} // namespace mfu::widgets
