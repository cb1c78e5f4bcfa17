#!/usr/bin/env python3
"""Times real training steps of a Qwen3-MoE-style decoder on one GPU with PyTorch, as TorchTitan runs its MoE layers
(router softmax and top-k, tokens sorted by expert, torch._grouped_mm for the experts' SwiGLU, a weighted scatter
back), so the cost model's MoE path (grouped GEMMs, permutation, router) can be checked end to end on a lone GPU
without communication.

FP32 master weights, BF16 autocast for the dense layers (the experts' grouped GEMMs take BF16 copies of their
weights, as autocast does for a linear layer), fused AdamW, no activation checkpointing, eager. Writes to $OUT:
moe_training_step.json (each run's configuration, sorted step times, median, tokens/s, peak memory) and, per model,
a Hugging Face-style config.json (model_type qwen3_moe) that `mfu-explorer predict --model FILE` reads.
Run on the GPU machine: python3 bench/gpu/moe_training_step.py [--smoke] [--trace] [--only NAME_sSEQ_mbMB] (--trace: one
Kineto trace per model, .json.gz, of a step after the timed ones, in a ProfilerStep#0 annotation)
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from cuda_timing import log

OUT = os.environ.get("OUT", "/tmp")
DEV = "cuda"
RESULTS = {"env": {}, "runs": []}


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.w, 1e-6)


def rope(seq, hd, device):
    inv = 1.0 / (1e6 ** (torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd))
    f = torch.outer(torch.arange(seq, device=device, dtype=torch.float32), inv)
    return f.cos(), f.sin()


def apply_rope(x, cos, sin):  # x: B, H, T, D
    x1, x2 = x[..., 0::2], x[..., 1::2]
    c, s = cos[None, None], sin[None, None]
    return torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).flatten(-2).type_as(x)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, self.nh, self.nkv, self.hd = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], \
            cfg["head_dim"]
        self.qkv = nn.Linear(d, (self.nh + 2 * self.nkv) * self.hd, bias=False)
        self.o = nn.Linear(self.nh * self.hd, d, bias=False)
        self.qn, self.kn = RMSNorm(self.hd), RMSNorm(self.hd)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split([self.nh * self.hd, self.nkv * self.hd, self.nkv * self.hd], dim=-1)
        q = self.qn(q.view(b, t, self.nh, self.hd)).transpose(1, 2)
        k = self.kn(k.view(b, t, self.nkv, self.hd)).transpose(1, 2)
        v = v.view(b, t, self.nkv, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o(y.transpose(1, 2).reshape(b, t, -1))


class MoE(nn.Module):
    """Router (softmax, top-k, renormalised as Qwen3-MoE), tokens sorted by expert, SwiGLU experts as grouped GEMMs."""

    def __init__(self, cfg):
        super().__init__()
        d, f, self.e, self.k = cfg["hidden_size"], cfg["moe_intermediate_size"], cfg["num_experts"], \
            cfg["num_experts_per_tok"]
        self.router = nn.Linear(d, self.e, bias=False)
        self.w13 = nn.Parameter(torch.randn(self.e, 2 * f, d) * d ** -0.5)  # gate and up, (out, in) per expert
        self.w2 = nn.Parameter(torch.randn(self.e, d, f) * f ** -0.5)

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = torch.softmax(self.router(x).float(), dim=-1)
        weights, experts = torch.topk(probs, self.k, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).to(torch.bfloat16)
        flat = experts.reshape(-1)
        order = torch.argsort(flat, stable=True)
        counts = torch.bincount(flat, minlength=self.e)
        # Each expert's rows padded to a multiple of 16, as TorchTitan aligns them for the grouped GEMM.
        padded = (counts + 15) // 16 * 16
        offs = torch.cumsum(padded, 0)
        start_padded, start = offs - padded, torch.cumsum(counts, 0) - counts
        sorted_experts = flat[order]
        dest = start_padded[sorted_experts] + torch.arange(flat.numel(), device=x.device) - start[sorted_experts]
        token_of = order // self.k
        xs = x.new_zeros(int(offs[-1]), x.shape[-1], dtype=torch.bfloat16)
        xs[dest] = x.to(torch.bfloat16)[token_of]
        offs = offs.to(torch.int32)
        h = torch._grouped_mm(xs, self.w13.to(torch.bfloat16).transpose(-2, -1), offs=offs)
        gate, up = h.chunk(2, dim=-1)
        y = torch._grouped_mm(F.silu(gate) * up, self.w2.to(torch.bfloat16).transpose(-2, -1), offs=offs)[dest]
        y = y * weights.reshape(-1)[order, None]
        out = torch.zeros_like(x, dtype=torch.bfloat16).index_add_(0, token_of, y)
        return out.view(shape)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n1, self.n2 = RMSNorm(cfg["hidden_size"]), RMSNorm(cfg["hidden_size"])
        self.attn, self.moe = Attention(cfg), MoE(cfg)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.n1(x), cos, sin)
        return x + self.moe(self.n2(x))


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg["num_hidden_layers"]))
        self.norm = RMSNorm(cfg["hidden_size"])
        self.head = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)
        self.hd = cfg["head_dim"]

    def forward(self, ids, targets):
        cos, sin = rope(ids.shape[1], self.hd, ids.device)
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x, cos, sin)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), targets.view(-1))


def hf_config(name, d, layers, nh, nkv, hd, experts, k, f, vocab):
    return {"model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], "_name": name, "hidden_size": d,
            "num_hidden_layers": layers, "num_attention_heads": nh, "num_key_value_heads": nkv, "head_dim": hd,
            "num_experts": experts, "num_experts_per_tok": k, "moe_intermediate_size": f, "intermediate_size": 6144,
            "decoder_sparse_step": 1, "mlp_only_layers": [], "shared_expert_intermediate_size": 0,
            "vocab_size": vocab, "tie_word_embeddings": False, "max_position_embeddings": 131072,
            "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "norm_topk_prob": True, "torch_dtype": "bfloat16"}


def train_step(model, opt, inp, tgt):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(inp, tgt)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


def run(cfg, seq, micro_batch, steps, trace=None):
    torch.manual_seed(0)
    torch.cuda.reset_peak_memory_stats()
    model = Model(cfg).to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg["vocab_size"], (micro_batch, seq + 1), device=DEV)
    inp, tgt = ids[:, :-1].contiguous(), ids[:, 1:].contiguous()
    times = []
    for i in range(steps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        loss = train_step(model, opt, inp, tgt)
        e.record()
        e.synchronize()
        if i >= 3:  # warm-ups
            times.append(s.elapsed_time(e) / 1e3)
    if trace:  # one more step under the profiler, with shapes, as a Kineto trace the product reads
        from torch.profiler import ProfilerActivity, profile, record_function
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            with record_function("ProfilerStep#0"):
                train_step(model, opt, inp, tgt)
            torch.cuda.synchronize()
        prof.export_chrome_trace(os.path.join(OUT, trace))
    times.sort()
    median = times[len(times) // 2]
    params = sum(p.numel() for p in model.parameters())
    r = {"model": cfg["_name"], "params": params, "seq": seq, "micro_batch": micro_batch,
         "tokens_per_step": seq * micro_batch, "step_times_s": times, "median_step_s": median,
         "tokens_per_sec": seq * micro_batch / median, "peak_memory_gib": torch.cuda.max_memory_allocated() / 2 ** 30,
         "loss": float(loss.detach())}
    del model, opt
    torch.cuda.empty_cache()
    return r


def main():
    smoke = "--smoke" in sys.argv
    p = torch.cuda.get_device_properties(0)
    RESULTS["env"] = {"gpu": p.name, "torch": torch.__version__, "cuda": torch.version.cuda}
    log(f"{p.name}, torch {torch.__version__}")
    # (name, hidden, layers, heads, kv heads, head dim, experts, top-k, expert width, vocab, seq, micro-batch)
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    runs = [("moe-smoke", 256, 2, 4, 2, 64, 8, 2, 128, 1024, 512, 2)] if smoke else [
        ("qwen3-moe-12l-64e-768", 2048, 12, 32, 4, 128, 64, 8, 768, 32000, 4096, 4),
        ("qwen3-moe-12l-64e-768", 2048, 12, 32, 4, 128, 64, 8, 768, 32000, 4096, 1),
        ("qwen3-moe-8l-32e-1536", 4096, 8, 32, 4, 128, 32, 4, 1536, 32000, 4096, 2),
    ]
    traced = set()
    for name, d, layers, nh, nkv, hd, e, k, f, vocab, seq, mb in runs:
        if only and f"{name}_s{seq}_mb{mb}" != only:
            continue
        cfg = hf_config(name, d, layers, nh, nkv, hd, e, k, f, vocab)
        with open(os.path.join(OUT, f"{name}.config.json"), "w") as fh:
            json.dump({k2: v for k2, v in cfg.items() if not k2.startswith("_")}, fh, indent=1)
        try:
            trace = None
            if "--trace" in sys.argv and name not in traced:
                trace = f"{name}_s{seq}_mb{mb}.json.gz"
                traced.add(name)
            r = run(cfg, seq, mb, 6 if smoke else 13, trace)
            if trace:
                r["trace"] = trace
            log(f"{name} seq {seq} mb {mb}: {r['median_step_s'] * 1e3:.1f} ms a step, {r['tokens_per_sec']:.0f} tokens/s, "
                f"{r['params'] / 1e9:.2f}B params, peak {r['peak_memory_gib']:.1f} GiB, loss {r['loss']:.3f}")
        except Exception as ex:
            r = {"model": name, "seq": seq, "micro_batch": mb, "error": repr(ex)[:300]}
            log(f"{name}: {r['error']}")
        RESULTS["runs"].append(r)
        with open(os.path.join(OUT, "moe_training_step.json"), "w") as fh:
            json.dump(RESULTS, fh, indent=1)
    log("done")


if __name__ == "__main__":
    main()
