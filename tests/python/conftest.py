"""Shared by the Python module's tests: the real mfu-explorer binary to compare against, and the input files.

Run through CTest (python/CMakeLists.txt sets the environment), or by hand:
    MFU_EXPLORER=build/dev/app/mfu-explorer PYTHONPATH=build/dev/python python3 -m pytest tests/python
"""
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("MFU_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED_TRACES = pathlib.Path(os.environ.get("MFU_SHARED_TRACES_DIR", SOURCE_DIR.parent / "shared" / "traces"))
REAL_TRACES = [
    "hta__nccl_parser_config__nccl_data.json.gz",
    "hta__trace_filter__sampled_rank-0.json.gz",
    "hta__trace_filter__sampled_rank-1.json.gz",
    "tracelens__h100__qwen1.5-0.5b-chat.json.gz",
]


def binary():
    path = os.environ.get("MFU_EXPLORER")
    if not path:
        pytest.fail("set MFU_EXPLORER to the mfu-explorer binary the module is compared with")
    return path


class Cli:
    """The binary, run as a script runs it."""

    def run(self, *args, env=None):
        return subprocess.run([binary(), *map(str, args)], capture_output=True, text=True, env=env)

    def json(self, *args):
        r = self.run(*args, "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def error(self, *args):
        """The one-line error of a refused command line."""
        r = self.run(*args, "--json")
        assert r.returncode == 2, (r.returncode, r.stdout)
        return r.stderr.rstrip("\n")


@pytest.fixture(scope="session")
def cli():
    return Cli()


@pytest.fixture(scope="session")
def mfu():
    import mfu_explorer

    return mfu_explorer


@pytest.fixture(scope="session")
def real_traces():
    if not SHARED_TRACES.is_dir():
        pytest.skip(f"real traces not found at {SHARED_TRACES} (shared/traces is absent in this checkout)")
    return [SHARED_TRACES / name for name in REAL_TRACES]


def kineto_trace(rank, steps=3, gemm_us=100):
    """A small Kineto trace: `steps` GPU-annotated steps of 400 us, each with a GEMM and an all-reduce."""
    events = []
    for s in range(steps):
        t0 = 100 + 400 * s
        events += [
            {"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 0, "tid": 7,
             "ts": t0, "dur": 400},
            {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "pid": 0, "tid": 7,
             "ts": t0 + 10, "dur": gemm_us + rank, "args": {"device": 0, "stream": 7}},
            {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", "pid": 0,
             "tid": 20, "ts": t0 + 50, "dur": 100, "args": {"device": 0, "stream": 20}},
        ]
    return {"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 2},
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": events}


@pytest.fixture
def synthetic_run(tmp_path):
    """A folder of two ranks' traces."""
    folder = tmp_path / "ranks"
    folder.mkdir()
    for rank in (0, 1):
        (folder / f"rank{rank}.json").write_text(json.dumps(kineto_trace(rank)))
    return folder
