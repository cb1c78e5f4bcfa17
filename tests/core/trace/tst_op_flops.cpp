// FLOPs and bytes of one operator from its recorded shapes (core/trace/op_flops.h), against counts worked by hand,
// and the precision a GEMM ran at (core/trace/gemm_precision.h).
#include <QtTest>

#include "core/trace/gemm_precision.h"
#include "core/trace/op_flops.h"

using namespace mfu;
using namespace mfu::trace;

namespace {

struct Input {
    std::vector<int64_t> dims;
    std::string type;
    std::string concrete;
};

OpArgs args(const std::vector<Input>& inputs)
{
    OpArgs a;
    a.hasDims = true;
    for (const auto& in : inputs) {
        a.dims.insert(a.dims.end(), in.dims.begin(), in.dims.end());
        a.dimsEnd.push_back(static_cast<uint32_t>(a.dims.size()));
        a.types.push_back(scalarTypeFromName(in.type));
        a.concrete.push_back(in.concrete);
    }
    return a;
}

const std::string bf16 = "c10::BFloat16";
const std::string scalar = "Scalar";

} // namespace

class TestOpFlops : public QObject {
    Q_OBJECT

private slots:
    void elementTypes()
    {
        QCOMPARE(scalarTypeFromName("c10::BFloat16"), ScalarType::BFloat16);
        QCOMPARE(scalarTypeFromName("c10::Half"), ScalarType::Half);
        QCOMPARE(scalarTypeFromName("float"), ScalarType::Float);
        QCOMPARE(scalarTypeFromName("c10::Float8_e4m3fn"), ScalarType::Float8E4M3);
        QCOMPARE(scalarTypeFromName("c10::Float4_e2m1fn_x2"), ScalarType::Float4E2M1x2);
        QCOMPARE(scalarTypeFromName("long int"), ScalarType::Int64);
        QCOMPARE(scalarTypeFromName("Scalar"), ScalarType::None);
        QCOMPARE(scalarTypeFromName("c10::qint8"), ScalarType::Unknown);
        QCOMPARE(bytesPerElement(ScalarType::BFloat16), 2.0);
        QCOMPARE(bytesPerElement(ScalarType::Float8E5M2), 1.0);
        QCOMPARE(numberFormatOf(ScalarType::Half), std::optional(NumberFormat::FP16));
        QVERIFY(!numberFormatOf(ScalarType::Int8));
    }

