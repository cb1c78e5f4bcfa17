#!/usr/bin/env python3
"""Writes tests/data/validate_golden.json: what `mfu-explorer validate --json` predicts for every published run.

The app test tst_validate_golden compares today's output with it, so a change to a cost-model constant, a formula or
a preset that moves any prediction fails until this file is rewritten on purpose and the diff is reviewed (the
means alone hide a run that got worse while another got better). Usage, after building:

    scripts/update_validate_golden.py [build/dev/app/mfu-explorer]
"""
import json
import os
import subprocess
import sys

# Per run: what identifies it, and every figure the cost model predicts for it.
RUN_KEYS = ("id", "layout", "fits", "in_sample", "measured_mfu", "predicted_mfu", "predicted_hfu",
            "predicted_step_time_s", "predicted_tokens_per_sec_per_gpu", "memory_gib", "error",
            "predicted_time_breakdown_s", "in_band")


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "dev", "app", "mfu-explorer")
    out = json.loads(subprocess.run([binary, "validate", "--json"], check=True, capture_output=True, text=True).stdout)
    golden = {
        "all": out["all"],
        "out_of_sample": out["out_of_sample"],
        "groups": out["groups"],
        "out_of_sample_by_class": out["out_of_sample_by_class"],
        "runs": [{k: run[k] for k in RUN_KEYS if k in run} for run in out["runs"]],
    }
    path = os.path.join(root, "tests", "data", "validate_golden.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}: {len(golden['runs'])} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
