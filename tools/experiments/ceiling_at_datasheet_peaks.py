#!/usr/bin/env python3
"""The bench's speed targets at the roofline floor, with the floors rescaled from the ceilings
measured on the card (targets/nvidia-h200.json) to the H200 datasheet peaks, which no kernel
reaches: an upper bound on what any rewrite of the suite's initial kernels can gain.

    python3 tools/experiments/ceiling_at_datasheet_peaks.py [bench/results]

`tritondx bench` prints the same numbers at the measured ceilings (summary.md, "at the
roofline floor"); this script only swaps the ceilings.
"""
import glob
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# H200 SXM datasheet: HBM3e bandwidth, dense tensor-core rates (no sparsity), FP32 CUDA cores.
DATASHEET = {"hbm_bytes_per_second": 4.8e12, "fp16_flops": 989.4e12, "bf16_flops": 989.4e12,
             "tf32_flops": 494.7e12, "fp32_flops": 66.9e12}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main(results):
    with open(os.path.join(ROOT, "targets", "nvidia-h200.json")) as f:
        measured = {k: v["value"] for k, v in json.load(f)["ceilings"].items()}
    initial, autotune = [], []
    for path in sorted(glob.glob(os.path.join(results, "entries", "*", "entry.json"))):
        with open(path) as f:
            e = json.load(f)
        roof = e.get("roofline") or {}
        if e.get("status") != "ok" or not roof.get("floor_ms"):
            continue
        key = "hbm_bytes_per_second" if roof["bound"] == "memory" else roof["compute_ceiling"]
        floor_ms = roof["floor_ms"] * measured[key] / DATASHEET[key]
        initial.append(max(1.0, e["initial"]["median_ms"] / floor_ms))
        if (e.get("autotune_only") or {}).get("median_ms"):
            autotune.append(max(1.0, e["autotune_only"]["median_ms"] / floor_ms))
    print(f"{len(initial)} entries, floors at the H200 datasheet peaks:")
    print(f"  geomean speedup at the floor     {geomean(initial):.2f}x (target 4.5x)")
    print(f"  median speedup at the floor      {statistics.median(initial):.2f}x (target 3.0x)")
    print(f"  over autotune-only at the floor  {geomean(autotune):.2f}x (target 2x)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bench", "results"))
