#pragma once
// Synthetic Kineto traces in the shape of real ones (cpu_op with shapes, cuda_runtime, kernels with full args, flow
// events, ProfilerStep annotations; ~260 bytes per event), shared by bench_trace and bench_trace_ranks.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <zlib.h>

namespace bench {

const char* const kKernelNames[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
    "cublas",
    "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, "
    "false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
    "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, "
    "128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true, false, false, false, false, true>(pytorch_flash::"
    "Flash_bwd_params)",
    "triton_poi_fused__to_copy_add_mul_silu_0",
    "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
    "3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, float*, double>()",
};

struct Generated {
    uint64_t bytes = 0;
    uint64_t events = 0;
};

// Writes about targetBytes of trace; timestamps are fractional microseconds as Kineto writes since 2024.
inline Generated generate(const std::string& path, uint64_t targetBytes, int rank = 0, int worldSize = 8)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::vector<char> buffer(1 << 20);
    std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
    std::fprintf(f,
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", "
        "\"totalGlobalMem\": 85018279936, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
        "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
        "  \"traceEvents\": [\n",
        rank, worldSize);
    Generated g;
    double cpu = 1428625731608.106;
    double gpu = cpu + 50.0;
    int64_t correlation = 1000;
    int step = 1;
    double stepStart = cpu;
    while (static_cast<uint64_t>(std::ftell(f)) < targetBytes) {
        for (int k = 0; k < 10; ++k, ++correlation) {
            const int which = static_cast<int>(correlation % 10);
            const double kdur = which == 0 ? 812.417 : which < 4 ? 355.25 : 6.912;
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 25286, \"tid\": 25286, \"ts\": "
                "%.3f, \"dur\": 14.207, \"args\": {\"External id\": %lld, \"Record function id\": 0, \"Ev Idx\": %lld, "
                "\"Input Dims\": [[16, 2048, 1024], [1024, 2816]], \"Input type\": [\"c10::BFloat16\", "
                "\"c10::BFloat16\"], \"Input Strides\": [[2097152, 1024, 1], [1, 1024]], \"Concrete Inputs\": [\"\", "
                "\"\"]}},\n",
                cpu, static_cast<long long>(correlation), static_cast<long long>(correlation));
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 25286, \"tid\": "
                "25286, \"ts\": %.3f, \"dur\": 4.113, \"args\": {\"External id\": %lld, \"cbid\": 211, "
                "\"correlation\": %lld}},\n",
                cpu + 2.0, static_cast<long long>(correlation), static_cast<long long>(correlation));
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, "
                "\"dur\": %.3f, \"args\": {\"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": 1, "
                "\"stream\": %d, \"correlation\": %lld, \"registers per thread\": 168, \"shared memory\": 0, "
                "\"blocks per SM\": 1.0, \"warps per SM\": 8.0, \"grid\": [132, 1, 1], \"block\": [384, 1, 1], "
                "\"est. achieved occupancy %%\": 0}},\n",
                kKernelNames[which], which >= 7 && which < 9 ? 20 : 7, gpu, kdur, static_cast<long long>(correlation),
                which >= 7 && which < 9 ? 20 : 7, static_cast<long long>(correlation));
            std::fprintf(f,
                "{\"ph\": \"s\", \"id\": %lld, \"pid\": 25286, \"tid\": 25286, \"ts\": %.3f, \"cat\": \"ac2g\", "
                "\"name\": \"ac2g\"},\n{\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"cat\": "
                "\"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
                static_cast<long long>(correlation), cpu + 2.0, static_cast<long long>(correlation), gpu);
            g.events += 5;
            cpu += 20.5;
            gpu += kdur + 1.25;
        }
        if (correlation % 2000 == 0) {
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 25286, "
                "\"tid\": 25286, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": 1}},\n",
                step++, stepStart, cpu - stepStart);
            stepStart = cpu;
            ++g.events;
        }
    }
    std::fprintf(f,
        "{\"ph\": \"i\", \"cat\": \"Trace\", \"name\": \"end\", \"pid\": 0, \"tid\": 0, \"ts\": %.3f, "
        "\"s\": \"g\"}\n  ],\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": "
        "1751410836000000000\n}\n",
        cpu);
    ++g.events;
    g.bytes = static_cast<uint64_t>(std::ftell(f));
    std::fclose(f);
    return g;
}

inline void gzipFile(const std::string& from, const std::string& to)
{
    std::ifstream in(from, std::ios::binary);
    gzFile out = gzopen(to.c_str(), "wb6");
    std::vector<char> chunk(1 << 20);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
        gzwrite(out, chunk.data(), static_cast<unsigned>(in.gcount()));
    gzclose(out);
}

} // namespace bench
