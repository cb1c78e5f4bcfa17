#!/usr/bin/env python3
"""Measures, on one GPU with PyTorch, the causal attention rates the cost model's attention constants describe
(docs/cost-model.md, "Attention"): PyTorch's scaled_dot_product_attention with each backend this GPU runs (FlashAttention
2, cuDNN, memory-efficient), Llama 3.1 8B's heads (32 query heads, 8 KV heads, head dimension 128, GQA), from 2k to
128k tokens a sequence at 128k tokens a batch, forward and backward.

FLOPs are counted as the cost model counts them: causal forward 2 x batch x heads x seq^2 x head_dim (half of QK^T's
and PV's 4 x ... each), backward quoted against twice the forward. Each timing is the median of CUDA-event timed
repetitions after warm-ups. Writes $OUT/attention_rates.json and prints one line per measurement.
Run on the GPU machine: python3 bench/gpu/attention_rates.py
"""
import json
import os

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cuda_timing import log, time_ms

OUT = os.environ.get("OUT", "/tmp")
DEV = "cuda"
RESULTS = {"env": {}, "attention": []}
HEADS, KV_HEADS, HEAD_DIM, TOKENS = 32, 8, 128, 131072


def measure(backend, seq):
    batch = max(1, TOKENS // seq)
    q = torch.randn(batch, HEADS, seq, HEAD_DIM, device=DEV, dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(batch, KV_HEADS, seq, HEAD_DIM, device=DEV, dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(batch, KV_HEADS, seq, HEAD_DIM, device=DEV, dtype=torch.bfloat16, requires_grad=True)
    go = torch.randn(batch, HEADS, seq, HEAD_DIM, device=DEV, dtype=torch.bfloat16)

    def fwd():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

    def fwd_bwd():
        torch.autograd.grad(fwd(), (q, k, v), go)

    f_ms = time_ms(fwd, target_ms=300.0, warmups=2, max_reps=20)
    fb_ms = time_ms(fwd_bwd, target_ms=300.0, warmups=2, max_reps=20)
    flops = 2.0 * batch * HEADS * seq * seq * HEAD_DIM
    return {"backend": backend.name, "seq": seq, "batch": batch, "forward_ms": f_ms, "forward_backward_ms": fb_ms,
            "forward_tflops": flops / (f_ms * 1e-3) / 1e12,
            "backward_tflops_at_2x": 2 * flops / ((fb_ms - f_ms) * 1e-3) / 1e12}


def main():
    p = torch.cuda.get_device_properties(0)
    RESULTS["env"] = {"gpu": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
                      "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()}
    log(f"{p.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}")
    for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
        for seq in (2048, 4096, 8192, 16384, 32768, 65536, 131072):
            try:
                r = measure(backend, seq)
                log(f"{backend.name} seq {seq} batch {r['batch']}: forward {r['forward_tflops']:.0f}, backward "
                    f"{r['backward_tflops_at_2x']:.0f} TFLOP/s (at 2x forward FLOPs)")
            except Exception as ex:  # a backend this GPU or shape cannot run is recorded, not fatal
                r = {"backend": backend.name, "seq": seq, "error": repr(ex)[:300]}
                log(f"{backend.name} seq {seq}: {r['error']}")
            RESULTS["attention"].append(r)
            torch.cuda.empty_cache()
            with open(os.path.join(OUT, "attention_rates.json"), "w") as f:
                json.dump(RESULTS, f, indent=1)
    log("done")


if __name__ == "__main__":
    main()
