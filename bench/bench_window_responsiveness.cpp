// The window's responsiveness with the largest models: for each edit, how long the GUI thread is blocked before it can
// take the next keystroke (the edit's own call, and the longest gap in a 1 ms heartbeat while the panels catch up),
// and how long until the first figure of the new scenario is shown (the Calculator's MFU) and until the Predict
// panel's headline is current. The baseline, in the same run, is the default scenario (Llama 3.1 8B on one B200),
// which every panel handles in a few milliseconds. Goals (issue "A window that never freezes"): first figures within
// 100 ms, the GUI thread never blocked more than 50 ms.
//
// Runs offscreen (QT_QPA_PLATFORM=offscreen is set when no platform is given). Usage:
//   bench_window_responsiveness [model-id ...]     default: deepseek-v4-pro kimi-k3 llama-3.1-405b qwen3.5-397b-a17b
#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "app/main_window.h"
#include "app/preset_store.h"
#include "widgets/calculator/calculator_panel.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/scenario_model.h"

using namespace mfu;

namespace {

// The longest time between two ticks of a 1 ms timer on the GUI thread: how long input would have waited.
class Heartbeat {
public:
    Heartbeat()
    {
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            m_longestGapNs = std::max(m_longestGapNs, now - m_lastNs);
            m_lastNs = now;
        });
    }
    void start()
    {
        m_clock.start();
        m_lastNs = 0;
        m_longestGapNs = 0;
        m_timer.start();
    }
    double stopMs()
    {
        m_timer.stop();
        m_longestGapNs = std::max(m_longestGapNs, m_clock.nsecsElapsed() - m_lastNs);
        return m_longestGapNs / 1e6;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    qint64 m_longestGapNs = 0;
};

struct EditFigures {
    double callMs = 0; // the setter's own time on the GUI thread
    double firstFigureMs = 0; // until the Calculator's MFU shows the new scenario's figure
    double headlineMs = 0; // until the Predict panel's headline is current
    double longestBlockMs = 0; // the longest heartbeat gap from the edit until everything settled
};

// Runs one edit and the event loop until the panels are current (or 120 s).
EditFigures measure(app::MainWindow& w, const std::function<void()>& edit)
{
    auto* calculator = w.findChild<widgets::CalculatorPanel*>();
    auto* predict = w.findChild<widgets::PredictPanel*>();
    auto* mfu = calculator->findChild<QLabel*>(QStringLiteral("flopsPerToken"));
    const QString before = mfu->text();
    Heartbeat heartbeat;
    EditFigures f;
    QElapsedTimer clock;
    heartbeat.start();
    clock.start();
    edit();
    f.callMs = clock.nsecsElapsed() / 1e6;
    while (clock.elapsed() < 120000) {
        if (f.firstFigureMs == 0 && calculator->figuresCurrent())
            f.firstFigureMs = clock.nsecsElapsed() / 1e6;
        if (f.headlineMs == 0 && predict->headlineCurrent())
            f.headlineMs = clock.nsecsElapsed() / 1e6;
        if (f.firstFigureMs > 0 && f.headlineMs > 0)
            break;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    f.longestBlockMs = heartbeat.stopMs();
    (void)before;
    return f;
}

void print(const char* what, const EditFigures& f)
{
    std::printf("  %-34s call %8.1f ms   first figure %8.1f ms   headline %8.1f ms   longest block %8.1f ms\n", what,
        f.callMs, f.firstFigureMs, f.headlineMs, f.longestBlockMs);
}

void run(app::MainWindow& w, const ModelSpec& model, const HardwareSpec& gpu, int gpus)
{
    auto* scenario = w.scenarioModel();
    std::printf("%s on %d x %s\n", model.id.c_str(), gpus, gpu.id.c_str());
    print("open the model", measure(w, [&] {
        Scenario s = scenario->scenario();
        s.model = model;
        s.cluster.hardware = gpu;
        s.cluster.gpuCount = gpus;
        s.workload.seqLen = 8192;
        scenario->setScenario(s);
    }));
    print("GPU count doubled", measure(w, [&] { scenario->setGpuCount(gpus * 2); }));
    print("sequence 8k -> 32k", measure(w, [&] { scenario->setSeqLen(32768); }));
    print("precision BF16 -> BF16+FP8", measure(w, [&] { scenario->setPrecision(TrainingPrecision::BF16_FP8); }));
    print("micro-batch 1 -> 2", measure(w, [&] { scenario->setMicroBatch(2); }));
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QElapsedTimer startup;
    startup.start();
    app::MainWindow w;
    w.resize(1280, 720);
    w.show();
    QCoreApplication::processEvents();
    std::printf("window constructed and shown in %.1f ms\n", startup.nsecsElapsed() / 1e6);

    const auto& presets = app::presetLibrary();
    const HardwareSpec* h100 = presets.findHardware("h100-sxm");
    const ModelSpec* baseline = presets.findModel("llama-3.1-8b");
    if (!h100 || !baseline) {
        std::fprintf(stderr, "bench_window_responsiveness: h100-sxm or llama-3.1-8b missing from the presets\n");
        return 1;
    }
    std::printf("baseline (the default scenario's model):\n");
    run(w, *baseline, *h100, 8);
    std::vector<std::string> ids;
    for (int i = 1; i < argc; ++i)
        ids.emplace_back(argv[i]);
    if (ids.empty())
        ids = { "deepseek-v4-pro", "kimi-k3", "llama-3.1-405b", "qwen3.5-397b-a17b" };
    for (const std::string& id : ids) {
        const ModelSpec* m = presets.findModel(id);
        if (!m) {
            std::fprintf(stderr, "bench_window_responsiveness: no model preset '%s'\n", id.c_str());
            return 1;
        }
        run(w, *m, *h100, 1024);
    }
    return 0;
}
