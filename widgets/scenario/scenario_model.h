#pragma once
// ScenarioModel: the window's one Scenario, shared by the editor and every panel. Setters change one field and emit
// changed() once; panels recompute from scenario() in their slot. The global batch is the scenario's, as stated (a
// loaded 4,000,000-token batch stays 4,000,000, as on the command line); gradient accumulation and the tokens a step
// processes are derived from it by the core (scenarioMicroSteps, processedTokensPerStep: whole micro-steps, rounded
// up). It also keeps how the throughput was measured and derives the measured throughput from it.
#include <QObject>

#include "core/calibration/trace_calibration.h"
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
    ThroughputInput throughputInput = ThroughputInput::TokensPerSecPerGpu;
    double throughputValue = 0;
    bool builtInExample = false;
};

class ScenarioModel : public QObject {
    Q_OBJECT
public:
    explicit ScenarioModel(QObject* parent = nullptr);

    const Scenario& scenario() const { return m_scenario; }
    // Replaces everything (a loaded scenario file, a reset); its global batch is kept as stated. `builtInExample`:
    // the window's own example (defaultScenario), which describes no run of the user's until they change it.
    void setScenario(const Scenario& scenario, bool builtInExample = false);
    // Whether the scenario is still the window's example, untouched: a trace that records nothing of its run (no GPU)
    // has its measured MFU withheld then, since nothing says the example's model ran it.
    bool isBuiltInExample() const { return m_builtInExample; }

    // The example's measured throughput is a fact about its run: the model it trained, on the GPU it ran on. While
    // the scenario is the example, another model (by id) or another GPU clears it (Undo brings it back) rather than
    // read as that model's or GPU's MFU; a measurement the user gave stays.
    void setModel(const ModelSpec& model);
    // The hardware and the cost-model constants that go with it (its preset's "cost_model"; none: the defaults).
    void setHardware(const HardwareSpec& hardware, const std::optional<CostModelConstants>& costModel = std::nullopt);
    // Calibration: the constants every prediction of this hardware uses from now on (none: back to the defaults).
    void setCostModel(const std::optional<CostModelConstants>& costModel);
    // GPU count, sequence length and micro-batch change the tokens of a micro-step; the gradient accumulation is kept
    // (the global batch follows), as a framework's config keeps its accumulation steps.
    void setGpuCount(int gpus);
    // The cluster's own network per GPU, Gb/s one way, in place of the GPU preset's typical one (the command line's
    // --scale-out-gbps; core/model/hardware_spec.h, setStatedScaleOut). Another GPU brings its preset's back.
    void setNetworkGbitPerSec(double gbitPerSec);
    void setPrecision(TrainingPrecision precision);
    void setSeqLen(int64_t seqLen);
    void setMicroBatch(int64_t microBatch);
    // The global batch becomes gradAccum whole micro-steps.
    void setGradAccum(int64_t gradAccum);
    // The FLOP/token convention MFU is reported in, everywhere in the window (core/model/flops.h).
    void setMfuFormula(FlopFormula formula);
    // value: tokens/s for the tokens/s inputs, seconds for StepTime. A value <= 0 clears the measurement.
    void setThroughput(ThroughputInput input, double value);
    // The same measurement stated another way: the value is converted (tokens/s per GPU x GPUs = cluster tokens/s;
    // step time = tokens per step / cluster tokens/s), never reinterpreted.
    void setThroughputInput(ThroughputInput input);
    // Parallelism, checkpointing, framework flags and micro-batch at once (Predict panel edits, planner "Apply").
    // Keeps the global batch in tokens: gradient accumulation is re-derived for the new data-parallel degree.
    void setConfiguration(const Parallelism& parallelism, ActivationCheckpointing checkpointing,
        const FrameworkFlags& flags, int64_t microBatch);
    // The global batch as given; a batch that is not whole micro-steps runs rounded up (globalBatchRoundingNote).
    void setGlobalBatchTokens(int64_t tokens);
    // Documents packed into each sequence, their attention mask and the padding kept (core/model/packing.h); the
    // caller has validated it against the sequence length.
    void setPacking(const SequencePacking& packing);
    // Vision tokens of a vision-language run (validated by the caller against the sequence length).
    void setVision(const VisionWorkload& vision);
    // Multi-token-prediction layers trained beside the model (Workload::mtpLayers).
    void setMtpLayers(int layers);
    // Cost panel inputs. A change to another GPU resets the price to the one remembered for it (price_memory.h), else
    // its preset's typical price; the same GPU with other constants (calibration) keeps the scenario's price.
    void setPricePerGpuHour(std::optional<double> pricePerGpuHourUsd);
    void setCostInputs(const CostInputs& inputs);
    // What an opened trace or log states, adopted at once (one change, one undo step): its GPU (price as for
    // setHardware; a GPU without BF16 trains in FP16, so a BF16 run on it becomes FP16's 16-bit one), GPU count,
    // sequence length, tokens per step (the global batch) and, when given, a model (a log's implied size).
    // `attentionKernel`: the kernel the trace's attention ran on, for the cost model (Predict) to model that one;
    // `compiled`: whether it ran under torch.compile; `microBatch`: the sequences per GPU of its micro-steps;
    // `autocast`: whether it cast FP32 weights to 16 bits every step (torch.autocast over an FP32 model).
    void adoptFileFacts(const HardwareSpec* hardware, std::optional<int> gpus, std::optional<int64_t> seqLen,
        std::optional<int64_t> tokensPerStep, const ModelSpec* model = nullptr,
        std::optional<TrainingPrecision> precision = std::nullopt,
        std::optional<AttentionKernel> attentionKernel = std::nullopt, std::optional<bool> compiled = std::nullopt,
        std::optional<int64_t> microBatch = std::nullopt, std::optional<double> tokensPerSecPerGpu = std::nullopt,
        std::optional<bool> autocast = std::nullopt);

