#include "widgets/start/start_panel.h"

#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/model/mfu.h"
#include "widgets/cost/price_memory.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

QLabel* paragraph(const QString& html)
{
    auto* label = new QLabel(html);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    return label;
}

} // namespace

StartPanel::StartPanel(ScenarioModel& scenario, const PresetLibrary& presets, QWidget* parent)
    : QWidget(parent)
    , m_scenario(scenario)
    , m_presets(presets)
{
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(paragraph(
        tr("<h2>MFU Explorer</h2><p>Model FLOPs Utilization = observed FLOP/s / <b>dense</b> peak FLOP/s. Edit the "
           "scenario on the left (model, GPU, GPU count, precision, sequence length, measured throughput); every "
           "panel follows.</p>")));

    auto* panels = new QGroupBox(tr("What each panel answers"));
    auto* panelsLayout = new QVBoxLayout(panels);
    panelsLayout->addWidget(paragraph(
        tr("<p><b>Calculator</b>: what is my MFU, really? FLOP/token under each formula (6N, PaLM/TorchTitan, "
           "per-component), achieved TFLOPS, MFU and HFU, and a diagnosis of the figures you entered.</p>"
           "<p><b>Predict</b>: what would it be if...? The cost model's step time, memory and MFU for a "
           "parallelism layout, sweeps over sequence length, GPU count and precision, and a planner that searches "
           "for the best layout that fits.</p>"
           "<p><b>Trace</b>: where does my step time go? Open a PyTorch profiler trace (.json, .json.gz), an Nsight "
           "Systems SQLite export, or a folder of per-rank traces (File &gt; Open, or drop them on the window).</p>"
           "<p><b>Cost</b>: what is it worth? GPU-hours, days and dollars of a job, and what an MFU uplift saves.</p>"
           "<p>Every chart exports to PNG, SVG, PDF and CSV from its context menu; File &gt; Export Report writes "
           "the whole scenario as a PDF. The same numbers come from the command line: "
           "<code>mfu-explorer --help</code>.</p>")));
    layout->addWidget(panels);

    auto* demos = new QGroupBox(tr("Worked examples (one click each)"));
    auto* demosLayout = new QVBoxLayout(demos);
    auto addDemo = [this, demosLayout](Demo demo, const QString& text, const QString& name) {
        auto* button = new QPushButton(text);
        button->setAccessibleName(name);
        button->setStyleSheet(QStringLiteral("text-align: left; padding: 6px;"));
        connect(button, &QPushButton::clicked, this, [this, demo] { runDemo(demo); });
        demosLayout->addWidget(button);
    };
    addDemo(Demo::Llama8BOnOneB200,
        tr("Llama 3.1 8B on one B200 at 21,111 tokens/s: 57.9 GFLOP/token, 1,223 TFLOPS, 54.3% MFU"),
        tr("Demo: Llama 3.1 8B on one B200"));
    addDemo(Demo::SevenBOnEightH100, tr("A 7B model on 8 x H100, 8 x 4,096 tokens per 1.2 s step: 14.5% MFU with 6N"),
        tr("Demo: 7B model on 8 H100"));
    addDemo(Demo::Llama70BTorchTitanDefault,
        tr("Llama 3.1 70B on 16 x B200 with TorchTitan's default TP 8 + full checkpointing: ask the planner"),
        tr("Demo: Llama 3.1 70B default configuration"));
    layout->addWidget(demos);
    layout->addStretch(1);
}

bool StartPanel::runDemo(Demo demo)
{
    const char* modelId = demo == Demo::Llama70BTorchTitanDefault ? "llama-3.1-70b" : "llama-3.1-8b";
    const char* gpuId = demo == Demo::SevenBOnEightH100 ? "h100-sxm" : "b200";
    const ModelSpec* model = m_presets.findModel(modelId);
    const HardwareSpec* gpu = m_presets.findHardware(gpuId);
    if (!model || !gpu) {
        emit demoFailed(
            tr("The demo needs the presets '%1' and '%2'.").arg(QLatin1String(modelId), QLatin1String(gpuId)));
        return false;
    }
    if (m_gate && !m_gate())
        return false;
    // Each demo starts from the default scenario and the defaults of everything it does not set (measured
    // throughput, measured points, price, cost inputs, how the throughput is entered), never from the user's edits.
    emit demoStarting();
    switch (demo) {
    case Demo::Llama8BOnOneB200:
        m_scenario.setScenario(defaultScenario(m_presets), true);
        emit showPanel(Panel::Calculator);
        break;
    case Demo::SevenBOnEightH100: {
        Scenario s = defaultScenario(m_presets);
        s.model = bareModel(7'000'000'000, "7B model (MFU tutorial)");
        s.cluster.hardware = *gpu;
        s.costModel = m_presets.costModelFor(gpu->id);
        s.cluster.gpuCount = 8;
        s.workload.seqLen = 4096;
        s.workload.microBatch = 1;
        s.workload.globalBatchTokens = 8 * 4096;
        s.pricePerGpuHourUsd = rememberedPrice(gpu->id); // the H100's, not the default scenario's B200 price
        // The tutorial states a step time: entered as one (1.2 s per step of 8 x 4,096 tokens), in one change.
        s.measuredThroughput = throughputFromStep(1.2, 8.0 * 4096);
        m_scenario.restore({ s, ThroughputInput::StepTime, 1.2 });
        emit showPanel(Panel::Calculator);
        break;
    }
    case Demo::Llama70BTorchTitanDefault: {
        Scenario s = defaultScenario(m_presets);
        s.model = *model;
        s.cluster.hardware = *gpu;
        s.costModel = m_presets.costModelFor(gpu->id);
        s.cluster.gpuCount = 16;
        s.workload.seqLen = 8192;
        s.workload.microBatch = 1;
        s.workload.globalBatchTokens = 0;
        s.parallelism = Parallelism {};
        s.parallelism.tp = 8;
        s.activationCheckpointing = ActivationCheckpointing::Full;
        s.measuredThroughput.reset(); // a prediction: nothing measured, and the throughput input back to tokens/s
        s.pricePerGpuHourUsd = rememberedPrice(gpu->id);
        m_scenario.restore({ s, ThroughputInput::TokensPerSecPerGpu, 0 });
        emit showPanel(Panel::Predict);
        break;
    }
    }
    emit demoApplied();
    return true;
}

} // namespace mfu::widgets
