// The work of a trace's operators counted once and attributed to their kernels (core/trace/trace_flops.h), trace
// MFU (core/trace/trace_mfu.h), the roofline (core/trace/roofline.h) and the critical path of a step
// (core/trace/critical_path.h), on small traces written here whose answers are worked out by hand.
#include <QtTest>

#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/rank_summary.h"
#include "core/trace/roofline.h"
#include "core/trace/step_work.h"
#include "core/trace/trace_mfu.h"
#include "trace_test_support.h"

using namespace mfu;
using namespace mfu::trace;
using trace_test::kernel;

namespace {

std::string op(const std::string& name, const std::string& ts, const std::string& dur, long long externalId,
    const std::string& dims = "", const std::string& types = "", const std::string& concrete = "")
{
    std::string args = "\"External id\": " + std::to_string(externalId);
    if (!dims.empty())
        args += ", \"Input Dims\": " + dims + ", \"Input type\": " + types;
    if (!concrete.empty())
        args += ", \"Concrete Inputs\": " + concrete;
    return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts
        + ", \"dur\": " + dur + ", \"args\": {" + args + "}}";
}

std::string runtime(const std::string& name, long long correlation, const std::string& ts, const std::string& dur,
    long long externalId = -1)
{
    std::string args = "\"correlation\": " + std::to_string(correlation);
    if (externalId >= 0)
        args += ", \"External id\": " + std::to_string(externalId);
    return "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" + name
        + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts + ", \"dur\": " + dur + ", \"args\": {" + args + "}}";
}

std::string launch(long long correlation, const std::string& ts, long long externalId)
{
    return runtime("cudaLaunchKernel", correlation, ts, "2", externalId);
}

const char* const kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
const char* const kFlash = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64> >(Params)";
const char* const kAdd
    = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>";
const std::string bf16x2 = "[\"c10::BFloat16\", \"c10::BFloat16\"]";

// Three CPU-annotated steps (the third is dropped as the last). Step 1 holds the cases: a wrapper (aten::linear
// over aten::addmm), aten::matmul over aten::mm, an aten::mm holding another (FP32) one, SDPA over flash attention,
// an aten::mm without shapes and an elementwise add; steps 2 and 3 one aten::mm each.
std::string stepsTrace()
{
    const std::string bf16x3 = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
    return trace_test::traceOf({
        trace_test::annotation("ProfilerStep#1", "0", "1000", false),
        trace_test::annotation("ProfilerStep#2", "1000", "1000", false),
        trace_test::annotation("ProfilerStep#3", "2000", "1000", false),
        op("aten::linear", "10", "50", 100, "[[8, 16], [32, 16], [32]]", bf16x3),
        op("aten::addmm", "20", "30", 101, "[[32], [8, 16], [16, 32]]", bf16x3),
        launch(1, "30", 101),
        kernel(kGemm, "100", "50", 7, 1),
        op("aten::matmul", "70", "50", 102, "[[4, 8], [8, 2]]", bf16x2),
        op("aten::mm", "75", "35", 103, "[[4, 8], [8, 2]]", bf16x2),
        launch(2, "80", 103),
        kernel(kGemm, "160", "10", 7, 2),
        op("aten::mm", "130", "70", 104, "[[2, 2], [2, 2]]", bf16x2),
        op("aten::mm", "140", "50", 105, "[[4, 4], [4, 4]]", "[\"float\", \"float\"]"),
        launch(3, "150", 105),
        kernel("cutlass_80_simt_sgemm_128x32_8x5_nn_align1", "180", "5", 7, 3),
        op("aten::scaled_dot_product_attention", "210", "90", 106),
        op("aten::_scaled_dot_product_flash_attention", "220", "70", 107,
            "[[1, 2, 16, 8], [1, 2, 16, 8], [1, 2, 16, 8], [], []]",
            "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
            "[\"\", \"\", \"\", \"0.\", \"True\"]"),
        launch(4, "230", 107),
        kernel(kFlash, "300", "60", 7, 4),
        op("aten::mm", "310", "10", 108),
        launch(5, "312", 108),
        kernel(kGemm, "370", "10", 7, 5),
        op("aten::add", "330", "10", 109, "[[8, 32], [8, 32]]", bf16x2),
        launch(6, "332", 109),
        kernel(kAdd, "390", "5", 7, 6),
        op("aten::mm", "1010", "10", 200, "[[4, 8], [8, 2]]", bf16x2),
        launch(7, "1012", 200),
        kernel(kGemm, "1100", "10", 7, 7),
        op("aten::mm", "2010", "10", 300, "[[4, 8], [8, 2]]", bf16x2),
        launch(8, "2012", 300),
        kernel(kGemm, "2100", "10", 7, 8),
    });
}

RankAnalysis analyse(const std::string& json)
{
    Timeline t = trace_test::read(json);
    return analyzeRank(t, builtInKernelRules());
}

HardwareSpec gpu(double bf16Peak, double fp32Peak = 0, double bandwidth = 1e12)
{
    HardwareSpec h;
    h.id = "test-gpu";
    h.peakDenseFlops[static_cast<size_t>(NumberFormat::BF16)] = bf16Peak;
    if (fp32Peak > 0)
        h.peakDenseFlops[static_cast<size_t>(NumberFormat::FP32)] = fp32Peak;
    h.hbmBandwidthBytesPerSec = bandwidth;
    return h;
}

double flopsAt(const FlopsByPrecision& f, const std::string& key)
{
    for (const auto& p : f)
        if (p.key == key)
            return p.flops;
    return 0;
}

} // namespace

