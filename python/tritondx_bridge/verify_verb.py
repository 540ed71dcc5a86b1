"""The `verify` verb: correctness alone, on the GPU, or on the CPU under the Triton interpreter.

Request: {"task": path, "initial_task"?: path, "draws"?: 3, "seed"?: 1234, "device"?: "cuda"|"cpu"}
Reply:   {"device", "correctness": {...}}  (verify.check_correctness's reply)
On "cpu" the task (and the initial kernel's copy) are imported in a child process started with
TRITON_INTERPRET=1 and run inside the CUDA emulation (cuda_emulation.py), so wrappers that want a GPU run there too; make
the task's inputs small: the interpreter runs a kernel one program at a time in numpy.
"""
import json
import os
import subprocess
import sys

import torch

from . import gpu_lock, verify
from .errors import BridgeError
from .task import load_task

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _interpreted_in_child(request):
    """Triton's language functions (tl.max, tl.sum, ...) are interpreted only when
    TRITON_INTERPRET=1 is set before triton is imported, so the CPU verification runs in a child
    process started with it; this process keeps compiling for real."""
    env = dict(os.environ, TRITON_INTERPRET="1",
               PYTHONPATH=os.pathsep.join(p for p in (_PACKAGE_PARENT, os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "verify"], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=float(request.get("timeout_s", 900)))
    try:
        reply = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise BridgeError("internal", f"the interpreter process exited with {proc.returncode} and no reply",
                          detail=proc.stderr[-8000:]) from None
    if not reply.get("ok"):
        error = reply.get("error") or {}
        raise BridgeError(error.get("kind", "internal"), error.get("message", "the interpreter run failed"),
                          file=error.get("file", ""), line=error.get("line", 0), detail=error.get("detail"))
    reply.pop("ok", None)
    return reply


def _verify_interpreted(request, draws, seed):
    from .cuda_emulation import emulated_cuda
    from .interpreter_shim import install_interpreter_shim
    install_interpreter_shim()
    with emulated_cuda(interpreted=True):
        task = load_task(request.get("task"))
        initial = verify.load_initial(request)
        return {"device": "cpu (Triton interpreter)",
                "correctness": verify.check_correctness(task, draws, seed, initial, device="cpu")}


def verify_verb(request):
    device = request.get("device", "cuda")
    if device not in ("cuda", "cpu"):
        raise BridgeError("bad-request", f"verify: device must be 'cuda' or 'cpu', not {device!r}")
    draws, seed = int(request.get("draws", 3)), int(request.get("seed", 1234))
    if device == "cpu":
        if os.environ.get("TRITON_INTERPRET") != "1":
            return _interpreted_in_child(request)
        return _verify_interpreted(request, draws, seed)
    task = load_task(request.get("task"))
    if not torch.cuda.is_available():
        raise BridgeError("no-gpu", "verify on 'cuda' needs a CUDA GPU; none is visible (ask for device 'cpu')",
                          file=task.path)
    initial = verify.load_initial(request)
    with gpu_lock.hold(gpu_lock.SHARED):
        return {"device": torch.cuda.get_device_name(),
                "correctness": verify.check_correctness(task, draws, seed, initial, device="cuda")}
