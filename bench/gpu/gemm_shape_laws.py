#!/usr/bin/env python3
"""Measures, on one GPU with PyTorch, the GEMM shape laws the cost model assumes (docs/cost-model.md, "Compute"):

- dense BF16 GEMMs whose smaller weight dimension is d, against the d / (d + gemmHalfSaturationDim) law, and the
  linear layers of Llama 3.1 8B and 70B at tensor parallelism 1 and 8 (forward, input gradient, weight gradient);
- the same GEMMs in FP8 through torch._scaled_mm with one scale per tensor and with a scale per row and column
  (TorchAO's rowwise recipe), against fp8GemmEfficiencyRatio and fp8RowwiseGemmRatio;
- the routed experts' grouped GEMMs through torch._grouped_mm (TorchTitan's MoE path), forward and backward, for the
  expert widths of current MoE models and 16 to 8,192 tokens per expert, against the grouped-GEMM width and token
  laws;
- the host's cost per eager kernel launch against a CUDA-graph replay of the same kernels, and the BF16 GEMM rate
  held for ten seconds against its first second (clocks under sustained load).

Each timing is the median of CUDA-event timed repetitions after warm-ups. Writes $OUT/gemm_shape_laws.json and
prints one line per measurement. Run on the GPU machine: python3 bench/gpu/gemm_shape_laws.py [--quick]
"""
import json
import os
import sys
import time

import torch

from cuda_timing import log, time_ms

OUT = os.environ.get("OUT", "/tmp")
QUICK = "--quick" in sys.argv
DEV = "cuda"
RESULTS = {"env": {}, "dense": [], "grouped": [], "launch": {}, "sustained": {}}


def save():
    with open(os.path.join(OUT, "gemm_shape_laws.json"), "w") as f:
        json.dump(RESULTS, f, indent=1)


def tflops(flops, ms):
    return flops / (ms * 1e-3) / 1e12


def log_rates(what, row):
    """One line per measurement: every *_tflops figure of the row, or the errors."""
    rates = ", ".join(f"{k[:-7]} {row[k]:.0f}" for k in row if k.endswith("_tflops"))
    errors = "; ".join(f"{k}: {row[k]}" for k in row if k.endswith("_error"))
    log(f"{what}: {rates} TFLOP/s" + (f" ({errors})" if errors else ""))


# ------------------------------------------------------------------ dense
FP8 = torch.float8_e4m3fn


def dense_passes(M, K, N):
    """The three GEMMs of a linear layer y = x W^T, x (M,K), W (N,K): forward (M,K)x(K,N), input gradient
    (M,N)x(N,K), weight gradient (N,M)x(M,K). Each as (rows, inner, cols)."""
    return {"fprop": (M, K, N), "dgrad": (M, N, K), "wgrad": (N, M, K)}


def bf16_gemm(r, i, c):
    a = torch.randn(r, i, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(c, i, device=DEV, dtype=torch.bfloat16).t()  # column-major, as cuBLAS TN
    return lambda: torch.mm(a, b)


def fp8_gemm(r, i, c, rowwise):
    a = torch.randn(r, i, device=DEV, dtype=torch.bfloat16).to(FP8)
    b = torch.randn(c, i, device=DEV, dtype=torch.bfloat16).to(FP8).t()  # _scaled_mm wants B column-major
    if rowwise:
        sa = torch.rand(r, 1, device=DEV, dtype=torch.float32) + 0.5
        sb = torch.rand(1, c, device=DEV, dtype=torch.float32) + 0.5
    else:
        sa = torch.tensor(1.0, device=DEV)
        sb = torch.tensor(1.0, device=DEV)
    return lambda: torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)


def measure_dense(label, M, K, N):
    for pass_name, (r, i, c) in dense_passes(M, K, N).items():
        flops = 2.0 * r * i * c
        row = {"label": label, "M": M, "K": K, "N": N, "pass": pass_name, "rows": r, "inner": i, "cols": c}
        for fmt, make in (("bf16", lambda: bf16_gemm(r, i, c)), ("fp8_tensorwise", lambda: fp8_gemm(r, i, c, False)),
                          ("fp8_rowwise", lambda: fp8_gemm(r, i, c, True))):
            try:
                fn = make()
                ms = time_ms(fn)
                row[fmt + "_ms"] = ms
                row[fmt + "_tflops"] = tflops(flops, ms)
                del fn
            except Exception as ex:  # a format this PyTorch cannot run on this GPU is recorded, not fatal
                row[fmt + "_error"] = repr(ex)[:200]
        torch.cuda.empty_cache()
        RESULTS["dense"].append(row)
        log_rates(f"dense {label} {pass_name} {r}x{i}x{c}", row)