class TestTraceFlops : public QObject {
    Q_OBJECT

private slots:
    void readerKeepsOperatorsAndLaunches()
    {
        const Timeline t = trace_test::read(stepsTrace());
        QVERIFY(t.recordsShapes);
        QCOMPARE(t.cpuOps.size(), size_t { 12 });
        QCOMPARE(t.launches.size(), size_t { 8 });
        QCOMPARE(t.launches.front().thread, int32_t { 0 });
        QCOMPARE(t.launches.front().endNs - t.launches.front().startNs, int64_t { 2000 });
        QCOMPARE(t.launches.front().kind, RuntimeKind::Launch);
        // Operators of a counted family carry their work; wrappers and views do not.
        size_t withWork = 0;
        for (const auto& o : t.cpuOps)
            withWork += o.work != CpuOp::kNoWork ? 1 : 0;
        QCOMPARE(withWork, size_t { 10 }); // all but aten::linear and aten::matmul
        QCOMPARE(runtimeKindOf("cudaStreamSynchronize"), RuntimeKind::Sync);
        QCOMPARE(runtimeKindOf("cudaMemcpy"), RuntimeKind::Sync);
        QCOMPARE(runtimeKindOf("cudaMemcpyAsync"), RuntimeKind::Launch);
        QCOMPARE(runtimeKindOf("cudaFuncSetAttribute"), RuntimeKind::Other);
    }

    void eachOperatorOnceInnermost()
    {
        const RankAnalysis r = analyse(stepsTrace());
        const OpFlops& f = r.opFlops;
        // addmm 2·8·32·16, mm 2·4·2·8 (four times: step 1, the inner FP32 one is 2·4·4·4, steps 2 and 3);
        // the outer aten::mm of the nested pair counts through the inner one.
        QCOMPARE(f.matmulFlops, 8192.0 + 128 + 128 + 128 + 128);
        QCOMPARE(f.attentionFlops, 2.0 * 1 * 2 * 16 * 16 * 16 / 2); // causal
        QCOMPARE(f.opsWithShapes, int64_t { 6 }); // addmm, mm, inner mm, flash, the mm of steps 2 and 3
        QCOMPARE(f.opsWithoutShapes, int64_t { 1 });
        QCOMPARE(f.opsWithoutKernels, int64_t { 0 });
        QCOMPARE(flopsAt(f.byPrecision, "fp32"), 128.0);
        QCOMPARE(flopsAt(f.byPrecision, "bf16"), f.modelFlops() - 128);
        QVERIFY(!f.backward);
        QCOMPARE(f.elementwiseBytes, 3.0 * 8 * 32 * 2);
    }

