"""Each function of the module returns exactly what `mfu-explorer <subcommand> ... --json` prints, and refuses
what the command line refuses with the command line's own message."""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR


def without_search_time(plan):
    """plan's JSON says how long its search took ("seconds"): the one figure two runs do not share."""
    return {k: v for k, v in plan.items() if k != "seconds"}


def test_calc_the_worked_example(mfu, cli):
    got = mfu.calc(model="llama-3.1-8b", gpu="b200", seq=8192, tokens_per_sec_per_gpu=21111)
    assert got == cli.json("calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--seq", "8192",
                           "--tokens-per-sec-per-gpu", "21111")
    assert round(100 * got["mfu"], 2) == 54.34  # Lambda's worked example (README)


# (function, keyword arguments, the same command line)
CASES = [
    ("calc", dict(model="qwen2.5-7b", gpu="a800-sxm-80gb", gpus=32, packing_length="80k", doc_length=4096,
                  tokens_per_sec_per_gpu="3_271", precision="bf16"),
     ["calc", "--model", "qwen2.5-7b", "--gpu", "a800-sxm-80gb", "--gpus", "32", "--packing-length", "80k",
      "--doc-length", "4096", "--tokens-per-sec-per-gpu", "3_271", "--precision", "bf16"]),
    ("calc", dict(params=7e9, gpu="h100-sxm", step_time=5.2, tokens_per_step=4194304, gpus=64),
     ["calc", "--params", "7000000000.0", "--gpu", "h100-sxm", "--step-time", "5.2", "--tokens-per-step", "4194304",
      "--gpus", "64"]),
    ("predict", dict(model="llama-3.1-70b", gpu="b200", gpus=16, seq=8192, tp=1, ac="selective"),
     ["predict", "--model", "llama-3.1-70b", "--gpu", "b200", "--gpus", "16", "--seq", "8192", "--tp", "1", "--ac",
      "selective"]),
    ("sweep", dict(axis="gpus", model="llama-3.1-8b", gpu="b200", values=[8, 16, 64], no_planner=True),
     ["sweep", "--axis", "gpus", "--model", "llama-3.1-8b", "--gpu", "b200", "--values", "8,16,64",
      "--no-planner"]),
    ("sweep", dict(axis="network", model="llama-3.1-8b", gpu="h100-sxm", gpus=64, values=[100, 12.5],
                   no_planner=True),
     ["sweep", "--axis", "network", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "64", "--values",
      "100,12.5", "--no-planner"]),
    ("sweep", dict(axis="precision", model="llama-3.1-8b", gpu="h100-sxm", gpus=8, no_planner=False),
     ["sweep", "--axis", "precision", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8"]),
    ("cost", dict(gpu="h100-sxm", gpus=256, days=90, price_per_gpu_hour=2.5, baseline_mfu=0.4, target_mfu="60%"),
     ["cost", "--gpu", "h100-sxm", "--gpus", "256", "--days", "90", "--price-per-gpu-hour", "2.5",
      "--baseline-mfu", "0.4", "--target-mfu", "60%"]),
    ("presets", dict(hardware_only=True), ["presets", "--hardware-only"]),
    ("presets", dict(), ["presets"]),
    ("validate", dict(), ["validate"]),
]


@pytest.mark.parametrize("function,kwargs,argv", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_function_equals_the_command_line(mfu, cli, function, kwargs, argv):
    assert getattr(mfu, function)(**kwargs) == cli.json(*argv)


def test_plan(mfu, cli):
    got = mfu.plan(model="llama-3.1-8b", gpu="h100-sxm", gpus=8, seq="8k", top=5)
    expected = cli.json("plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--seq", "8k",
                        "--top", "5")
    assert without_search_time(got) == without_search_time(expected)
    assert len(got["configs"]) == 5


def test_diagnose_a_report_and_paths(mfu, cli):
    report = SOURCE_DIR / "examples" / "b200-scaling-report.json"
    got = mfu.diagnose(report)  # a pathlib.Path is a file argument as good as a str
    assert got == cli.json("diagnose", report)
    assert got["findings"], "the example report has mistakes to name"


def test_trace_and_its_merge(mfu, cli, synthetic_run, tmp_path):
    files = sorted(synthetic_run.iterdir())
    direct = mfu.trace(*files, model="llama-3.1-8b", tokens_per_step=65536)
    assert direct == cli.json("trace", *files, "--model", "llama-3.1-8b", "--tokens-per-step", "65536")
    assert direct == mfu.trace(synthetic_run, model="llama-3.1-8b", tokens_per_step=65536)  # the folder
    summaries = tmp_path / "summaries"
    summaries.mkdir()
    for f in files:
        mfu.trace(f, summary_out=summaries / (f.stem + ".summary.json"))
    merged = mfu.trace_merge(summaries, model="llama-3.1-8b", tokens_per_step=65536)
    assert merged == cli.json("trace", "merge", summaries, "--model", "llama-3.1-8b", "--tokens-per-step", "65536")
    assert merged == direct


def test_trace_compare_repeats_its_option(mfu, cli, synthetic_run, tmp_path):
    rank0, rank1 = sorted(synthetic_run.iterdir())
    got = mfu.trace(rank0, compare=[rank1, rank0])
    assert got == cli.json("trace", rank0, "--compare", rank1, "--compare", rank0)
    assert len(got["compare"]["ranks"]) == 2


def test_real_traces(mfu, cli, real_traces):
    assert mfu.trace(*real_traces[1:3]) == cli.json("trace", *real_traces[1:3])
    got = mfu.trace(real_traces[3], model="qwen2.5-7b", tokens_per_step=32768, span="hta")
    assert got == cli.json("trace", real_traces[3], "--model", "qwen2.5-7b", "--tokens-per-step", "32768",
                           "--span", "hta")


# (function, arguments, keyword arguments, the same command line): refused with the command line's message.
BAD = [
    ("calc", [], dict(model="no-such-model", gpu="b200"), ["calc", "--model", "no-such-model", "--gpu", "b200"]),
    ("calc", [], dict(model="llama-3.1-8b", seq="-5"), ["calc", "--model", "llama-3.1-8b", "--seq=-5"]),
    ("calc", [], dict(modle="llama-3.1-8b"), ["calc", "--modle", "llama-3.1-8b"]),
    ("calc", ["extra"], dict(model="llama-3.1-8b"), ["calc", "--model", "llama-3.1-8b", "extra"]),
    ("sweep", [], dict(axis="depth", model="llama-3.1-8b", gpu="b200"),
     ["sweep", "--axis", "depth", "--model", "llama-3.1-8b", "--gpu", "b200"]),
    ("presets", [], dict(hardware_only=True, models_only=True), ["presets", "--hardware-only", "--models-only"]),
    ("trace", ["/nonexistent/rank0.json"], dict(), ["trace", "/nonexistent/rank0.json"]),
    ("trace_merge", [], dict(), ["trace", "merge"]),
    ("cost", [], dict(gpu="h100-sxm", gpus=8, baseline_mfu=1.5), ["cost", "--gpu", "h100-sxm", "--gpus", "8",
                                                                  "--baseline-mfu", "1.5"]),
]


@pytest.mark.parametrize("function,args,kwargs,argv", BAD, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD)])
def test_bad_input_raises_the_command_lines_error(mfu, cli, function, args, kwargs, argv):
    with pytest.raises(ValueError) as e:
        getattr(mfu, function)(*args, **kwargs)
    assert str(e.value) == cli.error(*argv)
    assert str(e.value).startswith("mfu-explorer ")


def test_numpy_numbers_are_numbers(mfu):
    np = pytest.importorskip("numpy")
    expected = mfu.calc(model="llama-3.1-8b", gpu="b200", seq=8192, tokens_per_sec_per_gpu=21111.5)
    assert mfu.calc(model="llama-3.1-8b", gpu="b200", seq=np.int64(8192),
                    tokens_per_sec_per_gpu=np.float64(21111.5)) == expected
    assert mfu.calc(model="llama-3.1-8b", gpu="b200", seq=np.int32(8192),
                    tokens_per_sec_per_gpu=np.float32(21111.5)) == expected  # exact in float32


def test_keywords_that_are_not_options(mfu):
    for kwargs in (dict(json=True), dict(help=True)):
        with pytest.raises(ValueError, match="not taken here"):
            mfu.presets(**kwargs)
    with pytest.raises(ValueError, match="not taken here"):
        mfu.sweep(axis="seq", model="llama-3.1-8b", gpu="b200", csv=True)  # CSV is not the JSON: sweep_points
    with pytest.raises(ValueError, match="cannot pass a dict"):
        mfu.calc(model={"id": "llama-3.1-8b"})
    with pytest.raises(ValueError, match="switch"):
        mfu.sweep(axis="gpus", values=[True])


def test_validate_check_failure_keeps_the_report(mfu, tmp_path):
    # The shipped table with every measured throughput divided by 3: the model's error is far beyond its bound.
    runs = json.loads((SOURCE_DIR / "presets" / "validation" / "runs.json").read_text())
    for run in runs["runs"]:
        run["measured"] = {k: v / 3 if isinstance(v, (int, float)) else v for k, v in run["measured"].items()}
    table = tmp_path / "runs.json"
    table.write_text(json.dumps(runs))
    assert mfu.validate(runs=table)["runs"]  # without check: the report
    with pytest.raises(mfu.CheckFailed) as e:
        mfu.validate(runs=table, check=True)
    assert e.value.result == mfu.validate(runs=table)


def test_each_published_run_is_stated_by_its_command(mfu):
    # validate gives each run the predict command that states it; the same flags, as Python keywords, predict it.
    report = mfu.validate()
    runs = [r for r in report["runs"] if r["id"] in ("playbook-3b-512xh100-tp4-pp1",
                                                     "mcore-moe-deepseek-v3-1024xh100-fp8")]
    assert len(runs) == 2
    for run in runs:
        words = shlex.split(run["command"])
        assert words[:2] == ["mfu-explorer", "predict"]
        kwargs, i = {}, 2
        while i < len(words):
            key = words[i][2:].replace("-", "_")
            if i + 1 < len(words) and not words[i + 1].startswith("--"):
                kwargs[key], i = words[i + 1], i + 2
            else:
                kwargs[key], i = True, i + 1
        got = mfu.predict(**kwargs)
        assert got["tokens_per_sec_per_gpu"] == pytest.approx(run["predicted_tokens_per_sec_per_gpu"], rel=1e-12)


def test_docstrings_are_the_help(mfu, cli):
    for function, command in [("calc", ["calc"]), ("trace", ["trace"]), ("trace_merge", ["trace"]),
                              ("sweep_points", ["sweep"]), ("presets", ["presets"])]:
        help_text = cli.run(*command, "--help").stdout
        assert help_text.startswith("Usage: mfu-explorer ")
        assert help_text in getattr(mfu, function).__doc__
    assert mfu.calc.__doc__.startswith("calc(**options) -> dict")


def test_repeated_options_are_those_the_command_line_repeats(mfu):
    """The module joins a list with commas unless the option is read with QCommandLineParser::values()."""
    read_repeated = {}
    for source in (SOURCE_DIR / "app" / "cli").glob("cmd_*.cpp"):
        names = re.findall(r'\.values\((?:QStringLiteral|qs)\("([a-z-]+)"\)\)', source.read_text())
        if names:
            read_repeated[source.stem[len("cmd_"):]] = set(names)
    assert read_repeated == {"diagnose": {"log"}, "trace": {"compare", "kernel-rules"}, "calibrate": {"kernel-rules"}}
    for command, names in read_repeated.items():
        assert set(mfu._repeated_options[command]) == names
    assert set(mfu._repeated_options["trace_merge"]) == read_repeated["trace"]


def test_preset_file_problems_are_warnings(tmp_path, cli):
    # The preset library is read once per process: a fresh interpreter sees this folder.
    (tmp_path / "bad.json").write_text('{"hardware": [{"id": "x"}]}')
    env = dict(os.environ, MFU_EXPLORER_PRESETS_DIR=str(tmp_path))
    code = ("import warnings, json, mfu_explorer\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    p = mfu_explorer.presets()\n"
            "print(json.dumps({'problems': p['problems'], 'warnings': [str(x.message) for x in w]}))\n")
    got = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout)
    expected = cli.run("presets", "--json", env=env)
    assert got["problems"] == json.loads(expected.stdout)["problems"] != []
    assert got["warnings"] == expected.stderr.rstrip("\n").split("\n")


