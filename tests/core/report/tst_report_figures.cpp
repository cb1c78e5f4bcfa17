// The report's key figures: each row's text comes from the core function that owns the number, and the VECTOR Labs
// money figures appear as the article states them.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <fstream>

#include "b200_scaling_log.h"
#include "calibration_test_support.h"
#include "core/calibration/calibrated_sweep.h"
#include "core/calibration/calibration_text.h"
#include "core/costmodel/cost_model.h"
#include "core/diagnosis/log_diagnosis.h"
#include "core/facts/shown_log_mfu.h"
#include "core/number_format.h"
#include "core/presets/presets.h"
#include "core/report/hardware_options.h"
#include "core/report/report_figures.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/byte_source.h"
#include "core/trace/kernel_rules.h"
#include "core/units.h"
#include "shipped_presets.h"
#include "trace_test_support.h"

using namespace mfu;

namespace {

const PresetLibrary& presets()
{
    return test::shippedPresets();
}

// The VECTOR Labs cost article's cluster (256 H100, 90 days, $2.50, 40% -> 60%) training Llama 3.1 70B.
ScenarioDocument vectorLabsJob()
{
    ScenarioDocument d;
    d.scenario.model = *presets().findModel("llama-3.1-70b");
    d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
    d.scenario.cluster.gpuCount = 256;
    d.scenario.workload.seqLen = 8192;
    d.scenario.parallelism.tp = 8;
    d.scenario.pricePerGpuHourUsd = 2.50;
    d.scenario.cost.days = 90;
    d.scenario.cost.baselineMfu = 0.4;
    d.scenario.cost.targetMfu = 0.6;
    return d;
}

const ReportSection* section(const ReportFigures& f, const std::string& titleStart)
{
    for (const auto& s : f.sections)
        if (s.title.rfind(titleStart, 0) == 0)
            return &s;
    return nullptr;
}

const ReportRow* row(const ReportSection* s, const std::string& label)
{
    if (!s)
        return nullptr;
    for (const auto& r : s->rows)
        if (r.label == label)
            return &r;
    return nullptr;
}

bool hasNote(const ReportFigures& f, const std::string& start)
{
    for (const auto& n : f.notes)
        if (n.rfind(start, 0) == 0)
            return true;
    return false;
}

} // namespace

class TestReportFigures : public QObject {
    Q_OBJECT
private slots:
    void vectorLabsMoney()
    {
        const ReportFigures f = reportFigures(vectorLabsJob());
        const ReportRow* cost = row(section(f, "Cost of the job"), "Cost");
        QVERIFY(cost);
        QCOMPARE(cost->value, std::string("$1,382,400"));
        QCOMPARE(row(section(f, "Cost of the job"), "GPU-hours")->value, std::string("552,960"));
        QCOMPARE(row(section(f, "Cost of the job"), "MFU")->note, std::string("given"));
        const ReportSection* savings = section(f, "Savings from 40.00% to 60.00% MFU");
        QVERIFY(savings);
        QCOMPARE(row(savings, "Productive GPU-equivalents")->value, std::string("102.4 -> 153.6"));
        QCOMPARE(row(savings, "Recovered (same GPU-hours)")->value, std::string("51.2 GPU-equivalents"));
        QCOMPARE(row(savings, "Recovered (same GPU-hours)")->note, std::string("worth $276,480"));
        QCOMPARE(row(savings, "Time saved (same tokens)")->value, std::string("33.33%"));
        QCOMPARE(row(savings, "Saved (same tokens)")->value, std::string("$460,800"));
    }

    void flopRowsAndPrediction()
    {
        const ScenarioDocument d = vectorLabsJob();
        const ReportFigures f = reportFigures(d);
        const auto flops = countFlopsPerToken(d.scenario.model, 8192);
        const ReportSection* s = section(f, "FLOP per token");
        QVERIFY(s);
        QCOMPARE(s->rows.size(), size_t(5)); // six_n, palm, per_layer (the scenario's), per_component, causal
        // Rows carry the names people read, never the file format's keys.
        QCOMPARE(row(s, "6N")->value, formatGflop(flops.sixN));
        const std::string palm(flopFormulaLabel(FlopFormula::PaLM));
        QVERIFY(palm.find("PaLM") != std::string::npos);
        QCOMPARE(row(s, palm)->value, formatGflop(*flops.palm));
        const std::string perLayer(flopFormulaLabel(FlopFormula::PerLayer));
        QCOMPARE(row(s, perLayer)->value, formatGflop(*flops.perLayer));
        QVERIFY(row(s, perLayer)->note.find("the scenario's MFU formula") != std::string::npos);
        QCOMPARE(row(s, std::string(flopFormulaLabel(FlopFormula::PerComponentCausal)))->value,
            formatGflop(*flops.perComponentCausal));
        // (A file key is lower-case snake_case; "N_emb" in the PaLM formula is the formula's own notation.)
        for (const ReportRow& r : s->rows)
            QVERIFY2(!(r.label.find('_') != std::string::npos
                         && std::all_of(r.label.begin(), r.label.end(),
                             [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; })),
                r.label.c_str());
        // A dense 70B on 256 H100 with TP 8: the cost model predicts, and its MFU row matches its own number.
        QVERIFY(f.predicted);
        QCOMPARE(row(section(f, "Predicted"), "MFU")->value, formatPercent(f.predicted->mfu));
        // The step's micro-steps (gradient accumulation), never "micro-batches", which the micro-batch size also is.
        const std::string steps = row(section(f, "Predicted"), "Step time")->note;
        QVERIFY2(steps.find(std::to_string(f.predicted->gradAccumSteps) + " micro-step") == 0, steps.c_str());
        QVERIFY(hasNote(f, "Measured MFU: no measured throughput"));
    }

