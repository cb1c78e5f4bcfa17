// Kernel classification by the built-in rules (presets/kernels/kernel_rules.json), user rules, and rule errors.
#include <QtTest>

#include "core/errors.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/kernel_rules.h"

using namespace mfu::trace;

namespace {
// JSON written with single quotes, so the test data stays readable (moc cannot parse raw string literals).
std::string quoted(std::string text)
{
    for (char& c : text)
        if (c == '\'')
            c = '"';
    return text;
}
} // namespace

class TestTraceRules : public QObject {
    Q_OBJECT

    KernelRules m_rules;

private slots:
    void initTestCase() { m_rules = KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json"); }

    void builtInCategories_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("category");
        // NCCL: current, symmetric-memory, older; and PyTorch symmetric-memory collectives.
        QTest::newRow("nccl dev allreduce")
            << "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
            << "comm_allreduce";
        QTest::newRow("nccl symk allreduce") << "ncclSymkDevKernel_AllReduce_RSxLDMC_AGxSTMC<__nv_bfloat16>"
                                             << "comm_allreduce";
        QTest::newRow("nccl old allreduce")
            << "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
            << "comm_allreduce";
        QTest::newRow("multimem allreduce")
            << "void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16>()"
            << "comm_allreduce";
        QTest::newRow("nccl allgather") << "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                                        << "comm_allgather";
        QTest::newRow("nccl reducescatter")
            << "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
            << "comm_reducescatter";
        QTest::newRow("nccl sendrecv old")
            << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
            << "comm_sendrecv";
        QTest::newRow("nccl sendrecv") << "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
                                       << "comm_sendrecv";
        QTest::newRow("nccl broadcast")
            << "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
            << "comm_broadcast";
        QTest::newRow("nccl generic") << "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"
                                      << "comm_other";
        QTest::newRow("nccl alltoall") << "ncclDevKernel_AllToAll(...)"
                                       << "comm_alltoall";
        // GEMMs
        QTest::newRow("hopper cublas") << "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
                                       << "gemm";
        QTest::newRow("blackwell nvjet") << "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT"
                                         << "gemm";
        QTest::newRow("cutlass") << "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(Params)"
                                 << "gemm";
        QTest::newRow("ampere") << "ampere_sgemm_128x64_nn"
                                << "gemm";
        QTest::newRow("volta") << "volta_sgemm_128x64_nt"
                               << "gemm";
        QTest::newRow("split-k")
            << "void cublasLt::splitKreduce_kernel<32, 16, int, float>(cublasLt::cublasSplitKParams<float>)"
            << "gemm";
        QTest::newRow("amd") << "Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1"
                             << "gemm";
        // Block-scaled FP8 and FP4 GEMMs: TensorRT-LLM's Blackwell kernels as vLLM runs them for MoE experts
        // (about 45% of kernel time in a B200 FP4 serving trace), DeepGEMM, vLLM's Triton MoE GEMM.
        QTest::newRow("trtllm mx fp8 x fp4")
            << "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x8x256u2_s6_et128x8_m128x8x64_cga1x1x1_16dp256b_rM_TN_transOut_"
               "schPd2x1x2x320_bN_dynB_sm100f"
            << "gemm";
        QTest::newRow("trtllm fp8") << "bmm_E4m3_E4m3E4m3_Fp32_t128x128x128_s4_et64x128_m64x128x32_cga1x1x1_sm100a"
                                    << "gemm";
        QTest::newRow("deepgemm fp8")
            << "void deep_gemm::fp8_gemm_kernel<128u, 128u, 128u, 1u, 8u, 128u, 4u, 1u, (deep_gemm::GemmType)0>()"
            << "gemm";
        QTest::newRow("vllm triton moe") << "fused_moe_kernel"
                                         << "gemm";
        QTest::newRow("moe routing is not a gemm") << "void vllm::moe::moe_align_block_size_kernel<int>(int*, int*)"
                                                   << "other";
        QTest::newRow("fbgemm is not a gemm") << "void fbgemm_gpu::_offsets_range_cuda_kernel<int>(long, long)"
                                              << "other";
        // Attention
        QTest::newRow("flash fwd") << "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64> >(Params)"
                                   << "attention_fwd";
        QTest::newRow("flash bwd")
            << "void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits>(Params)"
            << "attention_bwd";
        QTest::newRow("cudnn sdpa fwd") << "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3"
                                        << "attention_fwd";
        QTest::newRow("cudnn sdpa bwd") << "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_7"
                                        << "attention_bwd";
        QTest::newRow("mem-efficient fwd")
            << "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel)"
            << "attention_fwd";
        QTest::newRow("mem-efficient bwd")
            << "fmha_cutlassB_bf16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel)"
            << "attention_bwd";
        QTest::newRow("triton attn") << "_attn_fwd"
                                     << "attention_fwd";
        // Inductor, norms, losses, optimizer
        QTest::newRow("inductor pointwise") << "triton_poi_fused_add_mul_0"
                                            << "elementwise";
        QTest::newRow("inductor rmsnorm") << "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1"
                                          << "normalization";
        QTest::newRow("inductor log_softmax") << "triton_per_fused__log_softmax_2"
                                              << "softmax_loss";
        QTest::newRow("aten layernorm")
            << "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>()"
            << "normalization";
        QTest::newRow("cross entropy") << "void at::native::cross_entropy_loss_kernel<float>()"
                                       << "softmax_loss";
        QTest::newRow("adam")
            << "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>()"
            << "optimizer";
        QTest::newRow("aten elementwise wrapper")
            << "void at::native::vectorized_elementwise_kernel<4, at::native::softmax_functor>()"
            << "elementwise";
        QTest::newRow("unknown") << "my_custom_kernel"
                                 << "other";
    }
    void builtInCategories()
    {
        QFETCH(QString, name);
        QFETCH(QString, category);
        QCOMPARE(QString::fromLatin1(categoryKey(m_rules.classify(name.toStdString()))), category);
        // The rules compiled into the core (what the CLI, the Trace panel and the report use) classify alike.
        QCOMPARE(QString::fromLatin1(categoryKey(builtInKernelRules().classify(name.toStdString()))), category);
    }

