#!/usr/bin/env python3
"""Kernel time a step of a Kineto trace spends per forward operator, its backward included.

Each kernel is charged to the outermost CPU operator enclosing its launch; a kernel launched by an autograd node
(`autograd::engine::evaluate_function: ...`) is charged to the forward operator that created the node, found by the
profiler's `Sequence number`. So `aten::rms_norm [[8, 2048, 16, 128], ...]` lists what the q norm cost forward and
backward. Used for the eager q/k-norm figure of docs/cost-model.md ("Memory-bound work under autocast").

Usage: kernels_by_forward_op.py TRACE.json[.gz] [ROWS]
"""
import bisect, collections, gzip, json, sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def main():
    events = load(sys.argv[1])
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    ops = collections.defaultdict(list)  # (pid, tid) -> [(start, -end, name, dims, sequence number)]
    launches, kernels, steps = {}, [], 0
    for e in events:
        if e.get("ph") != "X":
            continue
        cat, args = e.get("cat", ""), e.get("args", {})
        if cat == "cpu_op":
            ops[(e["pid"], e["tid"])].append(
                (e["ts"], -(e["ts"] + e["dur"]), e["name"], str(args.get("Input Dims", ""))[:50], args.get("Sequence number")))
        elif cat in ("cuda_runtime", "cuda_driver"):
            launches[args.get("correlation")] = (e["pid"], e["tid"], e["ts"])
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            kernels.append(e)
        elif cat == "user_annotation" and e["name"].startswith("ProfilerStep"):
            steps += 1
    # The outermost forward operator of every sequence number (backward threads' operators carry it too).
    forward_of = {}
    for lst in ops.values():
        lst.sort()
        stack = []
        for start, neg_end, name, dims, seq in lst:
            while stack and stack[-1][0] < start:
                stack.pop()
            top = stack[0][1] if stack else (name, dims)
            if seq is not None and seq not in forward_of and not top[0].startswith(("autograd", "Optimizer")):
                forward_of[seq] = top
            stack.append((-neg_end, top))

    def outermost(launch):
        lst = ops[(launch[0], launch[1])]
        i = bisect.bisect_right(lst, (launch[2], 0))
        found = None
        for j in range(i - 1, max(-1, i - 2000), -1):
            start, neg_end, name, dims, seq = lst[j]
            if start <= launch[2] <= -neg_end:
                found = (name, dims, seq)
        return found

    table = collections.defaultdict(lambda: [0.0, 0.0])  # (op, dims) -> [forward ms, backward ms] a step
    for k in kernels:
        launch = launches.get(k["args"].get("correlation"))
        op = outermost(launch) if launch else None
        if op is None:
            table[("(no operator)", "")][0] += k["dur"]
        elif op[0].startswith("autograd::engine") and op[2] in forward_of:
            table[forward_of[op[2]]][1] += k["dur"]
        else:
            table[(op[0], op[1])][0] += k["dur"]
    steps = max(steps, 1)
    total = sum(sum(v) for v in table.values()) / 1e3 / steps
    print(f"{steps} steps, kernel time {total:.2f} ms a step")
    print(f"{'ms/step':>8} {'forward':>8} {'backward':>8}  operator")
    for (name, dims), (fwd, bwd) in sorted(table.items(), key=lambda kv: -sum(kv[1]))[:rows]:
        print(f"{(fwd + bwd) / 1e3 / steps:8.2f} {fwd / 1e3 / steps:8.2f} {bwd / 1e3 / steps:8.2f}  {name[:60]} {dims}")


if __name__ == "__main__":
    main()
