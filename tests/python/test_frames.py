"""The DataFrames: trace_kernels has a row per GPU activity, its kernels in the steps trace() counts them in;
sweep_points has a row per point of sweep()."""
import json

import pytest

from conftest import kineto_trace


def kernels_per_rank_and_step(frame):
    counted = frame[(frame.kind == "kernel") & frame.step.notna()]
    return {(int(r), int(s)): n for (r, s), n in counted.groupby(["rank", "step"]).size().items()}


def steps_of(trace):
    return {(r["rank"], s["step"]): s["kernel_count"] for r in trace["ranks"] for s in r["steps"]}


def test_trace_kernels_rows(mfu, synthetic_run):
    frame = mfu.trace_kernels(synthetic_run)
    assert list(frame.columns) == ["rank", "step", "name", "category", "kind", "stream", "device", "start_ns",
                                   "duration_ns", "source_file", "flops", "model_flops", "bytes", "achieved_tflops",
                                   "achieved_gbps", "precision"]
    assert frame.flops.isna().all()  # the written trace records no operator shapes: the work is unknown, not zero
    assert len(frame) == 12  # 2 ranks x 3 steps x (GEMM, all-reduce)
    assert str(frame.step.dtype) == "Int64"
    rank1 = frame[frame["rank"] == 1]
    gemm = rank1[rank1.category == "gemm"]
    assert gemm.duration_ns.tolist() == [101_000] * 3  # 100 us + the rank's 1 us
    assert gemm.start_ns.tolist() == [110_000, 510_000, 910_000]
    assert gemm.step.tolist() == [1, 2, 3]  # every step launched the same work: none is left out as incomplete
    assert set(rank1[rank1.category == "comm_allreduce"].stream) == {20}
    assert kernels_per_rank_and_step(frame) == steps_of(mfu.trace(synthetic_run))


def test_trace_kernels_on_real_traces(mfu, real_traces):
    frame = mfu.trace_kernels(*real_traces[1:3])
    trace = mfu.trace(*real_traces[1:3])
    assert kernels_per_rank_and_step(frame) == steps_of(trace)
    for r in trace["ranks"]:
        counted = frame[(frame["rank"] == r["rank"]) & (frame.kind == "kernel") & frame.step.notna()]
        assert len(counted) == r["kernel_count"] > 0
        assert set(frame[frame["rank"] == r["rank"]].source_file) == {r["source_file"]}
        # the step windows start where trace() says they do
        for s in r["steps"]:
            assert counted[counted.step == s["step"]].start_ns.min() >= s["start_ns"] - 10**9


def test_trace_kernels_every_real_file(mfu, real_traces):
    for path in real_traces:
        frame = mfu.trace_kernels(path)
        trace = mfu.trace(path)
        assert (frame.kind == "kernel").sum() >= trace["ranks"][0]["kernel_count"] > 0
        assert kernels_per_rank_and_step(frame) == steps_of(trace)


def test_trace_kernels_work_from_shapes(mfu, real_traces):
    """The per-kernel work sums to trace()'s op_flops: the same attribution, a row at a time."""
    for path in real_traces:
        frame = mfu.trace_kernels(path)
        work = mfu.trace(path)["ranks"][0]["op_flops"]
        if not work["records_shapes"]:
            assert frame.flops.isna().all() and frame.precision.isna().all()
            continue
        in_steps = frame[frame.step.notna()]
        assert in_steps.model_flops.sum() == pytest.approx(work["flops_in_steps"], rel=1e-9)
        assert work["flops_in_steps"] > 0
        per_step = in_steps.groupby("step").model_flops.sum()
        for s in work["steps"]:
            assert per_step.get(s["step"], 0.0) == pytest.approx(s["flops"], rel=1e-9, abs=1)
        assert set(in_steps.precision.dropna()) <= set(work["by_precision_in_steps"])
        collectives = frame[frame.category.str.startswith("comm_")]
        assert (collectives.model_flops == 0).all()
        gemm = frame[(frame.category == "gemm") & (frame.model_flops > 0)]
        assert (gemm.achieved_tflops > 0).all()


def test_trace_kernels_rules_and_errors(mfu, synthetic_run, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"format": "mfu-explorer-kernel-rules", "version": 1,
                                 "rules": [{"category": "optimizer", "contains": ["xmma_gemm"]}]}))
    trace = mfu.trace(synthetic_run, kernel_rules=[rules])
    frame = mfu.trace_kernels(synthetic_run, kernel_rules=[rules])
    assert set(frame[frame.name.str.contains("xmma")].category) == {"optimizer"}
    assert trace["ranks"][0]["categories"]["optimizer"]["seconds"] > 0
    with pytest.raises(ValueError, match="trace_kernels: .*nonexistent"):
        mfu.trace_kernels(tmp_path / "nonexistent.json")
    with pytest.raises(ValueError, match="at least one"):
        mfu.trace_kernels()


def test_sweep_points(mfu):
    kwargs = dict(axis="seq", model="llama-3.1-8b", gpu="b200", gpus=8, values="4k,8k,16k")
    sweep = mfu.sweep(**kwargs)
    frame = mfu.sweep_points(**kwargs)
    assert len(frame) == len(sweep["points"]) == 3
    assert frame.attrs["axis"] == "seq"
    assert list(frame.columns[:2]) == ["x", "precision"]
    assert frame.x.tolist() == [4096, 8192, 16384]
    assert frame["current.mfu"].tolist() == [p["current"]["mfu"] for p in sweep["points"]]
    assert frame["best.mfu"].tolist() == [p["best"]["mfu"] for p in sweep["points"]]