    // torch.compile's Triton kernels, recorded as operators named after them (the PyTorch 2.11 trace's arguments).
    void inductorKernels()
    {
        QVERIFY(isInductorKernel("triton_poi_fused__to_copy_view_2"));
        QVERIFY(isInductorKernel("triton_tem_fused_mm_0"));
        QVERIFY(!isInductorKernel("triton_fused_kernel"));
        QVERIFY(!isInductorKernel("aten::add"));
        QCOMPARE(opKindOf("triton_red_fused__log_softmax__to_copy_prepare_softmax_online_20"), OpKind::Elementwise);
        QCOMPARE(opKindOf("triton_tem_fused_addmm_1"), OpKind::Matmul);
        QCOMPARE(opKindOf("triton_tem_fused_convolution_2"), OpKind::None); // no two-buffer product to count
        QCOMPARE(opKindOf("my_triton_kernel"), OpKind::None);

        // A cast: float [8, 4096, 1024] written from bf16 [32768, 1024]: each buffer once, a FLOP per point.
        const OpWork cast = opWork("triton_poi_fused__to_copy_view_2",
            args({ { { 8, 4096, 1024 }, "float", "" }, { { 32768, 1024 }, bf16, "" }, { {}, scalar, "33554432" } }));
        QVERIFY(cast.known);
        QCOMPARE(cast.kind, OpKind::Elementwise);
        QCOMPARE(cast.bytes, 33554432.0 * (4 + 2));
        QCOMPARE(cast.flops, 33554432.0);

        // The loss picks one logit per row: of the [32768, 151936] logits it touches 4 x 8192 elements, not all.
        const OpWork nll = opWork("triton_red_fused__log_softmax__to_copy_nll_loss_forward_sub_view_21",
            args({ { { 8, 4096 }, "long int", "" }, { { 32768, 151936 }, bf16, "" }, { { 32768, 1 }, "float", "" },
                { { 32768, 1 }, "float", "" }, { { 4 }, "long int", "" }, { { 4 }, "float", "" }, { {}, scalar, "4" },
                { {}, scalar, "8192" } }));
        QVERIFY(nll.known);
        QCOMPARE(nll.bytes, 32768.0 * (8 + 2 + 4 + 4) + 4 * (8 + 4));
        QCOMPARE(nll.flops, 32768.0);

        // A templated GEMM: A [512, 256] x B [256, 128] into C [512, 128], a bias beside them.
        const OpWork mm = opWork("triton_tem_fused_addmm_1",
            args({ { { 128 }, bf16, "" }, { { 512, 256 }, bf16, "" }, { { 256, 128 }, bf16, "" },
                { { 512, 128 }, bf16, "" }, { {}, scalar, "65536" } }));
        QVERIFY(mm.known);
        QCOMPARE(mm.flops, 2.0 * 512 * 128 * 256);
        QCOMPARE(mm.bytes, 2.0 * (128 + 512 * 256 + 256 * 128 + 512 * 128));
        QCOMPARE(mm.precision, std::optional(NumberFormat::BF16));
        // Without a buffer of the product's shape it is not counted as a product.
        QVERIFY(
            !opWork("triton_tem_fused_mm_0", args({ { { 512, 256 }, bf16, "" }, { { 256, 128 }, bf16, "" } })).known);
    }

    void families()
    {
        QCOMPARE(opKindOf("aten::mm"), OpKind::Matmul);
        QCOMPARE(opKindOf("aten::_scaled_mm"), OpKind::Matmul);
        QCOMPARE(opKindOf("aten::_grouped_mm"), OpKind::GroupedGemm);
        QCOMPARE(opKindOf("aten::_flash_attention_forward"), OpKind::Attention);
        QCOMPARE(opKindOf("flash_attn::_flash_attn_backward"), OpKind::Attention);
        QCOMPARE(opKindOf("aten::cudnn_convolution"), OpKind::Convolution);
        QCOMPARE(opKindOf("aten::add"), OpKind::Elementwise);
        QCOMPARE(opKindOf("aten::native_layer_norm"), OpKind::Normalization);
        // Wrappers count through the operators they call.
        QCOMPARE(opKindOf("aten::linear"), OpKind::None);
        QCOMPARE(opKindOf("aten::matmul"), OpKind::None);
        QCOMPARE(opKindOf("aten::view"), OpKind::None);
    }

    // 2·M·N·K: Qwen1.5-0.5B's q_proj on 16 x 559 tokens, as the TraceLens H100 trace records it.
    void addmm()
    {
        const OpWork w = opWork("aten::addmm",
            args({ { { 1024 }, bf16, "" }, { { 8944, 1024 }, bf16, "" }, { { 1024, 1024 }, bf16, "" },
                { {}, scalar, "1" }, { {}, scalar, "1" } }));
        QVERIFY(w.known);
        QCOMPARE(w.kind, OpKind::Matmul);
        QCOMPARE(w.flops, 2.0 * 8944 * 1024 * 1024); // 18,756,927,488
        QCOMPARE(w.precision, std::optional(NumberFormat::BF16));
        // A, B, the output and the bias, two bytes each.
        QCOMPARE(w.bytes, 2.0 * (8944 * 1024 + 1024 * 1024 + 8944 * 1024 + 1024));
    }

