"""Timing a task's launch() on the GPU: CUDA events per call, L2 flushed before each call,
warm-up, input rotation when the inputs fit in L2, median and spread; plus CUDA-graph
replay (launch overhead removed) where the launch can be captured."""
import statistics

import torch

from . import verify

L2_BYTES = 60 * 1024 * 1024
FLUSH_BYTES = 256 * 1024 * 1024


def rotated_input_sets(task, inputs, seed):
    """`inputs` (the task's make_inputs at seed + 100), and when two of them fit in L2, three more
    independent sets (seed + 101..103) to rotate through, so that no timed call finds its inputs
    cached."""
    sets = [inputs]
    if verify.tensor_bytes(inputs) * 2 < L2_BYTES:
        sets += [verify.make_inputs(task, seed + 101 + i) for i in range(3)]
    return sets


def _percentile(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summarize(times_ms):
    return {"median_ms": statistics.median(times_ms), "p10_ms": _percentile(times_ms, 0.1),
            "p90_ms": _percentile(times_ms, 0.9), "mean_ms": statistics.fmean(times_ms),
            "min_ms": min(times_ms), "reps": len(times_ms),
            "cv": statistics.pstdev(times_ms) / statistics.fmean(times_ms) if len(times_ms) > 1 else 0.0}


def time_launch(launch, input_sets, min_reps=100, min_ms=100.0, max_reps=2000, warmup_ms=25.0, audit=None,
                reset=None):
    """`audit` (timing_audit.RandomPointAudit or None): one call inside the loop runs on fresh
    data and its outputs are kept for audit.result(). `reset(inputs)` (in_place.Restorer or
    None) runs before each call, before the flush and outside the timed events: it puts back
    the inputs a kernel updates in place."""
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    # Warm-up: compilation, autotuning and first-touch happen here, outside the numbers.
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls, spent = 0, 0.0
    while calls < 3 or spent < warmup_ms:
        if reset is not None:
            reset(input_sets[calls % len(input_sets)])
        start.record()
        launch(*input_sets[calls % len(input_sets)])
        end.record()
        torch.cuda.synchronize()
        spent += start.elapsed_time(end)
        calls += 1
        if calls > 1000:
            break
    per_call = max(spent / calls, 1e-3)
    reps = int(min(max(min_reps, min_ms / per_call), max_reps))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    audited = audit.plan(reps, input_sets) if audit is not None else -1
    for i in range(reps):
        inputs = input_sets[i % len(input_sets)]
        if reset is not None:
            reset(inputs)
        if i == audited:  # before the flush, so that the copy leaves nothing of its data in L2
            audit.before_call(inputs)
        flush.zero_()
        starts[i].record()
        out = launch(*inputs)
        ends[i].record()
        if i == audited:
            audit.after_call(out, inputs)
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return summarize(times)


def host_synchronization(launch, inputs):
    """Why launch() cannot be captured in a CUDA graph, found before any capture begins: it
    synchronizes with the host (prints a tensor, `.item()`, `.cpu()`, ...). A capture that fails
    part-way leaves torch's CUDA generator marked as capturing, and every later random tensor of
    the process fails ("Offset increment outside graph capture"), so this is asked first."""
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        launch(*inputs)
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    finally:
        torch.cuda.set_sync_debug_mode(previous)
        torch.cuda.synchronize()
    return None


def time_graph(launch, inputs, reps=50, reset=None):
    """CUDA graph replay of one launch() (flushed before each replay, and `reset(inputs)` before
    the flush, as in time_launch); {"error", "fallback"} if it cannot be captured: the kernel is
    then timed with CUDA events alone (time_launch)."""
    fallback = "timed with CUDA events around each launch() call only (no graph replay)"
    sync = host_synchronization(launch, inputs)
    if sync:
        return {"error": f"launch() synchronizes with the host, so it cannot be captured in a CUDA graph: {sync}",
                "fallback": fallback}
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            launch(*inputs)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            launch(*inputs)
    except Exception as e:  # noqa: BLE001 - host-side work in launch() can make capture impossible
        return {"error": f"{type(e).__name__}: {e}", "fallback": fallback}
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    graph.replay()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if reset is not None:
            reset(inputs)
        flush.zero_()
        starts[i].record()
        graph.replay()
        ends[i].record()
    torch.cuda.synchronize()
    return summarize([s.elapsed_time(e) for s, e in zip(starts, ends)])
