"""`tritondx.capture()`: the in-process form of `tritondx capture`, for a notebook or a script
that wants to capture part of itself.

    with tritondx.capture(out="captured/") as cap:
        model(x)
    print(cap.kernels[0]["kernel"], cap.kernels[0]["task"])

Inside the block every @triton.jit launch is recorded by the bridge's program_capture (the same
code the command runs). gpu="off" runs the block under the CUDA emulation: make its tensors on
"cuda" as usual, they live on the CPU and no kernel runs; gpu="on" runs it on the GPU and times
every launch. At the end of the block the kernels are ranked and the top ones written as tasks
in `out` with capture.json, also when the block raises.
"""
import contextlib
import sys

from tritondx import _engine


class CaptureResult:
    """Filled when the block ends: `summary` is capture.json as a dict; `kernels` its kernels."""

    def __init__(self, out):
        self.out = out
        self.summary = None

    @property
    def kernels(self):
        return (self.summary or {}).get("kernels", [])


def _bridge():
    path = str(_engine.bridge_path())
    if path not in sys.path:
        sys.path.insert(0, path)
    from tritondx_bridge import program_capture
    return program_capture


@contextlib.contextmanager
def capture(out="captured", top=10, min_share=2.0, gpu="auto"):
    program_capture = _bridge()
    import torch
    if gpu not in ("auto", "on", "off"):
        raise ValueError(f"gpu must be 'auto', 'on' or 'off', not {gpu!r}")
    if gpu == "on" and not torch.cuda.is_available():
        raise RuntimeError("tritondx.capture(gpu='on'): torch sees no CUDA GPU (gpu='off' captures without one)")
    recorder = program_capture.Recorder(gpu=gpu == "on" or (gpu == "auto" and torch.cuda.is_available()))
    result = CaptureResult(out)
    error = None
    try:
        with recorder.recording():
            yield result
    except Exception as e:
        error = program_capture.program_error(e, __file__)
        raise
    finally:
        result.summary = program_capture.summarize(recorder, out, top, min_share, ["tritondx.capture()"],
                                                   0 if error is None else 1, error)