    void mmAndBatched()
    {
        const OpWork mm = opWork("aten::mm", args({ { { 4096, 4096 }, bf16, "" }, { { 4096, 11008 }, bf16, "" } }));
        QCOMPARE(mm.flops, 2.0 * 4096 * 11008 * 4096);
        const OpWork bmm
            = opWork("aten::bmm", args({ { { 16, 512, 64 }, "c10::Half", "" }, { { 16, 64, 512 }, "c10::Half", "" } }));
        QCOMPARE(bmm.flops, 2.0 * 16 * 512 * 512 * 64);
        QCOMPARE(bmm.precision, std::optional(NumberFormat::FP16));
        const OpWork baddbmm = opWork("aten::baddbmm",
            args({ { { 16, 512, 512 }, bf16, "" }, { { 16, 512, 64 }, bf16, "" }, { { 16, 64, 512 }, bf16, "" } }));
        QCOMPARE(baddbmm.flops, 2.0 * 16 * 512 * 512 * 64);
        const OpWork fp32 = opWork("aten::mm", args({ { { 8, 16 }, "float", "" }, { { 16, 4 }, "float", "" } }));
        QCOMPARE(fp32.flops, 2.0 * 8 * 4 * 16);
        QCOMPARE(fp32.precision, std::optional(NumberFormat::FP32));
    }

    // FP8 with per-tensor scales; FP4 holds two values per recorded element, so K doubles; E8M0 scales are MX.
    void scaledMm()
    {
        const std::string e4m3 = "c10::Float8_e4m3fn";
        const OpWork fp8 = opWork("aten::_scaled_mm",
            args({ { { 8192, 4096 }, e4m3, "" }, { { 4096, 14336 }, e4m3, "" }, { {}, "float", "" },
                { {}, "float", "" } }));
        QCOMPARE(fp8.flops, 2.0 * 8192 * 14336 * 4096);
        QCOMPARE(fp8.precision, std::optional(NumberFormat::FP8));
        QVERIFY(!fp8.microscaled);
        const std::string fp4 = "c10::Float4_e2m1fn_x2";
        const std::string e8m0 = "c10::Float8_e8m0fnu";
        const OpWork mx = opWork("aten::_scaled_mm",
            args({ { { 8192, 2048 }, fp4, "" }, { { 2048, 14336 }, fp4, "" }, { { 8192, 128 }, e8m0, "" },
                { { 14336, 128 }, e8m0, "" } }));
        QCOMPARE(mx.flops, 2.0 * 8192 * 14336 * 4096);
        QCOMPARE(mx.precision, std::optional(NumberFormat::FP4));
        QVERIFY(mx.microscaled);
    }

    // MoE experts: 2-D tokens against 3-D expert weights, each token row through one expert.
    void groupedMm()
    {
        const OpWork forward = opWork("aten::_grouped_mm",
            args({ { { 65536, 2048 }, bf16, "" }, { { 64, 2048, 1408 }, bf16, "" }, { { 64 }, "int", "" } }));
        QCOMPARE(forward.kind, OpKind::GroupedGemm);
        QCOMPARE(forward.flops, 2.0 * 65536 * 2048 * 1408);
        const OpWork weightGrad = opWork("aten::_grouped_mm",
            args({ { { 2048, 65536 }, bf16, "" }, { { 65536, 1408 }, bf16, "" }, { { 64 }, "int", "" } }));
        QCOMPARE(weightGrad.flops, 2.0 * 2048 * 1408 * 65536);
    }