    // A calibration comes right after the prediction it stands beside, with the figures the Predict panel and
    // `predict --calibration` compute for it (one call: calibratedPrediction at the scenario's uncalibrated band);
    // one for another model is a note, never a section of wrong figures.
    void calibratedPredictionBesideTheUncalibrated()
    {
        ScenarioDocument d = vectorLabsJob();
        d.scenario.cost.baselineMfu.reset(); // the job is costed at the prediction
        ReportOptions options;
        options.calibration
            = ReportCalibration { test::matmulsFasterThanPredicted(d.scenario), "h100.calibration.json" };
        const ReportFigures f = reportFigures(d, options);
        const auto predicted = std::find_if(f.sections.begin(), f.sections.end(),
            [](const ReportSection& s) { return s.title == "Predicted by the cost model"; });
        QVERIFY(predicted != f.sections.end() && predicted + 1 != f.sections.end());
        QCOMPARE((predicted + 1)->title, std::string("Calibrated to a trace"));
        QVERIFY(f.predicted && f.calibrated);
        const StepPrediction p = evaluate(d.scenario);
        const CalibratedPrediction expected = calibratedPrediction(d.scenario, options.calibration->calibration, p,
            relativeStepBandHalfWidth(errorBandFor(d.scenario, p, {}), p));
        QCOMPARE(f.calibrated->calibrated.mfu, expected.calibrated.mfu);
        QVERIFY(f.calibrated->calibrated.mfu > f.predicted->mfu); // matmuls 20% faster than modelled
        const ReportSection* s = section(f, "Calibrated to a trace");
        QCOMPARE(row(s, "Calibration")->value, std::string("h100.calibration.json"));
        QCOMPARE(row(s, "Calibrated")->value, calibratedFiguresText(expected));
        QVERIFY(
            row(s, "Calibrated")->value.find("(uncalibrated " + formatPercent(f.predicted->mfu)) != std::string::npos);
        QVERIFY2(row(s, "Traced matmuls")->value.find("factor 0.800") != std::string::npos,
            row(s, "Traced matmuls")->value.c_str());
        // The traced run itself: every term as the trace measured it.
        QCOMPARE(expected.terms.front().term, CalibratedTerm::Matmul);
        QCOMPARE(row(s, "Matmuls in this scenario")->value,
            formatMilliseconds(expected.terms.front().seconds) + ", measured");
        QVERIFY(!row(s, "Traced exposed communication") || f.predicted->time.exposedCommTotal() > 0);
        QVERIFY(!row(s, "Traced GEMM shapes")); // the synthetic calibration recorded none
        // The job is costed at the calibrated MFU the section above shows, and says so.
        QVERIFY(f.cost);
        QCOMPARE(f.cost->baselineOrigin, MfuOrigin::Calibrated);
        QCOMPARE(f.cost->baselineMfu, f.calibrated->calibrated.mfu);
        QCOMPARE(row(section(f, "Cost of the job"), "MFU")->value, formatPercent(f.calibrated->calibrated.mfu));
        QCOMPARE(row(section(f, "Cost of the job"), "MFU")->note,
            std::string("predicted by the cost model, calibrated to a trace"));

        // The sweeps' calibrated lines: each point as calibratedSweepMfu gives it, beside the uncalibrated one.
        ReportOptions withSweeps = options;
        withSweeps.sweeps = true;
        const ReportFigures swept = reportFigures(d, withSweeps);
        QVERIFY(!swept.sweeps.empty());
        QCOMPARE(swept.calibratedSweepMfu.size(), swept.sweeps.size());
        const SweepResult& seq = swept.sweeps.front();
        QCOMPARE(seq.axis, SweepAxis::SeqLen);
        const auto line = calibratedSweepMfu(d.scenario, seq, options.calibration->calibration);
        QCOMPARE(swept.calibratedSweepMfu.front(), line);
        QVERIFY(std::count_if(line.begin(), line.end(), [](const auto& v) { return v.has_value(); }) >= 2);

        ScenarioDocument other = d;
        other.scenario.model = *presets().findModel("llama-3.1-8b");
        const ReportFigures o = reportFigures(other, options);
        QVERIFY(!section(o, "Calibrated to a trace"));
        QVERIFY(!o.calibrated);
        QVERIFY(hasNote(o, "Calibration (h100.calibration.json): not for this scenario: "));
        QVERIFY(o.cost && o.cost->baselineOrigin != MfuOrigin::Calibrated); // not for this model: not its price
    }

