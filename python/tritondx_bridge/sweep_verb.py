"""`sweep` verb: the `run` verb over several task files in one process (a launch-parameter grid).

Request: {"tasks": [path, ...], "draws"?: 2, "min_ms"?: 50.0, "min_reps"?: 50, "seed"?: 1234,
          "initial_task"?: path (every variant is verified against it too; see run_verb)}
Reply:   {"results": [{"task", "ok", "wall_s", "reply"? | "error"?}], "stopped_at"?: index, "stopped_why"?: str}
"wall_s": the variant's whole time in this process, its import and compilation included (the
reply's "phases_s" splits the part after the import).

Each variant is a separate module (its kernels compile on their own). A variant that raises is
reported and the sweep goes on, except after a CUDA error (an illegal address poisons the
context of the whole process): then the sweep stops and says where, so that the caller runs
the rest in a fresh process.
"""
import time

from .errors import BridgeError
from . import run_verb

_FATAL = ("illegal memory access", "an illegal instruction", "unspecified launch failure", "misaligned address",
          "device-side assert", "CUDA error")


def sweep_verb(request):
    tasks = request.get("tasks")
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise BridgeError("bad-request", "sweep needs \"tasks\": a list of task paths")
    results = []
    for i, path in enumerate(tasks):
        one = {"task": path, "draws": int(request.get("draws", 2)), "seed": int(request.get("seed", 1234)),
               "min_ms": float(request.get("min_ms", 50.0)), "min_reps": int(request.get("min_reps", 50))}
        if request.get("initial_task"):
            one["initial_task"] = request["initial_task"]
        started, fatal = time.perf_counter(), None
        try:
            results.append({"task": path, "ok": True, "reply": run_verb.run_verb(one)})
        except BridgeError as e:
            results.append({"task": path, "ok": False, "error": e.to_json()})
        except Exception as e:  # noqa: BLE001 - one bad variant must not lose the others
            message = f"{type(e).__name__}: {str(e)[:800]}"
            results.append({"task": path, "ok": False, "error": {"kind": "runtime-error", "message": message}})
            fatal = message if any(f in message for f in _FATAL) else None
        results[-1]["wall_s"] = round(time.perf_counter() - started, 3)
        if fatal:
            return {"results": results, "stopped_at": i + 1,
                    "stopped_why": "a CUDA error left the process unusable: " + fatal[:200]}
    return {"results": results}