def dense_sweep():
    M = 16384
    narrow = [256, 512, 1024, 2048, 4096, 8192] if QUICK else [128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
                                                               6144, 8192]
    for d in narrow:
        measure_dense(f"narrow-N {d}", M, 8192, d)  # a TP-sliced column-parallel layer: few output features
        measure_dense(f"narrow-K {d}", M, d, 8192)  # a TP-sliced row-parallel layer: a short main loop
    # The linear layers of Llama 3.1 8B (hidden 4,096, 32 heads of 128 and 8 KV heads, FFN 14,336) and 70B (8,192,
    # 64 and 8 heads, 28,672), at one micro-batch of 8,192 tokens, per rank at TP 1 and TP 8 (sequence parallel: each
    # rank's GEMMs see all the micro-batch's tokens).
    for name, h, q, kv, ffn in (("llama3.1-8b", 4096, 4096, 1024, 14336), ("llama3.1-70b", 8192, 8192, 1024, 28672)):
        for tp in ((1, 8) if name.endswith("8b") else (8,)):
            M = 8192
            measure_dense(f"{name} tp{tp} qkv", M, h, (q + 2 * kv) // tp)
            measure_dense(f"{name} tp{tp} out", M, q // tp, h)
            measure_dense(f"{name} tp{tp} gate+up", M, h, 2 * ffn // tp)
            measure_dense(f"{name} tp{tp} down", M, ffn // tp, h)
            save()


# ------------------------------------------------------------------ grouped
def measure_grouped(label, h, ffn, groups, m):
    """One MoE layer's routed experts on one rank: `groups` local experts of width ffn, m tokens each, SwiGLU
    (gate and up fused, N = 2 ffn; down, K = ffn), forward and forward+backward through autograd, as TorchTitan runs
    them (torch._grouped_mm with offsets along the tokens)."""
    total = groups * m
    offs = torch.arange(m, total + 1, m, device=DEV, dtype=torch.int32)
    row = {"label": label, "hidden": h, "ffn": ffn, "groups": groups, "tokens_per_expert": m}
    for proj, (k, n) in (("gate+up", (h, 2 * ffn)), ("down", (ffn, h))):
        try:
            x = torch.randn(total, k, device=DEV, dtype=torch.bfloat16, requires_grad=True)
            w = torch.randn(groups, n, k, device=DEV, dtype=torch.bfloat16, requires_grad=True)
            gy = torch.randn(total, n, device=DEV, dtype=torch.bfloat16)

            def fwd():
                return torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)

            def fwd_bwd():  # autograd.grad rather than backward: no accumulation into .grad between repetitions
                torch.autograd.grad(fwd(), (x, w), gy)

            f_ms = time_ms(fwd)
            fb_ms = time_ms(fwd_bwd)
            flops = 2.0 * total * k * n
            row[proj + "_fwd_tflops"] = tflops(flops, f_ms)
            row[proj + "_fwd_bwd_tflops"] = tflops(3 * flops, fb_ms)
            row[proj + "_bwd_tflops"] = tflops(2 * flops, max(fb_ms - f_ms, 1e-6))
            del x, w, gy
        except Exception as ex:
            row[proj + "_error"] = repr(ex)[:200]
        torch.cuda.empty_cache()
    RESULTS["grouped"].append(row)
    log_rates(f"grouped {label} G{groups} m{m}", row)


def grouped_sweep():
    # (name, hidden, expert width, local experts): Qwen3-30B-A3B (128 experts of 768), Qwen3-235B-A22B (128 of
    # 1,536), DeepSeek-V3 (256 of 2,048), gpt-oss-120b (128 of 2,880), Mixtral 8x22B (8 of 16,384).
    models = (("qwen3-30b-a3b", 2048, 768, 16), ("qwen3-235b-a22b", 4096, 1536, 16), ("deepseek-v3", 7168, 2048, 8),
              ("gpt-oss-120b", 2880, 2880, 16), ("mixtral-8x22b", 6144, 16384, 4))
    ms = (64, 512, 4096) if QUICK else (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
    for name, h, ffn, g in models:
        for m in ms:
            measure_grouped(name, h, ffn, g, m)
        save()


# ------------------------------------------------------------------ host launch cost, sustained rate
def launch_cost():
    x = torch.zeros(1024, device=DEV)
    n = 2000

    def eager():
        for _ in range(n):
            x.add_(1.0)

    eager_ms = time_ms(eager, reps=5)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        eager()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        eager()
    graph_ms = time_ms(g.replay, reps=5)
    RESULTS["launch"] = {"kernels": n, "eager_us_per_kernel": eager_ms * 1e3 / n,
                         "graph_us_per_kernel": graph_ms * 1e3 / n}
    log(f"launch: eager {eager_ms * 1e3 / n:.2f} us per kernel, graph replay {graph_ms * 1e3 / n:.2f} us")


def sustained():
    a = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    flops = 2.0 * 8192 ** 3
    per_second = []
    end = time.time() + (4 if QUICK else 10)
    while time.time() < end:
        t = time.time()
        n = 0
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        while time.time() - t < 1.0:
            for _ in range(50):
                torch.mm(a, b)
            n += 50
            torch.cuda.synchronize()
        e.record()
        e.synchronize()
        per_second.append(tflops(flops * n, s.elapsed_time(e)))
    RESULTS["sustained"] = {"bf16_8192_tflops_per_second": per_second}
    log("sustained bf16 8192^3: " + " ".join(f"{v:.0f}" for v in per_second) + " TFLOP/s")


def main():
    p = torch.cuda.get_device_properties(0)
    RESULTS["env"] = {"gpu": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
                      "cuda": torch.version.cuda}
    log(f"{p.name}, {p.multi_processor_count} SMs, torch {torch.__version__}, CUDA {torch.version.cuda}")
    torch.backends.cuda.matmul.allow_tf32 = False
    for step in (launch_cost, sustained, dense_sweep, grouped_sweep):
        try:
            step()
        except Exception as ex:
            log(f"{step.__name__} failed: {ex!r}")
        save()
    log("done")


if __name__ == "__main__":
    main()