    // Forward 2·B·H·Sq·Sk·(Dqk + Dv), halved when causal; backward executes 2.5x, of which the model's is 2x (the
    // fifth product recomputes Q·Kᵀ).
    void attention()
    {
        // The TraceLens H100 trace's _flash_attention_forward: [16, 559, 16, 64] BSHD, is_causal "True" at index 8.
        std::vector<Input> in { { { 16, 559, 16, 64 }, bf16, "" }, { { 16, 559, 16, 64 }, bf16, "" },
            { { 16, 559, 16, 64 }, bf16, "" }, { {}, "", "" }, { {}, "", "" }, { {}, scalar, "559" },
            { {}, scalar, "559" }, { {}, scalar, "0." }, { {}, scalar, "True" }, { {}, scalar, "False" },
            { {}, scalar, "0.125" } };
        const OpWork flash = opWork("aten::_flash_attention_forward", args(in));
        QVERIFY(flash.known);
        QVERIFY(flash.causal);
        QCOMPARE(flash.flops, 2.0 * 16 * 16 * 559 * 559 * 128 / 2);
        in[8].concrete = "False";
        QCOMPARE(opWork("aten::_flash_attention_forward", args(in)).flops, 2.0 * 16 * 16 * 559 * 559 * 128);

        // SDPA in BHSD with grouped-query K/V (8 KV heads for 32 query heads): the query's heads count.
        const OpWork sdpa = opWork("aten::_scaled_dot_product_flash_attention",
            args({ { { 2, 32, 4096, 128 }, bf16, "" }, { { 2, 8, 4096, 128 }, bf16, "" },
                { { 2, 8, 4096, 128 }, bf16, "" }, { {}, scalar, "0." }, { {}, scalar, "True" } }));
        const double forward = 2.0 * 2 * 32 * 4096 * 4096 * 256 / 2;
        QCOMPARE(sdpa.flops, forward);
        const OpWork backward = opWork("aten::_scaled_dot_product_flash_attention_backward",
            args({ { { 2, 32, 4096, 128 }, bf16, "" }, { { 2, 32, 4096, 128 }, bf16, "" },
                { { 2, 8, 4096, 128 }, bf16, "" }, { { 2, 8, 4096, 128 }, bf16, "" },
                { { 2, 32, 4096, 128 }, bf16, "" }, { { 2, 32, 4096 }, "float", "" }, { {}, "", "" }, { {}, "", "" },
                { {}, scalar, "4096" }, { {}, scalar, "4096" }, { {}, scalar, "0." }, { {}, scalar, "True" } }));
        QVERIFY(backward.backward);
        QCOMPARE(backward.flops, 2.5 * forward);
        QCOMPARE(backward.modelFlops(), 2.0 * forward);
        QCOMPARE(backward.recomputedFlops, 0.5 * forward);
        QCOMPARE(sdpa.recomputedFlops, 0.0);
        QCOMPARE(sdpa.modelFlops(), forward);

        // Multi-head latent attention (DeepSeek-V3: keys 192 wide, values 128): the backward's products over the
        // keys' width (Q·Kᵀ again, dQ, dK) and the values' (dV, dP) are not 2.5x the forward; the model's are still
        // 2x, the recomputed Q·Kᵀ over the keys' width.
        const OpWork mla = opWork("aten::_scaled_dot_product_flash_attention_backward",
            args({ { { 1, 16, 4096, 128 }, bf16, "" }, { { 1, 16, 4096, 192 }, bf16, "" },
                { { 1, 16, 4096, 192 }, bf16, "" }, { { 1, 16, 4096, 128 }, bf16, "" },
                { { 1, 16, 4096, 128 }, bf16, "" }, { { 1, 16, 4096 }, "float", "" }, { {}, "", "" }, { {}, "", "" },
                { {}, scalar, "4096" }, { {}, scalar, "4096" }, { {}, scalar, "0." }, { {}, scalar, "True" } }));
        const double perWidth = 2.0 * 16 * 4096 * 4096 / 2;
        QVERIFY(mla.known);
        QCOMPARE(mla.flops, perWidth * (3 * 192 + 2 * 128));
        QCOMPARE(mla.modelFlops(), 2 * perWidth * (192 + 128));
        QCOMPARE(mla.recomputedFlops, perWidth * 192);

        // Memory-efficient attention's custom_mask_type: 1 and 2 are causal.
        std::vector<Input> eff { { { 4, 1024, 16, 64 }, bf16, "" }, { { 4, 1024, 16, 64 }, bf16, "" },
            { { 4, 1024, 16, 64 }, bf16, "" }, { {}, "", "" }, { {}, "", "" }, { {}, "", "" }, { {}, scalar, "" },
            { {}, scalar, "" }, { {}, scalar, "0." }, { {}, scalar, "1" } };
        QCOMPARE(opWork("aten::_efficient_attention_forward", args(eff)).flops, 2.0 * 4 * 16 * 1024 * 1024 * 128 / 2);

        // Packed (variable-length) attention has 3-D inputs: not countable from shapes.
        const OpWork varlen = opWork("aten::_flash_attention_forward",
            args({ { { 8192, 16, 64 }, bf16, "" }, { { 8192, 16, 64 }, bf16, "" }, { { 8192, 16, 64 }, bf16, "" } }));
        QVERIFY(!varlen.known);
        QCOMPARE(varlen.flops, 0.0);
    }

