"""Capturing kernel launches without a GPU.

The task's launch function runs on CPU tensors; every JITFunction.run is
intercepted and specialized exactly as triton.runtime.jit.JITFunction.run does
(same binder, same _pack_args), but nothing is launched. Only dtypes, shapes,
alignment and integer values matter for specialization, and CPU tensors carry them.
"""
import contextlib
import hashlib
import os
import sys
import traceback

import triton
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import make_backend
from triton.runtime.autotuner import Autotuner
from triton.runtime.jit import JITFunction, create_function_from_signature

from .errors import BridgeError
from .warmup_kernel import warmup_kernel


class Launch:
    def __init__(self, fn, signature, constexprs, attrs, options, grid, bound_args):
        self.fn = fn
        self.name = fn.fn.__name__
        self.signature = signature
        self.constexprs = constexprs
        self.attrs = attrs
        self.options = options
        self.grid = grid
        self.bound_args = bound_args
        # (file, line) of every Python frame above the launch, innermost first; capture_launches
        # keeps the task file's line as call_line (which of several `kernel[grid](...)` made it).
        self.frames = [(os.path.abspath(f.f_code.co_filename), f.f_lineno) for f in _caller_frames()]
        self.call_line = 0
        self.autotune = None

    def key(self):
        return (self.name, repr(sorted(self.signature.items())), repr(sorted(self.constexprs.items())),
                repr(sorted(self.attrs.items())), repr(sorted(self.options.__dict__.items())))

    def to_json(self):
        return {
            "kernel": self.name,
            "grid": [int(g) for g in self.grid] if self.grid is not None else [],
            "signature": {k: str(v) for k, v in self.signature.items()},
            "constexprs": {_path_name(self.fn, p): _jsonable(v) for p, v in self.constexprs.items()},
            "attrs": {_path_name(self.fn, p): v for p, v in self.attrs.items()},
            "options": {k: _jsonable(v) for k, v in self.options.__dict__.items()
                        if k in ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                                 "default_dot_input_precision", "debug", "arch")},
            "call_line": self.call_line,
        }


def with_run_defaults(fn, kwargs):
    """The launch keywords as JITFunction.run completes them before it binds (debug,
    instrumentation_mode), in a new dict."""
    kwargs = dict(kwargs)
    kwargs["debug"] = kwargs.get("debug", fn.debug) or knobs.runtime.debug
    kwargs["instrumentation_mode"] = knobs.compilation.instrumentation_mode
    return kwargs


def specialize(fn, backend, args, kwargs):
    """What JITFunction.run makes of a launch before it compiles: (bound_args, options, signature,
    constexprs, attrs), by Triton's own binder and _pack_args."""
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound_args, specialization, options = binder(*args, **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args, specialization, options)
    return bound_args, options, signature, constexprs, attrs


def _caller_frames(limit=64):
    frame = sys._getframe(1)
    while frame is not None and limit > 0:
        yield frame
        frame = frame.f_back
        limit -= 1


def _path_name(fn, path):
    names = [p.name for p in fn.params]
    head = names[path[0]] if path and path[0] < len(names) else str(path)
    return head + "".join(f"[{i}]" for i in path[1:])


def _jsonable(v):
    if isinstance(v, (int, float, bool, str)) or v is None:
        return v
    return str(v)


def _apply_what_if(fn, kwargs, what_if):
    """One-change experiments: option or constexpr overrides applied to the launch kwargs."""
    if not what_if:
        return
    for k in ("num_warps", "num_stages", "maxnreg", "enable_fp_fusion"):
        if k in what_if:
            kwargs[k] = what_if[k]
    for name, value in (what_if.get("constexprs") or {}).items():
        kwargs[name] = value


def _assume_divisible(fn, attrs, names, backend):
    """Adds tt.divisibility=16 to the named parameters, as if their value were a multiple of 16."""
    index = {p.name: p.num for p in fn.params}
    for name in names or []:
        if name not in index:
            raise BridgeError("bad-request", f"what-if names unknown parameter '{name}' of {fn.fn.__name__}")
        path = (index[name], )
        attrs[path] = backend.parse_attr("D")


def _autotuned_name(autotuner):
    """The name of the @triton.jit function an Autotuner wraps (through any Heuristics)."""
    fn = autotuner
    for _ in range(8):
        if isinstance(fn, JITFunction) or not hasattr(fn, "fn"):
            break
        fn = fn.fn
    return getattr(getattr(fn, "fn", fn), "__name__", "")