    void workInsideTheAnalysedSteps()
    {
        const RankAnalysis r = analyse(stepsTrace());
        QCOMPARE(r.steps.size(), size_t { 2 }); // the third is dropped
        const OpFlops& f = r.opFlops;
        QCOMPARE(totalFlops(f.inSteps), f.modelFlops() - 128); // step 3's aten::mm is outside
        QCOMPARE(f.outsideStepsFlops, 128.0);
        QCOMPARE(f.perStep.size(), size_t { 2 });
        QCOMPARE(totalFlops(f.perStep[1]), 128.0);
        // The addmm's FLOPs went to its GEMM kernel, the flash attention's to its kernel.
        const auto gemm
            = std::find_if(f.kernels.begin(), f.kernels.end(), [](const KernelWork& k) { return k.name == kGemm; });
        QVERIFY(gemm != f.kernels.end());
        QCOMPARE(gemm->flops, 8192.0 + 128 + 128); // addmm, mm of step 1, mm of step 2 (the one without shapes: 0)
        QCOMPARE(gemm->precision->key(), std::string("bf16"));
        const auto attention = std::find_if(f.categories.begin(), f.categories.end(),
            [](const KernelWork& k) { return k.category == KernelCategory::AttentionFwd; });
        QCOMPARE(attention->flops, f.attentionFlops);
        QCOMPARE(attention->ns, int64_t { 60'000 });
        QCOMPARE(attention->tflops(), f.attentionFlops / 60e-6 / 1e12);
    }

    // Sum over precisions of FLOPs / peak, over the analysed steps' wall-clock times: their windows [100, 1100) and
    // [1100, 2100) us (each to the next step's first kernel, the dropped third one's for the second), no shorter than
    // their annotations.
    void traceMfuAgainstThePeakOfEachPrecision()
    {
        const RankAnalysis r = analyse(stepsTrace());
        QCOMPARE(r.stepWallNs(), int64_t { 2'000'000 });
        const HardwareSpec h = gpu(1e12, 1e11);
        const auto m = rankTraceMfu(r, h);
        QVERIFY(m);
        const double bf16 = flopsAt(r.opFlops.inSteps, "bf16");
        const double fp32 = flopsAt(r.opFlops.inSteps, "fp32");
        QCOMPARE(fp32, 128.0);
        QCOMPARE(m->mfu, (bf16 / 1e12 + fp32 / 1e11) / 2e-3);
        QVERIFY(m->fallbacks.empty());
        const auto step2 = stepTraceMfu(r, 1, h);
        QCOMPARE(step2->mfu, 128 / 1e12 / 1e-3);
        // Without an FP32 peak those FLOPs are counted at the BF16 one, and it says so.
        const auto fallback = rankTraceMfu(r, gpu(1e12));
        QCOMPARE(fallback->mfu, (bf16 + fp32) / 1e12 / 2e-3);
        QCOMPARE(fallback->fallbacks.size(), size_t { 1 });
    }

    // A sampled trace kept an aten::mm's workspace memset but not its GEMM: the memset is no 2 TFLOPS GEMM, the
    // operator has no kernel to give its FLOPs to. Its FLOPs still count for the step (they ran).
    void matrixWorkNeverGoesToAFillAlone()
    {
        const RankAnalysis r
            = analyse(trace_test::traceOf({ trace_test::annotation("ProfilerStep#1", "0", "100", false),
                trace_test::annotation("ProfilerStep#2", "100", "100", false),
                op("aten::mm", "10", "20", 1, "[[64, 64], [64, 64]]", bf16x2), launch(1, "12", 1),
                kernel("Memset (Device)", "20", "1", 7, 1, "gpu_memset"), kernel(kAdd, "150", "5", 7, 99) }));
        const OpFlops& f = r.opFlops;
        QCOMPARE(f.matmulFlops, 2.0 * 64 * 64 * 64);
        QCOMPARE(f.opsWithoutKernels, int64_t { 1 });
        for (const KernelWork& k : f.categories)
            QVERIFY2(k.category != KernelCategory::Memset || k.flops == 0, qPrintable(QString::number(k.flops)));
    }

    void noShapesNoTraceMfu()
    {
        const RankAnalysis r
            = analyse(trace_test::traceOf({ trace_test::annotation("ProfilerStep#1", "0", "100", false),
                op("aten::mm", "10", "10", 1), launch(1, "12", 1), kernel(kGemm, "30", "10", 7, 1) }));
        QVERIFY(!r.opFlops.recordsShapes);
        QCOMPARE(r.opFlops.opsWithoutShapes, int64_t { 1 });
        QVERIFY(!rankTraceMfu(r, gpu(1e12)));
    }

    // An aten::mm recorded with int64's largest dim (a logger's overflow, a hand-edited trace) beside a real one: the
    // impossible one is counted among the operators without shapes, and said to be impossible; the real one's FLOPs
    // and the trace MFU stand on their own, with no roofline mark for the impossible problem.
    void shapesNoDeviceCouldHoldAreLeftOut()
    {
        const RankAnalysis r = analyse(trace_test::traceOf({
            trace_test::annotation("ProfilerStep#1", "0", "100", false),
            trace_test::annotation("ProfilerStep#2", "100", "100", false),
            op("aten::mm", "10", "10", 1, "[[9223372036854775807, 64], [64, 64]]", bf16x2),
            launch(1, "12", 1),
            kernel(kGemm, "20", "10", 7, 1),
            op("aten::mm", "40", "10", 2, "[[64, 64], [64, 64]]", bf16x2),
            launch(2, "42", 2),
            kernel(kGemm, "50", "10", 7, 2),
            kernel(kAdd, "150", "5", 7, 99),
        }));
        const OpFlops& f = r.opFlops;
        QCOMPARE(f.matmulFlops, 2.0 * 64 * 64 * 64);
        QCOMPARE(f.opsWithShapes, int64_t { 1 });
        QCOMPARE(f.opsWithoutShapes, int64_t { 1 });
        QCOMPARE(f.opsWithImpossibleShapes, int64_t { 1 });
        QCOMPARE(shapelessOperatorsText(f),
            std::string(
                "1 without readable shapes (1 with tensors no device could hold: more than 10 TB an operator)"));
        QVERIFY(rankTraceMfu(r, gpu(1e12)));
        const HardwareSpec h = gpu(1e12, 1e11, 2e9);
        for (const OpProblem& m : rooflineOf(f, &h).marks)
            QVERIFY2(m.shapes.find("9223372036854775807") == std::string::npos, m.shapes.c_str());
        // A rank's summary keeps the count.
        AnalysisOptions options;
        QCOMPARE(rankSummaryFromJson(rankSummaryToJson(r, options), "rank0.summary.json", options)
                     .opFlops.opsWithImpossibleShapes,
            int64_t { 1 });
    }

    void rooflineMarksAndCeilings()
    {
        const RankAnalysis r = analyse(stepsTrace());
        const HardwareSpec h = gpu(1e12, 1e11, 2e9);
        const Roofline roof = rooflineOf(r.opFlops, &h);
        QCOMPARE(roof.hbmBytesPerSecond, 2e9);
        QCOMPARE(roof.ceilings.size(), size_t { 2 }); // BF16 and the FP32 mark's
        QCOMPARE(roof.ceilings.front().peakFlops, 1e12);
        QCOMPARE(roof.ceilings.front().ridgeIntensity, 500.0);
        // The longest mark first: the flash attention (60 us).
        QCOMPARE(roof.marks.front().op, std::string("aten::_scaled_dot_product_flash_attention"));
        QCOMPARE(roof.marks.front().shapes, std::string("[1, 2, 16, 8], [1, 2, 16, 8], [1, 2, 16, 8]"));
        const OpProblem& m = roof.marks.front();
        QCOMPARE(roof.attainableFlops(m.intensity(), "bf16"), std::min(1e12, m.intensity() * 2e9));
        // The two calls of aten::mm [4, 8] x [8, 2] in the analysed steps are one problem.
        const auto mm = std::find_if(roof.marks.begin(), roof.marks.end(),
            [](const OpProblem& p) { return p.op == "aten::mm" && p.shapes == "[4, 8], [8, 2]"; });
        QVERIFY(mm != roof.marks.end());
        QCOMPARE(mm->calls, int64_t { 2 });
        QCOMPARE(mm->flops, 256.0);
        QCOMPARE(roof.abovePeakProblems, int64_t { 0 });
        QVERIFY(roof.abovePeakNote().empty());

        // On a GPU whose BF16 peak the same marks pass (1 MFLOP/s), those marks ran faster than any GPU can: their
        // shapes or kernels are not what ran. They are left off the roofline, counted and named; the FP32 mark,
        // under its own peak, stays. (A 4096^3 matmul given a 50 us kernel had been drawn at 2,748.8 TFLOPS under
        // H100's 989.)
        const HardwareSpec slow = gpu(1e6, 1e11, 2e9);
        const Roofline low = rooflineOf(r.opFlops, &slow);
        QVERIFY(low.abovePeakProblems > 0);
        QCOMPARE(low.marks.size() + static_cast<size_t>(low.abovePeakProblems), roof.marks.size());
        for (const OpProblem& kept : low.marks)
            QVERIFY2(kept.precision && kept.precision->key() == "fp32", kept.op.c_str());
        QCOMPARE(low.abovePeakFastestPeak, 1e6);
        QVERIFY(low.abovePeakFastestFlops > 1.05e6);
        QVERIFY2(low.abovePeakNote().find("not on the roofline") != std::string::npos, low.abovePeakNote().c_str());
    }

    // Launch-bound: each kernel waits for a launch issued long after the previous kernel ended, so the host's time
    // is the path and only the last kernel is on it.
    void criticalPathOfAHostBoundStep()
    {
        std::vector<std::string> events { trace_test::annotation("ProfilerStep#1", "0", "451", true),
            trace_test::annotation("ProfilerStep#2", "451", "10", true) };
        for (int k = 0; k < 5; ++k) {
            const std::string at = std::to_string(100 * k);
            events.push_back(op("aten::add", at, "50", 10 + k, "[[8], [8]]", bf16x2));
            events.push_back(launch(k + 1, std::to_string(100 * k + 40), 10 + k));
            events.push_back(kernel(kAdd, std::to_string(100 * k + 45), "5", 7, k + 1));
        }
        events.push_back(kernel(kAdd, "451", "5", 7, 99));
        const RankAnalysis r = analyse(trace_test::traceOf(events));
        const CriticalPath& p = r.criticalPath;
        QCOMPARE(p.steps.size(), size_t { 1 });
        const StepPath& s = p.steps.front();
        QCOMPARE(s.spanNs, int64_t { 451'000 });
        int64_t sum = 0;
        for (auto ns : s.shareNs)
            sum += ns;
        QCOMPARE(sum, s.spanNs); // every instant once
        QCOMPARE(s.shareNs[static_cast<size_t>(PathShare::GpuCompute)], int64_t { 5'000 });
        QCOMPARE(s.shareNs[static_cast<size_t>(PathShare::LaunchHost)], int64_t { 445'000 });
        QCOMPARE(s.shareNs[static_cast<size_t>(PathShare::Idle)], int64_t { 1'000 });
        // The chain: the host's operators (and the time between them), the last launch, its kernel.
        QCOMPARE(p.labelOf(p.chain.front()), std::string("aten::add"));
        QCOMPARE(p.labelOf(p.chain[1]), std::string("host (outside operators)"));
        const PathSegment& launchSeg = p.chain[p.chain.size() - 3];
        QCOMPARE(launchSeg.kind, PathKind::Launch);
        QCOMPARE(p.labelOf(launchSeg), std::string("cudaLaunchKernel"));
        QCOMPARE(p.chain[p.chain.size() - 2].kind, PathKind::Kernel);
        // A host that launched each kernel 3 us before it ran held the step: no caveat.
        QCOMPARE(p.hostLead.medianLaunchLeadNs, int64_t { 3'000 });
        QVERIFY(hostTimeCaveat(p).empty());
    }

    // The same host, but its kernels queued milliseconds behind work the trace left out and no synchronisation is
    // recorded: the walk still runs along the host, and the path says its host time is only as recorded.
    void hostAheadOfItsGpuWithoutSynchronisation()
    {
        std::vector<std::string> events { trace_test::annotation("ProfilerStep#1", "0", "9000", true),
            trace_test::annotation("ProfilerStep#2", "9000", "10", true) };
        for (int k = 0; k < 3; ++k) {
            events.push_back(op("aten::add", std::to_string(100 * k), "50", 10 + k, "[[8], [8]]", bf16x2));
            events.push_back(launch(k + 1, std::to_string(100 * k + 40), 10 + k));
            events.push_back(kernel(kAdd, std::to_string(2000 * (k + 1)), "5", 7, k + 1));
        }
        events.push_back(op("aten::add", "8000", "50", 20, "[[8], [8]]", bf16x2));
        events.push_back(launch(4, "8040", 20));
        events.push_back(kernel(kAdd, "8045", "5", 7, 4));
        events.push_back(kernel(kAdd, "9000", "5", 7, 99));
        const CriticalPath p = analyse(trace_test::traceOf(events)).criticalPath;
        QCOMPARE(p.hostLead.synchronisations, int64_t { 0 });
        QCOMPARE(p.hostLead.launchesTimed, int64_t { 4 });
        // Leads 1958, 3858, 5758 and 3 us: the median of four is the upper middle one.
        QCOMPARE(p.hostLead.medianLaunchLeadNs, int64_t { 3'858'000 });
        QVERIFY(p.total.share(PathShare::LaunchHost) > 0.5);
        const std::string caveat = hostTimeCaveat(p);
        QVERIFY2(caveat.find("median 3.858 ms") != std::string::npos, caveat.c_str());
    }

    // GPU-bound, then a synchronisation: the host waits for a long kernel, then launches the next one.
    void criticalPathThroughASynchronisation()
    {
        const RankAnalysis r = analyse(trace_test::traceOf({
            trace_test::annotation("ProfilerStep#1", "0", "1000", true),
            trace_test::annotation("ProfilerStep#2", "1000", "10", true),
            launch(1, "0", -1),
            kernel(kGemm, "10", "500", 7, 1),
            runtime("cudaDeviceSynchronize", 2, "20", "495"),
            op("aten::add", "520", "40", 5, "[[8], [8]]", bf16x2),
            launch(3, "550", 5),
            kernel(kAdd, "560", "20", 7, 3),
            kernel(kAdd, "1000", "5", 7, 99),
        }));
        const CriticalPath& p = r.criticalPath;
        std::vector<PathKind> kinds;
        for (const auto& seg : p.chain)
            kinds.push_back(seg.kind);
        // Launch of the GEMM, the GEMM, the synchronisation's wake-up, host work, the launch, the add, idle to the end.
        const std::vector<PathKind> expected { PathKind::Launch, PathKind::Kernel, PathKind::Sync, PathKind::Host,
            PathKind::Host, PathKind::Launch, PathKind::Kernel, PathKind::Idle };
        QCOMPARE(kinds, expected);
        QCOMPARE(p.chain[1].durationNs(), int64_t { 500'000 });
        QCOMPARE(p.labelOf(p.chain[2]), std::string("cudaDeviceSynchronize"));
        QCOMPARE(p.steps.front().shareNs[static_cast<size_t>(PathShare::GpuCompute)], int64_t { 520'000 });
        QCOMPARE(p.hostLead.synchronisations, int64_t { 1 });
        QVERIFY(hostTimeCaveat(p).empty());
    }

    void summaryKeepsTheWork()
    {
        const RankAnalysis r = analyse(stepsTrace());
        AnalysisOptions options;
        const RankAnalysis back = rankSummaryFromJson(rankSummaryToJson(r, options), "rank0.summary.json", options);
        QCOMPARE(back.opFlops.matmulFlops, r.opFlops.matmulFlops);
        QCOMPARE(totalFlops(back.opFlops.inSteps), totalFlops(r.opFlops.inSteps));
        QCOMPARE(back.opFlops.problems.size(), r.opFlops.problems.size());
        QCOMPARE(back.opFlops.kernels.front().precision->key(), r.opFlops.kernels.front().precision->key());
        QCOMPARE(back.criticalPath.chain.size(), r.criticalPath.chain.size());
        QCOMPARE(back.criticalPath.total.shareNs, r.criticalPath.total.shareNs);
        QCOMPARE(back.criticalPath.hostLead.medianLaunchLeadNs, r.criticalPath.hostLead.medianLaunchLeadNs);
        QCOMPARE(back.criticalPath.hostLead.launchesTimed, r.criticalPath.hostLead.launchesTimed);
    }
};

QTEST_APPLESS_MAIN(TestTraceFlops)
#include "tst_trace_flops.moc"