    void measuredMfu()
    {
        // Tokens/s per GPU chosen so that MFU is exactly 40%: 0.4 x 989e12 / PaLM FLOP per token.
        ScenarioDocument d = vectorLabsJob();
        const double palm = *countFlopsPerToken(d.scenario.model, 8192).palm;
        d.scenario.measuredThroughput = Throughput { 0.4 * 989e12 / palm, ThroughputScope::PerGpu };
        d.scenario.cost.baselineMfu.reset(); // the job is then costed at the measured MFU
        const ReportFigures f = reportFigures(d);
        QVERIFY(f.measured);
        QCOMPARE(f.measured->mfu, 0.4);
        QCOMPARE(row(section(f, "Measured"), "MFU")->value, std::string("40.00%"));
        QCOMPARE(row(section(f, "Measured"), "Achieved")->value, std::string("395.6 TFLOPS per GPU"));
        QCOMPARE(row(section(f, "Cost of the job"), "MFU")->note, std::string("measured"));
        QCOMPARE(row(section(f, "Cost of the job"), "Cost")->value, std::string("$1,382,400"));
        // The diagnosis of the measured figures: consistent figures, so the corrected MFU is the measured one.
        const ReportSection* diagnosis = section(f, "Diagnosis of the measured figures");
        QVERIFY(diagnosis);
        QCOMPARE(row(diagnosis, "Corrected MFU")->value, std::string("40.00%"));
        QVERIFY(!row(diagnosis, "Error"));

        // Above 100% no figure is the run's: not shown where it stands, as the Calculator and calc say it, only how far
        // past the peak the inputs go, and the achieved TFLOPS with it.
        d.scenario.measuredThroughput = Throughput { 1.236 * 989e12 / palm, ThroughputScope::PerGpu };
        const ReportFigures impossible = reportFigures(d);
        QCOMPARE(row(section(impossible, "Measured"), "MFU")->value,
            std::string("not shown: 1.24x what the GPU can compute"));
        QCOMPARE(row(section(impossible, "Measured"), "MFU")->value, formatMeasuredMfu(1.236));
        QCOMPARE(row(section(impossible, "Measured"), "Achieved")->value,
            row(section(impossible, "Measured"), "MFU")->value);
    }

    // The Scenario section says whether the run is eager or compiled (the prediction's memory-bound time depends on
    // it), with the attention kernel the prediction assumes.
    void scenarioSaysEagerOrCompiled()
    {
        ScenarioDocument d = vectorLabsJob();
        d.scenario.flags.compiled = true;
        QCOMPARE(
            row(section(reportFigures(d), "Scenario"), "Execution")->value, std::string("compiled (torch.compile)"));
        d.scenario.flags.compiled = false;
        d.scenario.flags.attentionKernel = AttentionKernel::FlashAttention2;
        const ReportFigures eager = reportFigures(d);
        QCOMPARE(row(section(eager, "Scenario"), "Execution")->value, std::string("eager (no torch.compile)"));
        QCOMPARE(row(section(eager, "Scenario"), "Execution")->note, std::string("attention kernel: FlashAttention 2"));
    }

