"""The `run` verb: correctness first, then timing, on a CUDA GPU.

Request: {"task": path, "draws"?: 3, "seed"?: 1234, "min_reps"?: 100, "min_ms"?: 100, "timing"?: true,
          "initial_task"?: path, "integrity"?: {"original"?: path, "gpu_profile"?: true, "device"?: "cpu"}}
"initial_task": the frozen copy of the task as the optimization run found it; the kernel is
verified against its launch() too (verify.py), and against it alone when the task has no
`reference`.
Reply:   {"device", "correctness": {...}, "timing": {...}|null, "graph": {...}|null,
          "recheck": {...}|null, "audit": {...}|null, "min_bytes", "flops", "input_sets",
          "integrity"?: {"passed", "violations": [{"id", "line", "message"}], "notes", ...},
          "autotune": {kernel: {"index", "configs", "config"}}}
"phases_s": the wall seconds of each part of the call: "correctness" (with the kernel's compilation,
which its first launch does), "integrity", "timing", "recheck" and "graph" (those that ran).
"autotune": for each @triton.autotune'd kernel, the config its autotuner chose (its index in the
configs, how many there are, and the config) for the last key it timed: the config the timing ran.
"audit": one call at a random iteration of the timing loop, on fresh inputs, checked against the
references (timing_audit.py): {"iteration", "reps", "passed", "failures"} or {"skipped": why}.
"integrity" runs the runtime anti-cheating checks (integrity_runtime.py, docs/integrity.md); with
"device": "cpu" and no GPU, only those, under the Triton interpreter.
The GPU work holds gpu_lock SHARED and the timed loops EXCLUSIVE (a GPU shared by workers).
"""
import time

import torch

from . import gpu_lock, in_place, timing, timing_audit, verify
from .errors import BridgeError
from .task import load_task


def run_verb(request):
    integrity = request.get("integrity")
    if isinstance(integrity, dict) and integrity.get("device") == "cpu" and not torch.cuda.is_available():
        from . import integrity_runtime
        return integrity_runtime.cpu_reply(request)
    baseline = None
    if integrity is not None:  # {} asks for the checks with every default
        from . import integrity_runtime
        baseline = integrity_runtime.snapshot_guarded()  # before the task's import-time code runs
    task = load_task(request.get("task"))
    if not torch.cuda.is_available():
        raise BridgeError("no-gpu", "the run verb needs a CUDA GPU; none is visible", file=task.path)
    with gpu_lock.hold(gpu_lock.SHARED):
        return _run_on_gpu(task, request, integrity, baseline)


def _run_on_gpu(task, request, integrity, baseline):
    seed = int(request.get("seed", 1234))
    phases = {}
    clock = time.perf_counter()

    def lap(name):
        nonlocal clock
        now = time.perf_counter()
        phases[name] = round(now - clock, 3)
        clock = now

    initial = verify.load_initial(request)
    correctness = verify.check_correctness(task, int(request.get("draws", 3)), seed, initial)
    lap("correctness")
    reply = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "correctness": correctness,
             "timing": None, "graph": None, "recheck": None, "audit": None, "phases_s": phases}
    inputs = verify.make_inputs(task, seed + 100)
    for name in ("bytes_moved", "flops"):
        fn = getattr(task.module, name, None)
        reply["min_bytes" if name == "bytes_moved" else "flops"] = int(fn(*inputs)) if fn else None
    if reply["min_bytes"] is None:
        reply["min_bytes"] = verify.tensor_bytes(inputs)
        reply["min_bytes_source"] = "inputs only (the task declares no bytes_moved)"
    if integrity is not None:
        from . import integrity_runtime
        try:
            reply["integrity"] = integrity_runtime.run_integrity(
                task.module, integrity, lambda i: verify.make_inputs(task, seed + 200 + i), "cuda", baseline)
        except Exception as e:  # noqa: BLE001 - an unverifiable candidate is reported, not a crash
            reply["integrity"] = {"passed": False, "violations": [], "notes": [],
                                  "error": f"the integrity checks could not run: {type(e).__name__}: {e}"}
        lap("integrity")
    if not correctness["passed"] or not request.get("timing", True):
        return reply
    sets = timing.rotated_input_sets(task, inputs, seed)
    reply["input_sets"] = len(sets)
    launch, reset = in_place.timed(task.function("launch"), sets)
    audit = timing_audit.RandomPointAudit(task, seed + 300, initial, skip_after=reset.indices if reset else ())
    with gpu_lock.hold(gpu_lock.EXCLUSIVE):
        reply["timing"] = timing.time_launch(launch, sets, int(request.get("min_reps", 100)),
                                             float(request.get("min_ms", 100.0)), audit=audit, reset=reset)
    reply["audit"] = audit.result()
    reply["autotune"] = autotune_choices(task)
    lap("timing")
    # Correctness again on fresh inputs, after many calls (kernels that change behaviour).
    reply["recheck"] = verify.check_correctness(task, 1, seed + 1000, initial, test_inputs=False)
    lap("recheck")
    # Last: a launch() that cannot be captured falls back to the event timing above, and a failed
    # capture can leave the process's CUDA state unusable for anything after it.
    with gpu_lock.hold(gpu_lock.EXCLUSIVE):
        reply["graph"] = timing.time_graph(launch, inputs, reset=reset)
    lap("graph")
    return reply


def autotune_choices(task):
    """{kernel: {"index", "configs", "config"}}: the config each autotuned kernel's autotuner chose."""
    from .task import _config_json
    out = {}
    for name, info in task.kernels.items():
        w = info.wrapper
        while w is not None and w is not info.jit_fn:
            best = getattr(w, "best_config", None) if hasattr(w, "configs") else None
            if best is not None:
                configs = list(w.configs)
                index = next((i for i, c in enumerate(configs) if c is best), None)
                if index is None:  # a pruned or rebuilt config: match it by value
                    chosen = _config_json(best)
                    index = next((i for i, c in enumerate(configs) if _config_json(c) == chosen), None)
                if index is not None:
                    out[name] = {"index": index, "configs": len(configs), "config": _config_json(best)}
                break
            w = getattr(w, "fn", None)
    return out
