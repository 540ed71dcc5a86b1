"""`baselines` verb: what a user gets without a Triton kernel, timed like the kernel itself.

Request: {"task": path, "compile": true, "seed": 1234, "min_reps": 100, "min_ms": 100.0}
Reply:   {"device", "torch", "function", "eager": timing, "compile": timing | null,
          "compile_error": str | null, "compile_correct": bool | null}

The task's `torch_baseline` (what a user would call in PyTorch, e.g. `a @ b` in fp16), or its
`reference` when it has none (a reference may upcast to fp32 for accuracy, which is slower than
what a user would run), runs on the task's realistic inputs (`make_inputs("cuda")`), eagerly
and through `torch.compile` (default mode, inductor); the reply names it in "function". The
compiled function is checked against the task's reference with the task's tolerances before it
is timed; a compile failure or a mismatch is reported, not raised, so the benchmark lists it.
Timing is `timing.time_launch`: the same flushed per-call CUDA events, input rotation and median
as the `run` verb uses for kernels, and the same gpu_lock discipline (timed loops EXCLUSIVE).
"""
import torch

from . import gpu_lock, timing, verify
from .errors import BridgeError
from .task import load_task


def _timed(fn, sets, request):
    with gpu_lock.hold(gpu_lock.EXCLUSIVE):
        return timing.time_launch(fn, sets, int(request.get("min_reps", 100)), float(request.get("min_ms", 100.0)))


def baselines_verb(request):
    task = load_task(request.get("task"))
    if not torch.cuda.is_available():
        raise BridgeError("no-gpu", "the baselines verb needs a CUDA GPU; none is visible", file=task.path)
    with gpu_lock.hold(gpu_lock.SHARED):
        return _baselines_on_gpu(task, request)


def _baselines_on_gpu(task, request):
    seed = int(request.get("seed", 1234))
    inputs = verify.make_inputs(task, seed + 100)
    sets = timing.rotated_input_sets(task, inputs, seed)
    name = next((n for n in ("torch_baseline", "reference") if callable(getattr(task.module, n, None))), None)
    if name is None:
        return {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "function": None, "eager": None,
                "compile": None, "compile_correct": None,
                "compile_error": "the task has neither torch_baseline nor reference: no PyTorch version to time"}
    baseline = task.function(name)
    reply = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "function": name,
             "eager": _timed(baseline, sets, request), "compile": None, "compile_error": None,
             "compile_correct": None}
    if not request.get("compile", True):
        return reply
    try:
        compiled = torch.compile(baseline)
        got = verify.as_tuple(compiled(*inputs))
        yardstick = task.function("reference") if verify.has_reference(task) else baseline  # eager torch_baseline
        want = verify.as_tuple(yardstick(*inputs))
        problems = [p for i, (g, w) in enumerate(zip(got, want)) if (p := verify.compare(task, g, w, i))]
        reply["compile_correct"] = not problems and len(got) == len(want)
        if not reply["compile_correct"]:
            reply["compile_error"] = f"torch.compile({name}) disagrees with the task's reference: " + \
                "; ".join(p["message"] for p in problems[:3])
            return reply
        reply["compile"] = _timed(compiled, sets, request)
    except Exception as e:  # noqa: BLE001 - a baseline that cannot be built is reported, not fatal
        reply["compile_error"] = f"torch.compile({name}) failed: {type(e).__name__}: {str(e)[:500]}"
    return reply
