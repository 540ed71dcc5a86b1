"""`compare` verb: several versions of one task timed in turn, round after round, in one process
(the protocol's interleaved A/B, docs/bench.md).

Request: {"tasks": [path, ...], "rounds"?: 7, "min_reps"?: 50, "min_ms"?: 50.0, "seed"?: 1234}
Reply:   {"device", "rounds", "input_sets", "tasks": [{"task", "round_ms": [median per round]}]}

The first task's make_inputs builds the inputs, and every version runs on the same ones (the
integrity checks keep make_inputs unchanged across versions). Each round times every version
with the `run` verb's flushed per-call CUDA events, and the order rotates by one each round
(ABC, BCA, CAB, ...), so no version always runs first or right after a given other. Clock and
thermal drift then reach every version alike, and a speedup is computed per round (the caller
takes the median over rounds and its bootstrap interval). A round holds the GPU lock EXCLUSIVE.
Nothing here checks correctness: the versions compared are ones already verified.
"""
import torch

from . import gpu_lock, in_place, timing, verify
from .errors import BridgeError
from .task import load_task


def compare_verb(request):
    paths = request.get("tasks")
    if not isinstance(paths, list) or len(paths) < 2 or not all(isinstance(p, str) for p in paths):
        raise BridgeError("bad-request", "compare needs \"tasks\": a list of at least two task paths")
    rounds = int(request.get("rounds", 7))
    if rounds < 1:
        raise BridgeError("bad-request", "compare needs \"rounds\" >= 1")
    tasks = [load_task(p) for p in paths]
    if not torch.cuda.is_available():
        raise BridgeError("no-gpu", "the compare verb needs a CUDA GPU; none is visible", file=tasks[0].path)
    with gpu_lock.hold(gpu_lock.SHARED):
        return _compare_on_gpu(tasks, request, rounds)


def _compare_on_gpu(tasks, request, rounds):
    seed = int(request.get("seed", 1234))
    inputs = verify.make_inputs(tasks[0], seed + 100)
    sets = timing.rotated_input_sets(tasks[0], inputs, seed)
    for t in tasks:  # compile and autotune outside the rounds
        t.function("launch")(*inputs)
    timed = [in_place.timed(t.function("launch"), sets) for t in tasks]
    torch.cuda.synchronize()
    round_ms = [[] for _ in tasks]
    min_reps, min_ms = int(request.get("min_reps", 50)), float(request.get("min_ms", 50.0))
    for r in range(rounds):
        order = [(r + i) % len(tasks) for i in range(len(tasks))]
        with gpu_lock.hold(gpu_lock.EXCLUSIVE):
            for i in order:
                launch, reset = timed[i]
                round_ms[i].append(timing.time_launch(launch, sets, min_reps, min_ms, reset=reset)["median_ms"])
    return {"device": torch.cuda.get_device_name(), "rounds": rounds, "input_sets": len(sets),
            "tasks": [{"task": t.path, "round_ms": ms} for t, ms in zip(tasks, round_ms)]}