    // A GPU whose preset states no price (no public list price: MI350X) shows none, not "$0.00" as if it were free,
    // and the cost section is left out with a note saying what to set; the scenario's own price is shown as set.
    void scenarioWithoutAPriceShowsNone()
    {
        ScenarioDocument d = vectorLabsJob();
        d.scenario.cluster.hardware = *presets().findHardware("mi350x");
        QVERIFY(!(d.scenario.cluster.hardware.pricePerGpuHourUsd > 0));
        d.scenario.pricePerGpuHourUsd.reset();
        const ReportFigures unpriced = reportFigures(d);
        const ReportRow* price = row(section(unpriced, "Scenario"), "Price");
        QVERIFY(price);
        QCOMPARE(price->value, std::string("none"));
        QVERIFY2(price->note.find("price_per_gpu_hour_usd") != std::string::npos, price->note.c_str());
        QVERIFY(!section(unpriced, "Cost of the job"));
        QVERIFY(hasNote(unpriced, "Cost: no price per GPU-hour"));
        d.scenario.pricePerGpuHourUsd = 3.0;
        const ReportFigures priced = reportFigures(d);
        QCOMPARE(row(section(priced, "Scenario"), "Price")->value, std::string("$3.00 per GPU-hour"));
        QCOMPARE(row(section(priced, "Scenario"), "Price")->note, std::string("set in the scenario"));
        QVERIFY(section(priced, "Cost of the job"));
    }

    // The Scenario section ends with the predict command the caller gives (the application's, which knows the
    // presets), shell-quoted, or says why none states the scenario; without one, no row.
    void scenarioEndsWithItsCommand()
    {
        const ScenarioDocument d = vectorLabsJob();
        QVERIFY(!row(section(reportFigures(d), "Scenario"), "Command"));
        ReportOptions options;
        options.predictCommand
            = PredictCommand { { "predict", "--model", "llama-3.1-8b", "--pipeline-layout", "Et|tL" }, "" };
        const ReportFigures stated = reportFigures(d, options);
        const ReportRow& last = section(stated, "Scenario")->rows.back();
        QCOMPARE(last.label, std::string("Command"));
        QCOMPARE(last.value, std::string("mfu-explorer predict --model llama-3.1-8b --pipeline-layout 'Et|tL'"));
        options.predictCommand = PredictCommand { {}, "a histogram of document lengths is a file of its own" };
        const ReportFigures unstated = reportFigures(d, options);
        const ReportRow* none = row(section(unstated, "Scenario"), "Command");
        QVERIFY(none);
        QCOMPARE(none->value, std::string("none"));
        QVERIFY(none->note.find("a histogram of document lengths") != std::string::npos);
    }

    // A training log the document lists: its medians after warm-up and the diagnosis of the MFU it claims (the B200
    // scaling report's 8-GPU log: 2.61% claimed against a 36 PFLOPS "peak"; LLaMA 1.36B on B200 recomputes 39.6%).
    void trainingLogSection()
    {
        QTemporaryDir dir;
        const std::string logPath = dir.filePath(QStringLiteral("b200-8gpu.log")).toStdString();
        std::ofstream(logPath) << test::kB200ScalingLog;
        ScenarioDocument d;
        d.scenario.model = *presets().findModel("llama-1.36b");
        d.scenario.cluster.hardware = *presets().findHardware("b200");
        d.scenario.workload.seqLen = 2048;
        const std::string missing = dir.filePath(QStringLiteral("moved.log")).toStdString();
        d.trainingLogPaths = { logPath, missing };
        ReportOptions options;
        options.knownHardware = presets().hardware();
        const ReportFigures f = reportFigures(d, options);
        const ReportSection* s = section(f, "Training log: b200-8gpu.log");
        QVERIFY(s);
        QCOMPARE(row(s, "Steps")->value, std::string("3"));
        QCOMPARE(row(s, "MFU claimed")->value, std::string("2.61%"));
        QVERIFY(row(s, "Corrected MFU"));
        QCOMPARE(row(s, "Corrected MFU")->value.substr(0, 3), std::string("39."));
        QVERIFY(row(s, "Error") || row(s, "Warning")); // the 36 PFLOPS peak is not one B200's
        QCOMPARE(row(section(f, "Training log: moved.log"), "Missing")->value, missing);
        QCOMPARE(row(section(f, "Scenario"), "Training logs")->value, logPath);
        QVERIFY(!row(s, "Device memory")); // the log states none
    }