    // ResNet-50's first convolution (7x7, stride 2, padding 3, 224x224 RGB -> 64 x 112 x 112): 112 x 112 outputs x
    // 64 channels x 3 x 7 x 7 = 118,013,952 multiply-adds.
    void convolution()
    {
        const OpWork conv = opWork("aten::cudnn_convolution",
            args({ { { 1, 3, 224, 224 }, "float", "" }, { { 64, 3, 7, 7 }, "float", "" }, { {}, "", "[3, 3]" },
                { {}, "", "[2, 2]" }, { {}, "", "[1, 1]" }, { {}, scalar, "1" } }));
        QVERIFY(conv.known);
        QCOMPARE(conv.flops, 2.0 * 118013952);
        // The same problem through aten::convolution's argument order, and its backward from the gradient's shape.
        const OpWork viaConvolution = opWork("aten::convolution",
            args({ { { 1, 3, 224, 224 }, "float", "" }, { { 64, 3, 7, 7 }, "float", "" }, { {}, "", "" },
                { {}, "", "[2, 2]" }, { {}, "", "[3, 3]" }, { {}, "", "[1, 1]" }, { {}, scalar, "False" },
                { {}, "", "[0, 0]" }, { {}, scalar, "1" } }));
        QCOMPARE(viaConvolution.flops, conv.flops);
        std::vector<Input> backward { { { 1, 64, 112, 112 }, "float", "" }, { { 1, 3, 224, 224 }, "float", "" },
            { { 64, 3, 7, 7 }, "float", "" }, { {}, "", "" }, { {}, "", "[2, 2]" }, { {}, "", "[3, 3]" },
            { {}, "", "[1, 1]" }, { {}, scalar, "False" }, { {}, "", "[0, 0]" }, { {}, scalar, "1" },
            { {}, "", "[True, True, True]" } };
        QCOMPARE(opWork("aten::convolution_backward", args(backward)).flops, 2 * conv.flops);
        backward[10].concrete = "[False, True, True]"; // the first layer needs no input gradient
        QCOMPARE(opWork("aten::convolution_backward", args(backward)).flops, conv.flops);
    }

