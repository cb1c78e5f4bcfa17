// Kernel classification by the built-in rules (presets/kernels/kernel_rules.json), user rules, and rule errors.
#include <QtTest>

#include "core/errors.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/trace_loader.h"

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
        // Inductor's names as PyTorch 2.11 writes them (the shared H200 trace): operators fused, alphabetically.
        QTest::newRow("inductor fused rms_norm") << "triton_per_fused__fused_rms_norm__to_copy__unsafe_view_add_17"
                                                 << "normalization";
        QTest::newRow("inductor q/k norm") << "triton_per_fused__to_copy__unsafe_view_add_mean_pow_rsqrt_view_2"
                                           << "normalization";
        QTest::newRow("inductor q/k norm backward")
            << "triton_per_fused__to_copy__unsafe_view_add_div_expand_mul_pow_slice_backward_sum_view_13"
            << "normalization";
        QTest::newRow("inductor layer norm") << "triton_red_fused__native_layer_norm_native_layer_norm_backward_3"
                                             << "normalization";
        QTest::newRow("inductor rope is pointwise")
            << "triton_poi_fused__to_copy_add_arange_cos_div_mul_neg_pow_reciprocal_select_sin_squeeze_sum_transpose_"
               "unsqueeze_view_9"
            << "elementwise";
        QTest::newRow("inductor mse loss is no norm") << "triton_red_fused_mean_mse_loss_pow_sub_0"
                                                      << "softmax_loss";
        QTest::newRow("inductor loss backward")
            << "triton_red_fused__log_softmax__log_softmax_backward_data__to_copy_arange_eq_expand_nll_loss_backward_"
               "nll_loss_forward_scalar_tensor_view_where_0"
            << "softmax_loss";
        QTest::newRow("inductor online softmax") << "triton_red_fused__log_softmax__to_copy_prepare_softmax_online_20"
                                                 << "softmax_loss";
        QTest::newRow("inductor swiglu") << "triton_poi_fused__unsafe_view_mul_silu_silu_backward_view_4"
                                         << "elementwise";
        QTest::newRow("inductor template mm") << "triton_tem_fused_mm_4"
                                              << "gemm";
        QTest::newRow("inductor template addmm relu") << "triton_tem_fused_addmm_relu_7"
                                                      << "gemm";
        QTest::newRow("inductor template convolution") << "triton_tem_fused_convolution_2"
                                                       << "gemm";
        QTest::newRow("flex attention") << "triton_tem_fused_flex_attention_0"
                                        << "attention_fwd";
        QTest::newRow("flex attention backward") << "triton_tem_fused_flex_attention_backward_1"
                                                 << "attention_bwd";
        QTest::newRow("cudnn sdpa dO.O") << "void cudnn::fusion::compute_dot_do_o_specialized<true, 128>(void const*)"
                                         << "attention_bwd";
        QTest::newRow("cudnn sdpa dQ") << "void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*)"
                                       << "attention_bwd";
        QTest::newRow("hopper nvjet") << "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
                                      << "gemm";
        QTest::newRow("flash attention 3 fwd")
            << "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
               "CollectiveMainloopFwdSm90<2>>>>(flash::FlashAttnFwdSm90::Params)"
            << "attention_fwd";
        QTest::newRow("flash attention 3 bwd")
            << "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnBwdSm90<flash::"
               "CollectiveMainloopBwdSm90<2>>>>(flash::FlashAttnBwdSm90::Params)"
            << "attention_bwd";
        QTest::newRow("cutlass 3 gemm")
            << "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple"
               "<int, int, int>>>(Params)"
            << "gemm";
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

    // The PyTorch 2.11 torch.compile trace (../shared/traces): every kernel of it in its category, none in `other`,
    // at the shares of the summed kernel, copy and memset time its names give (counted independently in Python).
    void compiledPyTorch211Trace()
    {
        const std::string path = MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz";
        if (!QFile::exists(QString::fromStdString(path)))
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        Timeline t = loadTrace(path);
        classifyActivities(t, builtInKernelRules());
        std::array<int64_t, kKernelCategoryCount> ns {};
        int64_t total = 0;
        for (const GpuActivity& a : t.activities) {
            ns[static_cast<size_t>(a.category)] += a.durationNs();
            total += a.durationNs();
            const std::string& name = t.names.name(a.name);
            const bool triton = name.rfind("triton_", 0) == 0;
            QVERIFY2(a.category != KernelCategory::Other, name.c_str());
            QVERIFY2(!triton || a.category == KernelCategory::Elementwise || a.category == KernelCategory::Normalization
                    || a.category == KernelCategory::SoftmaxLoss,
                name.c_str());
            if (name.rfind("nvjet_", 0) == 0)
                QCOMPARE(a.category, KernelCategory::Gemm);
            if (name.find("cudnn") != std::string::npos)
                QVERIFY2(a.category == KernelCategory::AttentionFwd || a.category == KernelCategory::AttentionBwd,
                    name.c_str());
        }
        auto share = [&](KernelCategory c) {
            return std::round(1e4 * static_cast<double>(ns[static_cast<size_t>(c)]) / static_cast<double>(total)) / 100;
        };
        QCOMPARE(share(KernelCategory::Gemm), 42.90);
        QCOMPARE(share(KernelCategory::AttentionBwd), 23.01);
        QCOMPARE(share(KernelCategory::Elementwise), 13.89);
        QCOMPARE(share(KernelCategory::Normalization), 7.52);
        QCOMPARE(share(KernelCategory::AttentionFwd), 7.36);
        QCOMPARE(share(KernelCategory::SoftmaxLoss), 3.80);
        QCOMPARE(share(KernelCategory::Optimizer), 1.36);
        QCOMPARE(share(KernelCategory::Memset), 0.15);
        QCOMPARE(share(KernelCategory::Other), 0.0);
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
        // nlohmann's value("format", "") throws a type_error on a non-string format: the fuzzer's crash.
        QTest::newRow("format a number") << QString::fromStdString(quoted("{'format': 1, 'version': 1, 'rules': []}"))
                                         << "format";
        QTest::newRow("version beyond int") << QString::fromStdString(
            quoted("{'format': 'mfu-explorer-kernel-rules', 'version': 4294967297, 'rules': []}"))
                                            << "version: expected 1";
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