    // A log that states no tokens per step takes the scenario's, counted as the window counts them (issue 34): a
    // global batch of 4,000,000 tokens in micro-steps of 65,536 (one 8,192-token sequence on each of 8 GPUs) is 62
    // micro-steps, 4,063,232 tokens, 1.6% more than the stated batch the report used to divide by.
    void trainingLogTakesTheWindowsTokensPerStep()
    {
        QTemporaryDir dir;
        const std::string logPath = dir.filePath(QStringLiteral("nanogpt.log")).toStdString();
        std::ofstream(logPath) << "iter 1: loss 3.2000, time 30000.00ms, mfu 30.00%\n"
                                  "iter 2: loss 3.1000, time 30000.00ms, mfu 30.00%\n"
                                  "iter 3: loss 3.0000, time 30000.00ms, mfu 30.00%\n";
        ScenarioDocument d;
        d.scenario.model = *presets().findModel("llama-3.1-8b");
        d.scenario.cluster.hardware = *presets().findHardware("b200");
        d.scenario.cluster.gpuCount = 8;
        d.scenario.workload.seqLen = 8192;
        d.scenario.workload.globalBatchTokens = 4000000;
        d.trainingLogPaths = { logPath };
        ReportOptions options;
        options.knownHardware = presets().hardware();
        const ReportFigures f = reportFigures(d, options);
        const ReportSection* s = section(f, "Training log: nanogpt.log");
        QVERIFY(s);
        QCOMPARE(processedTokensPerStep(d.scenario), int64_t { 4063232 });
        std::ifstream in(logPath);
        const trace::TrainingLog log = trace::parseTrainingLog(in, "nanogpt.log");
        const ShownLogMfu window = shownLogMfu(log,
            trace::scenarioLogContext(
                d.scenario, static_cast<double>(processedTokensPerStep(d.scenario)), log, "nanogpt.log"),
            presets().hardware());
        QVERIFY(window.mfu());
        QCOMPARE(row(s, "Corrected MFU")->value, formatPercent(*window.mfu()));
    }

    // A log that names its GPU, read against a scenario on another: the report withholds the corrected MFU with the
    // window's reason (core/facts/shown_log_mfu.h) instead of printing a figure on the wrong peak.
    void trainingLogOfAnotherGpuIsWithheld()
    {
        QTemporaryDir dir;
        const std::string logPath = dir.filePath(QStringLiteral("b200-8gpu.log")).toStdString();
        std::ofstream(logPath) << "  Device:                NVIDIA B200\n"
                                  "  GPUs:                  8\n"
                                  "  Tokens per iteration:  25,165,824\n"
                                  "Iter     10 | Loss: 10.7715 | Time: 29452ms | LR: 1.65e-06\n"
                                  "   Tokens/s: 106809 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n"
                                  "Iter     20 | Loss: 10.6000 | Time: 29460ms | LR: 3.30e-06\n"
                                  "   Tokens/s: 106780 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n";
        ScenarioDocument d;
        d.scenario.model = *presets().findModel("llama-1.36b");
        d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
        d.scenario.workload.seqLen = 2048;
        d.trainingLogPaths = { logPath };
        ReportOptions options;
        options.knownHardware = presets().hardware();
        const ReportFigures f = reportFigures(d, options);
        const ReportSection* s = section(f, "Training log: b200-8gpu.log");
        QVERIFY(s);
        QCOMPARE(row(s, "Corrected MFU")->value, std::string("-"));
        QVERIFY2(row(s, "Corrected MFU")->note.find("not shown: the file ran on NVIDIA B200") != std::string::npos,
            row(s, "Corrected MFU")->note.c_str());
    }

    // Issue 35: a torchtitan log of a 14.6 GiB device whose TFLOPS / MFU is 306. The report says the device memory,
    // that 306 is torchtitan's fallback peak, withholds the corrected MFU on the scenario's B200 and never prices the
    // run on an A100 ("on the A100 it would be 39.50%").
    void trainingLogDeviceMemory()
    {
        QTemporaryDir dir;
        const std::string logPath = dir.filePath(QStringLiteral("t4.log")).toStdString();
        {
            std::ofstream out(logPath);
            for (int step = 1; step <= 4; ++step)
                out << "[titan] step: " << step
                    << "  loss: 9.1  memory:  9.46GiB(64.99%)  tps: 528  tflops: 30.6  mfu: 10.00%\n";
        }
        ScenarioDocument d;
        d.scenario.model = *presets().findModel("llama-3.1-8b");
        d.scenario.cluster.hardware = *presets().findHardware("b200");
        d.scenario.workload.seqLen = 8192;
        d.trainingLogPaths = { logPath };
        ReportOptions options;
        options.knownHardware = presets().hardware();
        const ReportFigures f = reportFigures(d, options);
        const ReportSection* s = section(f, "Training log: t4.log");
        QVERIFY(s);
        QVERIFY(row(s, "Device memory"));
        QCOMPARE(row(s, "Device memory")->value, std::string("14.6 GiB"));
        QCOMPARE(row(s, "Corrected MFU")->value, std::string("-"));
        std::string all;
        for (const auto& r : s->rows)
            all += r.label + ": " + r.value + " " + r.note + "\n";
        QVERIFY2(all.find("torchtitan's fallback peak") != std::string::npos, all.c_str());
        QVERIFY2(
            all.find("log_memory_mismatch") != std::string::npos || all.find("14.6 GiB of memory") != std::string::npos,
            all.c_str());
        QVERIFY2(all.find("A100") == std::string::npos || all.find("it would be") == std::string::npos, all.c_str());
    }

