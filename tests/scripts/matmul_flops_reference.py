#!/usr/bin/env python3
"""Independent count of a Kineto trace's matrix-multiply FLOPs, straight from the raw JSON.

The reference the C++ count (core/trace/op_flops.h, core/trace/trace_flops.h) is checked against in
tests/core/trace/tst_op_flops_real.cpp: written from the definition, not from the C++ code.

  matmul_flops = sum over the cpu_op events named aten::mm, aten::addmm, aten::bmm, aten::baddbmm, aten::_scaled_mm
                 that recorded `Input Dims`, of 2*M*N*K (times the batch for bmm and baddbmm), where an event that
                 holds another such event in time on the same pid/tid is left out (the innermost one counts).

Usage: matmul_flops_reference.py TRACE.json[.gz]   prints {"matmul_flops": F, "ops": N}
"""
import gzip
import json
import sys

MATMULS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_mm"}


def load(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def flops(name, dims):
    # The two matrices: after the bias (addmm) or the input (baddbmm).
    a, b = (dims[1], dims[2]) if name in ("aten::addmm", "aten::baddbmm") else (dims[0], dims[1])
    if name in ("aten::bmm", "aten::baddbmm"):
        batch, m, k = a
        n = b[2]
        return 2 * batch * m * n * k
    m, k = a[0], a[1]
    n = b[1]
    return 2 * m * n * k


def main(path):
    ops = [e for e in load(path)
           if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "Operator") and e.get("name") in MATMULS
           and "Input Dims" in e.get("args", {})]
    by_thread = {}
    for e in ops:
        by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    total = 0
    counted = 0
    for events in by_thread.values():
        for e in events:
            start, end = e["ts"], e["ts"] + e["dur"]
            holds_another = any(o is not e and o["ts"] >= start and o["ts"] + o["dur"] <= end for o in events)
            if holds_another:
                continue
            total += flops(e["name"], e["args"]["Input Dims"])
            counted += 1
    print(json.dumps({"matmul_flops": total, "ops": counted}))


if __name__ == "__main__":
    main(sys.argv[1])
