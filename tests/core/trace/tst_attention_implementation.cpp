// Which attention implementation a trace ran (core/trace/attention_implementation.h), from kernel names as the
// libraries write them, from the CPU operators, and on the real traces of ../shared/traces; and the cost model's
// kernel for it (cuDNN accepted on Hopper).
#include <QDir>
#include <QtTest>

#include "core/costmodel/attention_kernels.h"
#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/trace_loader.h"
#include "trace_test_support.h"

using namespace mfu;
using namespace mfu::trace;

namespace {

std::string cpuOp(const std::string& name, const std::string& ts, const std::string& dur)
{
    return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts
        + ", \"dur\": " + dur + ", \"args\": {}}";
}

std::optional<DetectedAttention> detect(const std::vector<std::string>& events)
{
    Timeline t = trace_test::read(trace_test::traceOf(events));
    classifyActivities(t, builtInKernelRules());
    return detectAttentionImplementation(t);
}

std::string realTrace(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

} // namespace

class TestAttentionImplementation : public QObject {
    Q_OBJECT

private slots:
    void kernelNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("implementation"); // "" for none
        QTest::newRow("cuDNN fprop") << "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_"
                                        "4x1x1_cga1x1x1_kernel0_0"
                                     << "cudnn";
        QTest::newRow("cuDNN bprop") << "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_"
                                        "1x4x1_cga1x1x1_kernel0_0"
                                     << "cudnn";
        QTest::newRow("cuDNN dO.O") << "void cudnn::fusion::compute_dot_do_o_specialized<true, 128>(void const*, void "
                                       "const*, void*, void*, unsigned int)"
                                    << "cudnn";
        QTest::newRow("cuDNN dQ") << "void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int)"
                                  << "cudnn";
        QTest::newRow("PyTorch flash") << "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<"
                                          "64, 128, 128, 4, false, false, cutlass::bfloat16_t>>(pytorch_flash::Flash_"
                                          "fwd_params)"
                                       << "flash2";
        QTest::newRow("FA2 bwd") << "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<"
                                    "128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true>(Flash_bwd_"
                                    "params)"
                                 << "flash2";
        QTest::newRow("FA2 split-kv")
            << "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>"
            << "flash2";
        QTest::newRow("FA3 fwd") << "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
                                    "flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>>>>>>(flash::"
                                    "FlashAttnFwdSm90::Params)"
                                 << "flash3";
        QTest::newRow("FA3 bwd") << "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnBwdSm90<"
                                    "flash::CollectiveMainloopBwdSm90<2>>>>(flash::FlashAttnBwdSm90::Params)"
                                 << "flash3";
        QTest::newRow("FA3 dQ") << "void flash::FlashAttnBwdPostprocessConvertdQ<cute::tuple<cute::C<128>>>(Params)"
                                << "flash3";
        QTest::newRow("mem-efficient fwd") << "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::"
                                              "AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, "
                                              "64, 64, true, true>::Params)"
                                           << "efficient";
        QTest::newRow("mem-efficient bwd") << "fmha_cutlassB_bf16_aligned_64x64_k64_sm80(PyTorchMemEffAttention::"
                                              "AttentionBackwardKernel<cutlass::arch::Sm80>::Params)"
                                           << "efficient";
        QTest::newRow("cuDNN convolution") << "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolution"
                                           << "";
        QTest::newRow("cuDNN batch norm") << "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1>"
                                          << "";
        QTest::newRow("GEMM") << "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
                              << "";
        QTest::newRow("softmax") << "void (anonymous namespace)::softmax_warp_forward<float, float, float, 1>"
                                 << "";
    }