    void compiledInRulesAreTheShippedFile()
    {
        QFile file(QStringLiteral(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray shipped = file.readAll();
        QCOMPARE(QByteArray(builtInKernelRulesText().data(), static_cast<qsizetype>(builtInKernelRulesText().size())),
            shipped);
        QCOMPARE(builtInKernelRules().size(), m_rules.size());
        QVERIFY(builtInKernelRules().size() > 10);
    }

    void userRulesComeFirst()
    {
        const KernelRules user
            = KernelRules::fromJsonText(quoted("{'format': 'mfu-explorer-kernel-rules', 'version': 1, 'rules': "
                                               "[{'category': 'attention_fwd', 'regex': ['^my_custom_.*']}]}"),
                "user.json");
        const KernelRules combined = m_rules.withPriorityRules(user);
        QCOMPARE(combined.classify("my_custom_kernel"), KernelCategory::AttentionFwd);
        QCOMPARE(combined.size(), m_rules.size() + 1);
        QCOMPARE(m_rules.classify("my_custom_kernel"), KernelCategory::Other);
    }

    void memoryActivitiesByKind()
    {
        Timeline t;
        const NameId n = t.names.intern("Memcpy DtoD (Device -> Device)");
        t.activities.push_back({ 0, 1, -1, n, 0, 7, ActivityKind::Memcpy, KernelCategory::Other });
        t.activities.push_back({ 0, 1, -1, n, 0, 7, ActivityKind::Memset, KernelCategory::Other });
        classifyActivities(t, m_rules);
        QCOMPARE(t.activities[0].category, KernelCategory::Memcpy);
        QCOMPARE(t.activities[1].category, KernelCategory::Memset);
    }

    void badRuleFiles_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << "{"
                                  << "not valid JSON";
        QTest::newRow("wrong format") << QString::fromStdString(
            quoted("{'format': 'mfu-explorer-hardware', 'version': 1, 'rules': []}"))
                                      << "format";
        QTest::newRow("unknown category") << QString::fromStdString(
            quoted("{'format': 'mfu-explorer-kernel-rules', 'version': 1, 'rules': [{'category': 'matmul', 'contains': "
                   "['x']}]}")) << "rules[0].category: unknown category \"matmul\"";
        QTest::newRow("bad regex") << QString::fromStdString(quoted(
            "{'format': 'mfu-explorer-kernel-rules', 'version': 1, 'rules': [{'category': 'gemm', 'regex': ['(']}]}"))
                                   << "rules[0].regex[0]: invalid regular expression";
        QTest::newRow("no pattern") << QString::fromStdString(
            quoted("{'format': 'mfu-explorer-kernel-rules', 'version': 1, 'rules': [{'category': 'gemm'}]}"))
                                    << "rules[0]: needs at least one pattern";
        QTest::newRow("contains not strings") << QString::fromStdString(quoted(
            "{'format': 'mfu-explorer-kernel-rules', 'version': 1, 'rules': [{'category': 'gemm', 'contains': [1]}]}"))
                                              << "rules[0].contains[0]: must be a non-empty string";
    }
    void badRuleFiles()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        try {
            KernelRules::fromJsonText(text.toStdString(), "rules.json");
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith("rules.json: "), qPrintable(what));
            QVERIFY2(what.contains(message), qPrintable(what));
        }
    }
};

QTEST_GUILESS_MAIN(TestTraceRules)
#include "tst_rules.moc"
