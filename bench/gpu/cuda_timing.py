"""Timing and logging shared by the GPU benchmarks in this folder (PyTorch, CUDA events)."""
import time

import torch

T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def time_ms(fn, target_ms=100.0, warmups=3, max_reps=50, reps=None):
    """Median milliseconds of fn() over repetitions sized to about target_ms (at least 3), after warm-ups."""
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    one = max(s.elapsed_time(e), 1e-3)
    n = reps or int(min(max_reps, max(3, target_ms / one)))
    times = []
    for _ in range(n):
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]