    void kernelNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, implementation);
        const auto found = attentionImplementationOfKernel(name.toStdString());
        QCOMPARE(found ? QString::fromUtf8(attentionImplementationKey(*found)) : QString(), implementation);
    }

    void operatorNames()
    {
        auto key = [](const char* op) {
            const auto found = attentionImplementationOfOperator(op);
            return found ? std::string(attentionImplementationKey(*found)) : std::string();
        };
        QCOMPARE(key("aten::_scaled_dot_product_cudnn_attention"), std::string("cudnn"));
        QCOMPARE(key("aten::_cudnn_attention_backward"), std::string("cudnn"));
        QCOMPARE(key("aten::_scaled_dot_product_flash_attention"), std::string("flash2"));
        QCOMPARE(key("aten::_flash_attention_forward"), std::string("flash2"));
        QCOMPARE(key("flash_attn::_flash_attn_forward"), std::string("flash2"));
        QCOMPARE(key("flash_attn_3::fwd"), std::string("flash3"));
        QCOMPARE(key("aten::_efficient_attention_forward"), std::string("efficient"));
        QCOMPARE(key("aten::_scaled_dot_product_efficient_attention_backward"), std::string("efficient"));
        QCOMPARE(key("aten::_scaled_dot_product_attention_math"), std::string("math"));
        QCOMPARE(key("aten::_scaled_dot_product_flash_attention_for_cpu"), std::string()); // runs on the host
        QCOMPARE(key("aten::scaled_dot_product_attention"), std::string()); // the dispatcher, any backend
        QCOMPARE(key("aten::mm"), std::string());
    }

    // The implementation with the most kernel time wins; its share is of all attention time.
    void mostTimeWins()
    {
        using trace_test::kernel;
        const auto found = detect({ kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16", "100", "300"),
            kernel("void pytorch_flash::flash_fwd_kernel<Traits>(Params)", "500", "100"),
            kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "700", "1000") });
        QVERIFY(found);
        QCOMPARE(found->implementation, AttentionImplementation::Cudnn);
        QCOMPARE(found->shareOfAttentionTime.value_or(-1), 0.75);
    }

    // Math attention has no kernel of its own: the GEMMs and softmax launched under its operator are its time.
    void mathAttention()
    {
        using trace_test::kernel;
        using trace_test::launch;
        const auto found
            = detect({ cpuOp("aten::_scaled_dot_product_attention_math", "10", "50"), launch(1, "12"), launch(2, "20"),
                launch(3, "70"), kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", "100", "40", 7, 1),
                kernel("void (anonymous namespace)::softmax_warp_forward<c10::BFloat16>", "140", "20", 7, 2),
                kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", "200", "400", 7, 3) }); // a projection, after
        QVERIFY(found);
        QCOMPARE(found->implementation, AttentionImplementation::Math);
        QCOMPARE(found->shareOfAttentionTime.value_or(-1), 1.0);
    }

    // A trace without kernels still names the implementation through its operators, with no share of time.
    void operatorsOnly()
    {
        const auto found = detect({ cpuOp("aten::_scaled_dot_product_efficient_attention", "10", "50"),
            cpuOp("aten::_efficient_attention_forward", "11", "40") });
        QVERIFY(found);
        QCOMPARE(found->implementation, AttentionImplementation::Efficient);
        QVERIFY(!found->shareOfAttentionTime);
        QVERIFY(!detect({ cpuOp("aten::mm", "10", "50") }));
    }

    // Predict adopts what the trace ran: the cost model's kernel, cuDNN accepted on Hopper at its documented ratio.
    void costModelKernel()
    {
        QCOMPARE(attentionKernelFor(AttentionImplementation::Cudnn), std::optional(AttentionKernel::Cudnn));
        QCOMPARE(attentionKernelFor(AttentionImplementation::Flash3), std::optional(AttentionKernel::FlashAttention3));
        QCOMPARE(attentionKernelFor(AttentionImplementation::Flash2), std::optional(AttentionKernel::FlashAttention2));
        QCOMPARE(attentionKernelFor(AttentionImplementation::Math), std::optional(AttentionKernel::Unfused));
        QVERIFY(!attentionKernelFor(AttentionImplementation::Efficient));
        QVERIFY(attentionKernelUnavailable(AttentionKernel::Cudnn, AcceleratorFamily::Hopper) == nullptr);
        const CostModelConstants c;
        const auto cudnn = attentionEfficiency(c, AttentionKernel::Cudnn, AcceleratorFamily::Hopper, 128, 4096);
        const auto fa3 = attentionEfficiency(c, AttentionKernel::FlashAttention3, AcceleratorFamily::Hopper, 128, 4096);
        QVERIFY(cudnn.forward > 0);
        QCOMPARE(cudnn.forward / fa3.forward, 0.95);
    }

    void realTraces()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        // PyTorch 2.11 on an H200 ran SDPA through cuDNN (the trace's README): every attention kernel is cuDNN's.
        Timeline compiled = loadTrace(realTrace("pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz"));
        const RankAnalysis r = analyzeRank(compiled, builtInKernelRules());
        QVERIFY(r.attention);
        QCOMPARE(r.attention->implementation, AttentionImplementation::Cudnn);
        QCOMPARE(r.attention->shareOfAttentionTime.value_or(-1), 1.0);
        // TraceLens's Qwen1.5 inference on an H100: PyTorch's own FlashAttention 2.
        Timeline inference = loadTrace(realTrace("tracelens__h100__qwen1.5-0.5b-chat.json.gz"));
        classifyActivities(inference, builtInKernelRules());
        const auto flash = detectAttentionImplementation(inference);
        QVERIFY(flash);
        QCOMPARE(flash->implementation, AttentionImplementation::Flash2);
        // HTA's CNN: cuDNN convolutions and batch norms, no attention.
        Timeline cnn = loadTrace(realTrace("hta__nccl_parser_config__nccl_data.json.gz"));
        classifyActivities(cnn, builtInKernelRules());
        QVERIFY(!detectAttentionImplementation(cnn));
    }
};

QTEST_GUILESS_MAIN(TestAttentionImplementation)
#include "tst_attention_implementation.moc"