    // Bytes: inputs read once, the output written once.
    void bytesOfElementwise()
    {
        const OpWork add = opWork("aten::add",
            args({ { { 16, 559, 1024 }, bf16, "" }, { { 16, 559, 1024 }, bf16, "" }, { {}, scalar, "1" } }));
        QVERIFY(add.known);
        QCOMPARE(add.bytes, 3.0 * 16 * 559 * 1024 * 2);
        QCOMPARE(add.flops, 16.0 * 559 * 1024);
        // Broadcast: a [1024] bias added to [16, 559, 1024] writes the large shape.
        const OpWork bias = opWork("aten::add", args({ { { 16, 559, 1024 }, bf16, "" }, { { 1024 }, bf16, "" } }));
        QCOMPARE(bias.bytes, 2.0 * (16 * 559 * 1024 * 2 + 1024));
        const OpWork mean
            = opWork("aten::mean", args({ { { 16, 559, 1024 }, "float", "" }, { {}, "ScalarList", "[-1]" } }));
        QCOMPARE(mean.bytes, 4.0 * 16 * 559 * 1024);
        const OpWork norm = opWork("aten::native_layer_norm",
            args({ { { 8192, 4096 }, bf16, "" }, { {}, "", "[4096]" }, { { 4096 }, bf16, "" }, { { 4096 }, bf16, "" },
                { {}, scalar, "1e-05" } }));
        QCOMPARE(norm.kind, OpKind::Normalization);
        QCOMPARE(norm.bytes, 2.0 * (8192 * 4096 * 2 + 4096 * 2));
        QVERIFY(!isModelWork(norm.kind));
    }

    void withoutShapes()
    {
        OpArgs none;
        const OpWork w = opWork("aten::mm", none);
        QCOMPARE(w.kind, OpKind::Matmul);
        QVERIFY(!w.known);
        QCOMPARE(w.flops, 0.0);
        QCOMPARE(opWork("aten::view", none).kind, OpKind::None);
        // A malformed shape is not a count.
        QVERIFY(!opWork("aten::mm", args({ { { 4096 }, bf16, "" }, { { 4096, 8 }, bf16, "" } })).known);
        QVERIFY(!opWork("aten::mm", args({ { { -1, 8 }, bf16, "" }, { { 8, 8 }, bf16, "" } })).known);
        // A tensor list the profiler recorded as [] (HTA's recommender traces' aten::cat) has no elements to count,
        // where a recorded list of two [4, 8] tensors has 64 (read twice over as 16-bit: read and written).
        QVERIFY(!opWork("aten::cat", args({ { {}, "TensorList", "" }, { {}, scalar, "0" } })).known);
        const OpWork listed = opWork("aten::cat", args({ { { 64 }, "TensorList", "" }, { {}, scalar, "0" } }));
        QVERIFY(listed.known);
        QVERIFY(listed.bytes > 0);
    }