def test_a_list_only_where_the_option_takes_one(mfu):
    """gpus=[8, 16] once became --gpus=8,16 and was read as 816: a list is refused unless the option takes one."""
    with pytest.raises(ValueError, match="takes one value, not a list"):
        mfu.calc(model="llama-3.1-8b", gpu="h100-sxm", gpus=[8, 16], tokens_per_sec_per_gpu=9000)
    with pytest.raises(ValueError, match="takes one value, not a list"):
        mfu.cost(gpu="h100-sxm", gpus=(1, 600, 500), days=1)
    with pytest.raises(ValueError, match="holds a comma"):
        mfu.sweep(model="llama-3.1-8b", gpu="h100-sxm", axis="gpus", values=["1,000"])


def test_fifo_input_is_refused_and_frees_the_module(mfu, tmp_path):
    # A FIFO blocked its reader forever while holding the module's lock, so every other thread's call blocked too.
    import threading
    fifo = tmp_path / "rank0.json"
    os.mkfifo(fifo)
    for call in (lambda: mfu.trace(str(fifo)), lambda: mfu.trace_kernels(str(fifo)),
                 lambda: mfu.predict(scenario=str(fifo))):
        with pytest.raises(ValueError, match="FIFO"):
            call()
    other = threading.Thread(target=mfu.presets)
    other.start()
    other.join(timeout=60)
    assert not other.is_alive()