@contextlib.contextmanager
def _patched_runtime(record, backend, what_if, autotune_config, emulation, target):
    """Inside: every JITFunction launch is specialized, not run, and given to `record` as a Launch
    (its `autotune` says which of an autotuner's configs it is, when one chose it)."""
    original_run = JITFunction.run
    original_autotune_run = Autotuner.run
    autotuning = []  # the configs of the autotuners running now, innermost last

    def capture_run(self, *args, grid, warmup, **kwargs):
        call_kwargs = dict(kwargs)
        kwargs = with_run_defaults(self, kwargs)
        _apply_what_if(self, kwargs, what_if)
        for hook in self.pre_run_hooks:
            hook(*args, **kwargs)
        with emulation.suspended():  # Triton's own specialization sees the real (CPU) tensors
            bound_args, options, signature, constexprs, attrs = specialize(self, backend, args, kwargs)
        if warmup:  # fn.warmup(...): compiled, not launched (warmup_kernel.py)
            src = triton.compiler.ASTSource(self, signature, constexprs, attrs)
            return warmup_kernel(self, src, target, options, call_kwargs)
        emulation.kernel_launched(self.fn.__name__, bound_args)
        if what_if:
            _assume_divisible(self, attrs, what_if.get("assume_divisible"), backend)
        if callable(grid):
            grid = grid(bound_args)
        grid = tuple(grid) if grid is not None else None
        launch = Launch(self, signature, constexprs, attrs, options, grid, bound_args)
        launch.autotune = autotuning[-1] if autotuning else None
        record(launch)
        return None

    def autotune_run(self, *args, **kwargs):
        # Without a GPU nothing can be benchmarked: compile the requested config (default: the first).
        saved = self.configs
        index = autotune_config or 0
        if isinstance(autotune_config, dict):  # per kernel: {kernel name: index}
            index = int(autotune_config.get(_autotuned_name(self), 0))
        if index >= len(saved):
            raise BridgeError("bad-request", f"autotune config {index} out of range ({len(saved)} configs)")
        self.configs = [saved[index]]
        autotuning.append({"configs": [str(c) for c in saved], "used": index})
        try:
            return original_autotune_run(self, *args, **kwargs)
        finally:
            self.configs = saved
            autotuning.pop()

    JITFunction.run = capture_run
    Autotuner.run = autotune_run
    try:
        yield
    finally:
        JITFunction.run = original_run
        Autotuner.run = original_autotune_run


def _task_frame_line(task, tb):
    for frame in reversed(traceback.extract_tb(tb)):
        if os.path.abspath(frame.filename) == task.path:
            return frame.lineno
    return 0


# The last task's inputs, reused by the next capture of the same task text in this process
# (the `serve` process captures once for L0, again to compile, and again for every what-if).
# Making realistic inputs on the CPU costs up to seconds (50M-element tensors), and nothing
# here runs a kernel on them: only shapes, dtypes, strides, alignment and scalars matter.
_inputs_cache = {}


def _make_inputs(task, device):
    key = (task.path, device, hashlib.sha256(task.source.encode()).hexdigest())
    if key not in _inputs_cache:
        _inputs_cache.clear()
        _inputs_cache[key] = task.function("make_inputs")(device)
    return _inputs_cache[key]


def capture_launches(task, emulation, target=None, device="cpu", what_if=None, autotune_config=None):
    """The launches of task's launch() on make_inputs(device), inside `emulation` (the context
    cuda_emulation.emulated_cuda() yields; the task should be imported inside it too)."""
    target = target or GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    try:
        inputs = _make_inputs(task, device)
    except Exception as e:  # noqa: BLE001
        raise BridgeError("input-maker-error", f"make_inputs({device!r}) failed: {type(e).__name__}: {e}",
                          file=task.path, line=_task_frame_line(task, e.__traceback__),
                          detail=traceback.format_exc()) from e
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs, )
    launches = []
    with _patched_runtime(launches.append, backend, what_if, autotune_config, emulation, target):
        try:
            # launch()'s return value: the capture verb describes it as the task's outputs.
            task.launch_result = task.function("launch")(*inputs)
        except BridgeError:
            raise
        except Exception as e:  # noqa: BLE001
            raise BridgeError("launch-error", f"launch() failed before any kernel ran: {type(e).__name__}: {e}",
                              file=task.path, line=_task_frame_line(task, e.__traceback__),
                              detail=traceback.format_exc()) from e
    if not launches:
        raise BridgeError("no-launch", "launch() returned without launching a @triton.jit kernel", file=task.path)
    # The task line that launched each kernel; 0 when it was launched from several lines (which
    # one a rewrite should edit is then not for the capture to say) or from outside the task file.
    lines = {}
    for launch in launches:
        lines.setdefault(launch.name, set()).add(next((ln for path, ln in launch.frames if path == task.path), 0))
    for launch in launches:
        launch.call_line = next(iter(lines[launch.name])) if len(lines[launch.name]) == 1 else 0
    return launches, inputs
