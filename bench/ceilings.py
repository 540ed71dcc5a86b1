#!/usr/bin/env python3
"""Measures the roofline ceilings of the GPU this runs on and prints them as JSON:
HBM bandwidth (a large device-to-device copy, bytes read + written), L2 bandwidth (copies
between buffers that fit in L2, replayed from a CUDA graph), and dense matrix-product throughput for fp16, bf16, tf32 and
fp32 (torch.matmul on random data, 8192^3). Median of timed repetitions with CUDA events.

Usage: python3 bench/ceilings.py [--out FILE] [--fill-target]

--fill-target: when the description under targets/ that names this card (its "device_names")
has no measured HBM ceiling yet, measures and writes the ceilings into it (hbm, fp16, bf16, tf32,
fp32, each with its source); a description that has one is left alone and nothing is measured.
tools/device_bench.sh runs it before the bench, so a run on a card measured for the first time
gets a roofline against its own ceilings.
"""
import argparse
import datetime
import json
import pathlib
import statistics
import sys

import torch


def timed(fn, reps=20, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    return statistics.median(times), times


def hbm_bandwidth():
    n = 4 * 1024**3 // 4  # 4 GiB of fp32
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    t, _ = timed(lambda: dst.copy_(src))
    return 2 * n * 4 / t


def l2_bandwidth():
    """Copies between two 8 MiB buffers (both resident in the 60 MB L2), 200 per CUDA graph
    replay so that launch gaps do not count."""
    n = 8 * 1024**2 // 4
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    inner = 200
    dst.copy_(src)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(inner):
            dst.copy_(src)
    t, _ = timed(graph.replay, reps=10)
    return 2 * n * 4 * inner / t


def matmul_flops(dtype, allow_tf32=False, size=8192):
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    t, _ = timed(lambda: torch.matmul(a, b), reps=10)
    torch.backends.cuda.matmul.allow_tf32 = False
    return 2 * size**3 / t


TARGETS = pathlib.Path(__file__).resolve().parent.parent / "targets"
FILLED = ("hbm_bytes_per_second", "fp16_flops", "bf16_flops", "tf32_flops", "fp32_flops")


def target_of(card):
    """The targets/*.json that names `card` among its device_names, or None."""
    for path in sorted(TARGETS.glob("*.json")):
        if card in json.loads(path.read_text()).get("device_names", []):
            return path
    return None


def fill_target(result):
    path = target_of(result["card"])
    if path is None:
        print(f"no description under {TARGETS} names {result['card']}: nothing filled", file=sys.stderr)
        return
    desc = json.loads(path.read_text())
    ceilings = desc.setdefault("ceilings", {})
    for key in FILLED:
        ceilings[key] = {"value": result[key], "source": result["source"]}
    desc.pop("ceilings_note", None)
    path.write_text(json.dumps(desc, indent=2) + "\n")
    print(f"wrote the measured ceilings into {path}", file=sys.stderr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out")
    p.add_argument("--fill-target", action="store_true")
    args = p.parse_args()
    if args.fill_target:
        path = target_of(torch.cuda.get_device_name())
        if path is not None and "hbm_bytes_per_second" in json.loads(path.read_text()).get("ceilings", {}):
            print(f"{path} already has measured ceilings: nothing measured", file=sys.stderr)
            return
    when = datetime.date.today().isoformat()
    card = torch.cuda.get_device_name()
    source = f"measured {when} on {card} by `python3 bench/ceilings.py`"
    result = {
        "card": card, "date": when, "torch": torch.__version__,
        "hbm_bytes_per_second": hbm_bandwidth(),
        "l2_bytes_per_second": l2_bandwidth(),
        "fp16_flops": matmul_flops(torch.float16),
        "bf16_flops": matmul_flops(torch.bfloat16),
        "tf32_flops": matmul_flops(torch.float32, allow_tf32=True),
        "fp32_flops": matmul_flops(torch.float32, allow_tf32=False),
        "source": source,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.fill_target:
        fill_target(result)


if __name__ == "__main__":
    main()