    // A figure that is no finite number ("$inf" from a price past any job's) is set aside with a note, in the PDF
    // and the page alike, never printed as an answer.
    void nonFiniteFiguresAreSetAside()
    {
        ReportFigures f;
        f.sections.push_back({ "Cost of the job",
            { { "Cost", "$inf", "GPU-hours x $1e308" }, { "MFU", "NaN%", "" },
                { "GPU-hours", "552,960", "kernel nan_to_num in /data/inf/" } } });
        setAsideNonFiniteFigures(f);
        QCOMPARE(f.sections[0].rows[0].value, std::string("-"));
        QCOMPARE(f.sections[0].rows[1].value, std::string("-"));
        QCOMPARE(f.sections[0].rows[2].value, std::string("552,960"));
        QCOMPARE(f.sections[0].rows[2].note, std::string("kernel nan_to_num in /data/inf/"));
        QCOMPARE(f.notes.size(), size_t(2));
        QVERIFY2(f.notes[0].starts_with("Cost of the job, Cost: not a finite number (inf)"), f.notes[0].c_str());
    }

    void missingPartsAreNoted()
    {
        ScenarioDocument d;
        d.scenario.model = bareModel(7'000'000'000, "a 7B model");
        d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
        const ReportFigures f = reportFigures(d);
        QVERIFY(!f.predicted);
        QVERIFY(hasNote(f, "Cost model: "));
        QVERIFY(hasNote(f, "Cost: "));
        QVERIFY(!section(f, "Cost of the job"));
        QCOMPARE(section(f, "FLOP per token")->rows.size(), size_t(1)); // a bare model has only 6N
        QCOMPARE(section(f, "FLOP per token")->rows[0].value, std::string("42.00 GFLOP"));
    }

    void plannerBestConfiguration()
    {
        ScenarioDocument d = vectorLabsJob();
        d.scenario.workload.globalBatchTokens = 32 * 8192; // fixed, so the planner and the scenario compare alike
        QVERIFY(!reportFigures(d).bestConfig); // opt-in: the Cost panel does not pay for a search
        QVERIFY(!section(reportFigures(d), "Planner's best configuration"));
        ReportOptions options;
        options.plan = true;
        const ReportFigures f = reportFigures(d, options);
        QVERIFY(f.bestConfig);
        QVERIFY(f.predicted);
        const StepPrediction& best = f.bestConfig->prediction;
        QVERIFY(best.fits);
        // The scenario's own layout (TP 8, micro-batch 1, no AC) is one the planner searches, so its best is no worse.
        QVERIFY2(best.mfu >= f.predicted->mfu,
            qPrintable(QString::number(best.mfu) + " < " + QString::number(f.predicted->mfu)));
        // The best configuration's figures are the cost model's for that configuration, not the planner's own.
        QCOMPARE(evaluate(withConfig(d.scenario, *f.bestConfig)).mfu, best.mfu);
        const ReportSection* s = section(f, "Planner's best configuration");
        QVERIFY(s);
        QCOMPARE(row(s, "Best")->value, describeConfig(*f.bestConfig));
        QCOMPARE(row(s, "Current")->value, describeLayout(d.scenario)); // in the words of the planner's rows
        QCOMPARE(row(s, "MFU")->value, formatPercent(best.mfu));
        QCOMPARE(row(s, "MFU")->note, "now " + formatPercent(f.predicted->mfu));
        QCOMPARE(row(s, "Memory per GPU")->value, memoryUseText(best)); // with its headroom, as `plan` prints it
        QCOMPARE(row(s, "Step time")->value, formatMilliseconds(best.stepTimeSeconds));
        if (best.mfu > f.predicted->mfu)
            QCOMPARE(row(s, "Uplift")->value, formatNumber(best.mfu / f.predicted->mfu, 2) + "x the current MFU");
        // Ranked among ties, the best can be a little slower than the current configuration: no uplift, and why.
        PlannedConfig tie = *f.bestConfig;
        tie.prediction.mfu = f.predicted->mfu * 0.98;
        const ReportSection slower = plannerSection(tie, d.scenario, f.predicted, PlanResult {});
        QCOMPARE(row(&slower, "Uplift")->value, std::string("none"));
        QVERIFY2(row(&slower, "Uplift")->note.find("ties") != std::string::npos, row(&slower, "Uplift")->note.c_str());

        // With error bands, the best is the planner's #1 under the rule `plan` and the window use, and says the rule.
        ErrorBandModel bands;
        for (double e : { -0.10, 0.0, 0.10, 0.20, 0.30 })
            bands.residuals.push_back({ "Hopper", false, e });
        options.errorBands = &bands;
        const ReportFigures ranked = reportFigures(d, options);
        PlannerOptions rule;
        rule.tieTolerance = plannerTieTolerance(d.scenario, bands);
        QVERIFY(rule.tieTolerance > 0);
        const PlanResult plan = planConfigurations(d.scenario, rule);
        QCOMPARE(describeConfig(*ranked.bestConfig), describeConfig(plan.configs.front()));
        QCOMPARE(row(section(ranked, "Planner's best configuration"), "Ranking")->note,
            plannerRankingRule(rule.tieTolerance));
        options.errorBands = nullptr;

        // A scenario without a global batch (one micro-batch per rank): the planner is held to the batch the
        // scenario's own configuration runs, not one of its choosing; a best with more data-parallel ranks than
        // that batch has micro-batches runs a larger step, and the step-time note says so.
        d.scenario.workload.globalBatchTokens = 0;
        const ReportFigures unset = reportFigures(d, options);
        QVERIFY(unset.predicted);
        QCOMPARE(unset.predicted->tokensPerStep, 32.0 * 8192);
        const ReportSection* u = section(unset, "Planner's best configuration");
        QVERIFY2(row(u, "Best")->note.find("compared at a global batch of 262,144 tokens") != std::string::npos,
            row(u, "Best")->note.c_str());
        const StepPrediction& ub = unset.bestConfig->prediction;
        const std::string stepNote = row(u, "Step time")->note;
        QCOMPARE(
            stepNote.find("steps of " + formatNumber(ub.tokensPerStep, 0) + " vs 262,144 tokens") != std::string::npos,
            ub.tokensPerStep != 262144.0);
    }

    // The planner and the sweeps report their progress, rising to 1, and stop when cancelled: what lets the window
    // compute a report off its GUI thread with a Cancel button.
    void progressRisesAndCancelStops()
    {
        ScenarioDocument d = vectorLabsJob();
        d.scenario.cluster.gpuCount = 64;
        ReportOptions options;
        options.plan = true;
        options.sweeps = true;
        std::vector<double> seen;
        options.progress = [&seen](double f) { seen.push_back(f); };
        const ReportFigures f = reportFigures(d, options);
        QCOMPARE(f.sweeps.size(), size_t(3)); // 64 H100 cross NVLink domains: the network's sweep too
        QCOMPARE(f.sweeps.back().axis, SweepAxis::Network);
        QVERIFY(seen.size() > 10);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(seen.front() >= 0.0);

        std::atomic<bool> cancel { false };
        options.progress = [&cancel](double done) {
            if (done > 0.2)
                cancel.store(true); // part-way through the first sweep
        };
        options.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(trace::Cancelled, reportFigures(d, options));
    }

    void plannerWithoutAnArchitectureIsANote()
    {
        ScenarioDocument d;
        d.scenario.model = bareModel(7'000'000'000, "a 7B model");
        d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
        ReportOptions options;
        options.plan = true;
        const ReportFigures f = reportFigures(d, options);
        QVERIFY(!f.bestConfig);
        QVERIFY(hasNote(f, "Planner: "));
    }

    void traceBreakdown()
    {
        // One 100 ms step on the GPU: a GEMM over [0, 60) ms, an all-reduce on another stream over [40, 80) ms, idle
        // after. Busy 80%, idle 20%; exclusive GEMM 60%, all-reduce 20% (computation wins the overlap); 20 of the
        // 40 ms of communication overlap compute (50%), exposed 20%. Measured MFU: 6 x 1e9 FLOP/token x 4096
        // tokens / 0.1 s / 989 TFLOPS = 24.8%.
        using namespace trace_test;
        QTemporaryDir dir;
        const std::string tracePath = dir.filePath(QStringLiteral("rank0.json")).toStdString();
        std::ofstream(tracePath) << traceOf({ annotation("ProfilerStep#1", "0", "100000", true),
            kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "0", "60000"),
            kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "40000", "40000", 20) });
        const std::string missing = dir.filePath(QStringLiteral("moved-away.json")).toStdString();
        ScenarioDocument d;
        d.scenario.model = bareModel(1'000'000'000, "a 1B model");
        d.scenario.cluster.hardware = *presets().findHardware("h100-sxm");
        d.scenario.cluster.gpuCount = 1;
        d.scenario.workload.seqLen = 4096; // one sequence per step: 4,096 tokens, whole micro-steps as run
        d.scenario.workload.globalBatchTokens = 4096;
        d.tracePaths = { tracePath, missing };
        QVERIFY(!reportFigures(d).trace); // no rules given: traces are not read
        const auto rules = trace::KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
        ReportOptions options;
        options.traceRules = &rules;
        const ReportFigures f = reportFigures(d, options);
        QVERIFY(f.trace);
        QCOMPARE(f.trace->missingPaths, std::vector<std::string> { missing });
        const ReportSection* s = section(f, "Trace breakdown");
        QVERIFY(s);
        QCOMPARE(row(s, "Missing")->value, missing);
        QCOMPARE(row(s, "Step time")->value, std::string("100.0 ms"));
        QCOMPARE(row(s, "Busy")->value, std::string("80.00%"));
        QCOMPARE(row(s, "Idle")->value, std::string("20.00%"));
        QCOMPARE(row(s, "GEMM")->value, std::string("60.00%"));
        QCOMPARE(row(s, "All-reduce")->value, std::string("20.00%"));
        QVERIFY(row(s, "Analysed")->note.find("GPU step annotations") != std::string::npos);
        QCOMPARE(row(s, "Communication")->value, std::string("40.00%"));
        QCOMPARE(row(s, "Communication")->note, std::string("50.00% of it overlapped with compute; exposed 20.00%"));
        QVERIFY(f.trace->measured);
        QCOMPARE(row(s, "Measured MFU")->value, std::string("24.85%"));
        QVERIFY(qAbs(f.trace->measured->mfu - 6e9 * 4096 / 0.1 / 989e12) < 1e-12);

        // Every path gone: the section still says which, and nothing fails.
        d.tracePaths = { missing };
        const ReportFigures gone = reportFigures(d, options);
        QVERIFY(gone.trace);
        QCOMPARE(row(section(gone, "Trace breakdown"), "Missing")->value, missing);
        QVERIFY(!row(section(gone, "Trace breakdown"), "Busy"));
    }

    void plannedHardwareAtEachDevicesBest()
    {
        // Llama 3.1 8B on 8 GPUs: each device's option is the planner's best there; the scenario's own GPU keeps the
        // scenario's price; a device without a price and one nothing fits on are left out with the reason.
        Scenario s;
        s.model = *presets().findModel("llama-3.1-8b");
        s.cluster.hardware = *presets().findHardware("h100-sxm");
        s.cluster.gpuCount = 8;
        s.pricePerGpuHourUsd = 3.25;
        HardwareSpec unpriced = *presets().findHardware("b200");
        unpriced.id = "b200-unpriced";
        unpriced.pricePerGpuHourUsd = 0;
        const std::vector<HardwareSpec> devices { *presets().findHardware("h100-sxm"), *presets().findHardware("b200"),
            unpriced };
        const PlannedHardware p = plannedHardwareOptions(s, devices);
        QCOMPARE(p.options.size(), size_t(2));
        QCOMPARE(p.configurations.size(), size_t(2));
        PlannerOptions top1;
        top1.topN = 1;
        for (size_t i = 0; i < 2; ++i) {
            Scenario onDevice = s;
            onDevice.cluster.hardware = devices[i];
            const PlanResult plan = planConfigurations(onDevice, top1);
            QCOMPARE(*p.options[i].mfu, plan.configs.front().prediction.mfu);
            QCOMPARE(p.configurations[i], describeConfig(plan.configs.front()));
            QCOMPARE(p.options[i].gpuCount, 8);
        }
        QCOMPARE(*p.options[0].pricePerGpuHourUsd, 3.25);
        QCOMPARE(*p.options[1].pricePerGpuHourUsd, devices[1].pricePerGpuHourUsd);
        QCOMPARE(p.leftOut.size(), size_t(1));
        QCOMPARE(p.leftOut[0].hardwareId, std::string("b200-unpriced"));
        QCOMPARE(p.leftOut[0].reason, std::string("no price per GPU-hour"));

        s.model = *presets().findModel("llama-3.1-70b");
        s.cluster.gpuCount = 1; // 70B with its optimizer state fits on no single GPU
        const PlannedHardware none = plannedHardwareOptions(s, { devices[0] });
        QVERIFY(none.options.empty());
        QCOMPARE(none.leftOut.size(), size_t(1));
        QVERIFY2(
            none.leftOut[0].reason.find("on 1 of it: Nothing fits in memory") == 0, none.leftOut[0].reason.c_str());
    }

    void parallelismText()
    {
        Parallelism p;
        p.tp = 8;
        p.pp = 4;
        p.virtualStages = 2;
        p.schedule = PipelineSchedule::Interleaved1F1B;
        QCOMPARE(parallelismSummary(p),
            std::string("TP 8 (SP) x PP 4 (interleaved 1F1B, 2 virtual) x CP 1, EP 1, HSDP replicas 1"));
    }
};

QTEST_GUILESS_MAIN(TestReportFigures)
#include "tst_report_figures.moc"