def test_import_loads_no_widgets():
    """A notebook that imports the module gets the command line on Qt Core: no Qt Widgets, Qt GUI or QCustomPlot
    library is loaded (the module links mfu_cli, not the window's libraries). Checked in a fresh interpreter, whose
    mapped libraries are the import's alone."""
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps on this system to list the loaded libraries")
    code = ("import mfu_explorer, re; mfu_explorer.calc(model='llama-3.1-8b', gpu='b200', seq=8192, "
            "tokens_per_sec=21111); print('\\n'.join(sorted(set(re.findall(r'/[^ \\n]*\\.so[^ \\n]*', "
            "open('/proc/self/maps').read())))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    loaded = r.stdout.splitlines()
    assert any("Qt6Core" in lib for lib in loaded), loaded  # the check sees Qt's libraries at all
    gui = [lib for lib in loaded if re.search(r"Qt6(Widgets|Gui|PrintSupport|Svg)|qcustomplot|mfu_widgets|mfu_app", lib)]
    assert not gui, gui


def test_calibrate_then_predict_with_the_calibration(mfu, cli, tmp_path):
    from conftest import SHARED_TRACES
    trace = SHARED_TRACES / "pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz"
    config = SHARED_TRACES / "pytorch211__h200__qwen3-0.6b-shape.config.json"
    if not trace.exists() or not config.exists():
        pytest.skip("the PyTorch 2.11 H200 trace is not in ../shared/traces")
    out = tmp_path / "h200.calibration.json"
    got = mfu.calibrate(str(trace), model=str(config), seq=4096, micro_batch=8, attention_kernel="cudnn", autocast=True,
                        out=str(out))
    assert got["written_to"] == str(out)
    assert abs(got["replay_error"]) < 0.01
    predicted = mfu.predict(model=str(config), gpu="h200", seq=8192, micro_batch=4, attention_kernel="cudnn",
                            calibration=str(out))
    assert predicted == cli.json("predict", "--model", config, "--gpu", "h200", "--seq", "8192", "--micro-batch", "4",
                                 "--attention-kernel", "cudnn", "--calibration", out)
    # As many tokens a micro-batch: the GEMMs are the shapes the trace ran, the attention's sequence is beyond it.
    bases = {t["term"]: t["basis"] for t in predicted["calibrated"]["terms"]}
    assert bases["matmul"] == "measured" and bases["attention"] == "extrapolated"
    assert len(got["gemm_shapes"]) == 13 and len(got["attention_shapes"]) == 2