    ScenarioModelState state() const;
    void restore(const ScenarioModelState& state);

    int64_t gradAccum() const; // scenarioMicroSteps: 0 while the layout is invalid
    ThroughputInput throughputInput() const { return m_throughputInput; }
    double throughputValue() const { return m_throughputValue; }
    // GPUs that each take their own micro-batch: gpus / (tp x pp x cp) (core/scenario/scenario_facts.h); 0 while the
    // layout is invalid (layoutError() says why), and then tokensPerStep() is 0 too.
    int dataParallelRanks() const;
    // The tokens a step processes (processedTokensPerStep): the global batch in whole micro-steps.
    int64_t tokensPerStep() const;
    // Why the parallel degrees or the batch give no tokens per micro-step; empty when they do.
    QString layoutError() const;

    // A calibration from a trace (core/calibration/): Predict shows its prediction beside the uncalibrated one. Not
    // part of the scenario (never saved with it, never undone with it): a lens on the model, set from the Trace panel.
    const std::optional<TraceCalibration>& traceCalibration() const { return m_traceCalibration; }
    const QString& traceCalibrationSource() const { return m_traceCalibrationSource; }
    void setTraceCalibration(std::optional<TraceCalibration> calibration, const QString& source);

signals:
    void changed();
    void traceCalibrationChanged();

private:
    void deriveAndNotify(bool builtInExample = false);
    // Before a change to the micro-step's shape: the accumulation to keep across it.
    int64_t accumulationToKeep() const;
    void keepAccumulation(int64_t gradAccum);

    Scenario m_scenario;
    std::optional<TraceCalibration> m_traceCalibration;
    QString m_traceCalibrationSource;
    ThroughputInput m_throughputInput = ThroughputInput::TokensPerSecPerGpu;
    double m_throughputValue = 0;
    bool m_builtInExample = false;
};

// What the window starts on (Lambda's MFU paper's worked example): Llama 3.1 8B on one B200, BF16, S = 8192, 21,111
// tokens/s per GPU.
Scenario defaultScenario(const PresetLibrary& presets);

} // namespace mfu::widgets
