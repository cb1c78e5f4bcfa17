// FLOPs from recorded shapes on the real traces that record them (../shared/traces), checked against an independent
// count: tests/scripts/matmul_flops_reference.py reads the raw JSON with Python's json module and counts the
// matrix multiplies from their definition, without this code. Then trace MFU, the roofline and the critical path
// of the TraceLens H100 trace.
#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/roofline.h"
#include "core/trace/trace_loader.h"
#include "core/trace/trace_mfu.h"
#include "shipped_presets.h"

using namespace mfu;
using namespace mfu::trace;

namespace {

std::string tracePath(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

RankAnalysis analyse(const char* name)
{
    Timeline t = loadTrace(tracePath(name));
    return analyzeRank(t, builtInKernelRules());
}

// The Python count, or nullopt (with the reason) when python3 cannot run it.
std::optional<double> referenceMatmulFlops(const std::string& path, QString& why)
{
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty()) {
        why = QStringLiteral("python3 not found");
        return std::nullopt;
    }
    QProcess p;
    p.start(python,
        { QStringLiteral(MFU_SOURCE_DIR "/tests/scripts/matmul_flops_reference.py"), QString::fromStdString(path) });
    if (!p.waitForFinished(120'000) || p.exitCode() != 0) {
        why = QStringLiteral("the reference script failed: ") + QString::fromUtf8(p.readAllStandardError());
        return std::nullopt;
    }
    return nlohmann::json::parse(p.readAllStandardOutput().toStdString()).at("matmul_flops").get<double>();
}

} // namespace

class TestOpFlopsReal : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
    }

    void matmulFlopsAgreeWithTheReference_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("TraceLens H100 Qwen1.5-0.5B") << "tracelens__h100__qwen1.5-0.5b-chat.json.gz";
        QTest::newRow("HTA sampled rank 0") << "hta__trace_filter__sampled_rank-0.json.gz";
        QTest::newRow("HTA sampled rank 1") << "hta__trace_filter__sampled_rank-1.json.gz";
    }

    void matmulFlopsAgreeWithTheReference()
    {
        QFETCH(QString, file);
        const RankAnalysis r = analyse(file.toUtf8().constData());
        QVERIFY(r.opFlops.recordsShapes);
        QString why;
        const auto reference = referenceMatmulFlops(tracePath(file.toUtf8().constData()), why);
        if (!reference)
            QSKIP(qPrintable(why));
        QVERIFY(*reference > 0);
        const double relative = std::abs(r.opFlops.matmulFlops - *reference) / *reference;
        QVERIFY2(relative <= 0.005,
            qPrintable(QStringLiteral("C++ %1, Python %2")
                           .arg(r.opFlops.matmulFlops, 0, 'g', 15)
                           .arg(*reference, 0, 'g', 15)));
    }

    // Qwen1.5-0.5B inference on one H100: 96 aten::mm, 72 aten::addmm and one FP32 aten::bmm (the rotary
    // embedding's), 24 causal flash attentions, 16 x 559 tokens.
    void traceLensH100()
    {
        const RankAnalysis r = analyse("tracelens__h100__qwen1.5-0.5b-chat.json.gz");
        const OpFlops& f = r.opFlops;
        QCOMPARE(f.opsWithShapes, int64_t { 169 + 24 });
        QCOMPARE(f.opsWithoutShapes, int64_t { 0 });
        QCOMPARE(f.opsWithoutKernels, int64_t { 0 });
        QVERIFY(!f.backward);
        // Each layer's attention: 2·B·H·S²·(64 + 64) halved, B = 16, H = 16, S = 559.
        QCOMPARE(f.attentionFlops, 24 * 2.0 * 16 * 16 * 559 * 559 * 128 / 2);
        const auto gpu = traceHardware(r, test::shippedPresets().hardware());
        QVERIFY(gpu);
        QCOMPARE(gpu->id, std::string("h100-sxm"));
        const auto mfu = rankTraceMfu(r, *gpu);
        QVERIFY(mfu);
        QVERIFY2(mfu->mfu > 0 && mfu->mfu <= 1, qPrintable(QString::number(mfu->mfu)));
        // Every model FLOP of the file ran inside the one annotated step.
        QCOMPARE(f.outsideStepsFlops, 0.0);
        // The GEMMs on the roofline: BF16 ceiling at 989 TFLOPS, marks under their roof.
        const Roofline roof = rooflineOf(f, &*gpu);
        QCOMPARE(roof.ceilings.front().peakFlops, 989e12);
        QVERIFY(!roof.marks.empty());
        for (const auto& m : roof.marks) {
            const std::string p = m.precision ? m.precision->key() : std::string();
            QVERIFY2(m.tflops() * 1e12 <= roof.attainableFlops(m.intensity(), p) * 1.001,
                qPrintable(QString::fromStdString(m.op + " " + m.shapes)));
        }
        // The critical path covers the step once.
        const StepPath& total = r.criticalPath.total;
        int64_t sum = 0;
        for (auto ns : total.shareNs)
            sum += ns;
        QCOMPARE(sum, total.spanNs);
        QVERIFY(total.share(PathShare::GpuCompute) > 0.5); // a GPU-bound forward pass once it started
    }

    // PyTorch 2.11 torch.compile on an H200: Inductor's Triton kernels stand on the roofline under the HBM roof
    // (their bytes bounded by the iteration space), and what is left out is said: the fused AdamW's kernels.
    void pytorch211Compiled()
    {
        const RankAnalysis r = analyse("pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        const auto gpu = traceHardware(r, test::shippedPresets().hardware());
        QVERIFY(gpu);
        const Roofline roof = rooflineOf(r.opFlops, &*gpu);
        int triton = 0;
        for (const auto& m : roof.marks) {
            if (m.op.rfind("triton_", 0) != 0)
                continue;
            ++triton;
            QCOMPARE(m.kind, OpKind::Elementwise);
            QVERIFY2(m.bytes / (static_cast<double>(m.ns) * 1e-9) <= gpu->hbmBandwidthBytesPerSec,
                qPrintable(QString::fromStdString(m.op + " " + m.shapes)));
        }
        QVERIFY2(triton >= 40, qPrintable(QString::number(triton)));
        QVERIFY(roof.leftOutKernels > 0);
        QVERIFY2(roof.leftOutShare > 0 && roof.leftOutShare < 0.02, qPrintable(QString::number(roof.leftOutShare)));
        QVERIFY(roof.leftOutLongest.find("FusedAdamMathFunctor") != std::string::npos);
        QVERIFY(roof.leftOutNote().find("not on the roofline") != std::string::npos);
        // The Triton kernels' FLOPs are no model FLOPs: the matrix work is the aten::mm and attention operators'.
        QCOMPARE(r.opFlops.opsWithoutShapes, int64_t { 0 });
        QVERIFY(r.opFlops.matmulFlops > 0 && r.opFlops.attentionFlops > 0);
        QVERIFY(r.opFlops.backward);
    }

    // HTA's sampled recommender rank trains (fbgemm's split_embedding_backward_..._adagrad kernels, the autograd
    // engine's MmBackward0 ranges) with plain GEMMs and no backward operator of a counted family: still a training
    // trace, not "no backward operators (inference)" as the report had it.
    void recommenderTrainsWithPlainGemms()
    {
        const RankAnalysis r = analyse("hta__trace_filter__sampled_rank-0.json.gz");
        QVERIFY(r.opFlops.matmulFlops > 0 && r.opFlops.attentionFlops == 0);
        QVERIFY(r.opFlops.backward);
    }

    // HTA's sampled traces keep no synchronisation: the path stays on the host, whose kernels yet queued a median
    // 10.8 ms after their launch, so the path's host time is said to be as recorded. The H200 trace, GPU-bound
    // with its synchronisations recorded, has no such caveat.
    void sampledTraceHostTimeIsCaveated()
    {
        const RankAnalysis sampled = analyse("hta__trace_filter__sampled_rank-0.json.gz");
        QCOMPARE(sampled.criticalPath.hostLead.synchronisations, int64_t { 0 });
        QVERIFY(sampled.criticalPath.hostLead.medianLaunchLeadNs > 10'000'000);
        QVERIFY(sampled.criticalPath.total.share(PathShare::LaunchHost) > 0.9);
        QVERIFY(hostTimeCaveat(sampled.criticalPath).find("median 10.8") != std::string::npos);
        const RankAnalysis h200 = analyse("pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        QVERIFY(h200.criticalPath.hostLead.synchronisations > 0);
        QVERIFY(h200.criticalPath.total.share(PathShare::GpuCompute) > 0.9);
        QVERIFY(hostTimeCaveat(h200.criticalPath).empty());
    }
};

QTEST_GUILESS_MAIN(TestOpFlopsReal)
#include "tst_op_flops_real.moc"