    // Shapes no device could hold (int64's largest dim, a logger's overflow) are not counted: an aten::mm of
    // [2^63 - 1, 4096] x [4096, 4096] would otherwise add 6.9e22 TFLOP to the trace. The bound is ten terabytes an
    // operator: a 1M-token logits matmul ([1,048,576, 8,192] x [8,192, 131,072] in BF16, 0.29 TB) still counts, and
    // so does an aten::add moving 4.8 TB; one moving 10.2 TB does not.
    void shapesNoDeviceCouldHold()
    {
        const int64_t largest = std::numeric_limits<int64_t>::max();
        const OpWork overflow
            = opWork("aten::mm", args({ { { largest, 4096 }, bf16, "" }, { { 4096, 4096 }, bf16, "" } }));
        QCOMPARE(overflow.kind, OpKind::Matmul);
        QVERIFY(!overflow.known);
        QVERIFY(overflow.impossible);
        QCOMPARE(overflow.flops, 0.0);
        const OpWork squared
            = opWork("aten::mm", args({ { { 1LL << 31, 1LL << 31 }, bf16, "" }, { { 1LL << 31, 8 }, bf16, "" } }));
        QVERIFY(squared.impossible);
        const OpWork logits
            = opWork("aten::mm", args({ { { 1 << 20, 8192 }, bf16, "" }, { { 8192, 131072 }, bf16, "" } }));
        QVERIFY(logits.known);
        QVERIFY(!logits.impossible);
        QCOMPARE(logits.flops, 2.0 * (1 << 20) * 131072.0 * 8192.0);
        // aten::add reads two inputs and writes one: 3 x 2 bytes x elements.
        const auto add = [](int64_t elements) {
            return opWork(
                "aten::add", args({ { { elements }, bf16, "" }, { { elements }, bf16, "" }, { {}, scalar, "1" } }));
        };
        QVERIFY(add(800'000'000'000LL).known); // 4.8 TB
        QVERIFY(add(1'700'000'000'000LL).impossible); // 10.2 TB
        // Unreadable shapes are not impossible ones: the two counts say different things.
        QVERIFY(!opWork("aten::mm", args({ { { -1, 8 }, bf16, "" }, { { 8, 8 }, bf16, "" } })).impossible);
    }

    void precisionFromKernelNames()
    {
        auto key = [](const char* name) {
            const auto p = gemmPrecisionFromKernelName(name);
            return p ? QString::fromStdString(p->key()) : QString();
        };
        QCOMPARE(key("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"), QStringLiteral("bf16"));
        QCOMPARE(key("volta_h884gemm_64x64_ldg8_nn"), QStringLiteral("fp16"));
        QCOMPARE(
            key("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(Params)"), QStringLiteral("fp32"));
        QCOMPARE(key("sm80_xmma_gemm_tf32f32_tf32f32_f32_nt_n"), QStringLiteral("tf32"));
        // CUTLASS tensor-core GEMMs: FP32 operands on the 16x8x8 instruction are TF32 (HTA's recommender traces);
        // a named operand type wins.
        QCOMPARE(key("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)"),
            QStringLiteral("tf32"));
        QCOMPARE(key("cutlass_75_tensorop_s1688gemm_f16_256x128_32x2_nn_align8"), QStringLiteral("fp16"));
        QCOMPARE(key("cutlass_80_tensorop_s1688gemm_bf16_128x128_32x3_tn_align8"), QStringLiteral("bf16"));
        QCOMPARE(key("bmm_E4m3_E4m3E4m3_Fp32_t128x128x128_s4_sm100a"), QStringLiteral("fp8"));
        const auto mixed = gemmPrecisionFromKernelName("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x8x256u2_s6_sm100f");
        QVERIFY(mixed);
        QCOMPARE(mixed->key(), std::string("mxfp8")); // an FP8 x FP4 product runs at the FP8 rate
        QCOMPARE(mixed->label(), std::string("MXFP8 x MXFP4"));
        QCOMPARE(key("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT"), QString()); // nvjet names carry no type
        // FP32 inputs on a TF32 kernel ran at TF32.
        const auto refined = refineGemmPrecision(
            GemmPrecision { NumberFormat::FP32, false, false }, "sm80_xmma_gemm_tf32f32_tf32f32_f32_nt_n");
        QCOMPARE(refined->format, NumberFormat::TF32);
    }

    void peaksAtPrecision()
    {
        HardwareSpec h100;
        h100.peakDenseFlops[static_cast<size_t>(NumberFormat::BF16)] = 989e12;
        h100.peakDenseFlops[static_cast<size_t>(NumberFormat::FP8)] = 1979e12;
        h100.peakDenseFlops[static_cast<size_t>(NumberFormat::FP32)] = 67e12;
        QCOMPARE(densePeakAt(h100, NumberFormat::FP16).flopsPerSecond, 989e12);
        QVERIFY(!densePeakAt(h100, NumberFormat::FP16).fallback);
        QCOMPARE(densePeakAt(h100, NumberFormat::TF32).flopsPerSecond, 67e12);
        QVERIFY(densePeakAt(h100, NumberFormat::TF32).fallback);
        QCOMPARE(densePeakAt(h100, NumberFormat::FP4).flopsPerSecond, 1979e12);
        HardwareSpec v100;
        v100.peakDenseFlops[static_cast<size_t>(NumberFormat::FP16)] = 125e12;
        QCOMPARE(densePeakAt(v100, NumberFormat::BF16).flopsPerSecond, 125e12);
    }
};

QTEST_APPLESS_MAIN(TestOpFlops)
#include "tst_op_flops.moc"
