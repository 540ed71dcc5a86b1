"""What one watched launch() call does (the runtime integrity checks' instrument, shared by
integrity_runtime.py and integrity_gpu.py): the aten ops it runs outside Triton launches, the
module's kernels it launches, its calls to `reference`, the harness functions and environment
variables it replaces (restored), with fresh allocations poisoned on request."""
import os
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .task import import_file
from .tensor_copy import copy_input

EMPTY_ATEN = frozenset("empty empty_like empty_strided new_empty new_empty_strided".split())

# Functions a harness relies on to time and compare: (module path, attribute path).
GUARDED_ATTRS = (
    ("time", "perf_counter"), ("time", "perf_counter_ns"), ("time", "time"), ("time", "monotonic"),
    ("time", "time_ns"), ("torch", "allclose"), ("torch", "equal"), ("torch", "isclose"),
    ("torch.testing", "assert_close"), ("torch.cuda", "synchronize"), ("torch.cuda", "Event"),
    ("torch.cuda", "Event.elapsed_time"), ("torch.cuda", "Event.record"), ("torch.cuda", "Event.synchronize"),
    ("torch.cuda", "current_stream"), ("torch", "Tensor.__eq__"), ("torch", "Tensor.clone"),
    ("triton", "testing.do_bench"), ("triton", "testing.do_bench_cudagraph"),
    ("triton", "runtime.driver"),
)

def load_module(path):
    """Imports a task file as its own module, without validating it (works under TRITON_INTERPRET=1)."""
    return import_file(path, "tritondx_integrity")


def module_kernels(module):
    """name -> the innermost JITFunction/InterpretedFunction of each kernel the module defines."""
    out = {}
    for value in list(vars(module).values()):
        obj, depth = value, 0
        while obj is not None and depth < 8 and not _is_kernel_fn(obj):
            obj, depth = getattr(obj, "fn", None), depth + 1
        if obj is None or not _is_kernel_fn(obj):
            continue
        fn = getattr(obj, "fn", None)
        if getattr(fn, "__module__", None) == module.__name__:
            out[fn.__name__] = obj
    return out


def _is_kernel_fn(obj):
    from triton.runtime.jit import JITFunction
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # pragma: no cover - older Triton
        InterpretedFunction = ()
    return isinstance(obj, (JITFunction, InterpretedFunction))


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, )


def clone_inputs(inputs):
    return tuple(copy_input(x) for x in inputs)


class Watch(TorchDispatchMode):
    """Records the aten ops of one launch() call (Triton launches excluded), counts the
    module's kernel launches and calls to `reference`, and poisons fresh allocations."""

    def __init__(self, module, poison=None):
        super().__init__()
        self.module = module
        self.poison = poison
        self.ops = {}
        self.launches = []
        self.reference_calls = 0
        self._in_triton = 0
        self._patched = []
        self.patched_attrs = []  # "time.perf_counter", ... replaced during the call
        self.env_changes = []    # environment variables set, changed or removed during the call

    def __enter__(self):
        self._guarded = {name: (owner, attr, value) for name, owner, attr, value in _guarded_values()}
        self._environ = dict(os.environ)
        for name, fn in module_kernels(self.module).items():
            self._patch_kernel(name, fn)
        real_reference = getattr(self.module, "reference", None)
        if callable(real_reference):
            def spy(*args, **kwargs):
                self.reference_calls += 1
                return real_reference(*args, **kwargs)
            setattr(self.module, "reference", spy)
            self._patched.append(lambda: setattr(self.module, "reference", real_reference))
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            for undo in reversed(self._patched):
                undo()
            self._patched.clear()
            self._restore_guarded()

    def _restore_guarded(self):
        for name, owner, attr, value in _guarded_values():
            before = self._guarded.get(name)
            if before is not None and before[2] is not value:
                self.patched_attrs.append(name)
                setattr(before[0], before[1], before[2])
        now = dict(os.environ)
        for key in sorted(set(now) | set(self._environ)):
            if now.get(key) != self._environ.get(key):
                self.env_changes.append(key)
        if self.env_changes:
            os.environ.clear()
            os.environ.update(self._environ)

    def _patch_kernel(self, name, fn):
        real_run = fn.run

        def run(*args, **kwargs):
            self.launches.append(name)
            self._in_triton += 1
            try:
                return real_run(*args, **kwargs)
            finally:
                self._in_triton -= 1

        fn.run = run
        self._patched.append(lambda: fn.__dict__.pop("run", None))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self._in_triton:
            return out
        name = func.overloadpacket.__name__
        self.ops[name] = self.ops.get(name, 0) + 1
        if self.poison is not None and name in EMPTY_ATEN and torch.is_tensor(out):
            fill_poison(out, self.poison)
        return out


def _guarded_values():
    """(name, owner object, attribute, current value) of every GUARDED_ATTRS entry that exists."""
    out = []
    for module_name, path in GUARDED_ATTRS:
        owner = sys.modules.get(module_name)
        parts = path.split(".")
        for part in parts[:-1]:
            owner = getattr(owner, part, None) if owner is not None else None
        if owner is None or not hasattr(owner, parts[-1]):
            continue
        out.append((f"{module_name}.{path}", owner, parts[-1], getattr(owner, parts[-1])))
    return out


def fill_poison(t, poison):
    if t.numel() == 0:
        return
    if t.is_floating_point():
        value, limit = poison[0], torch.finfo(t.dtype).max  # CUDA refuses 1e30 for half and fp8
        t.fill_(value if value != value else max(-limit, min(limit, value)))
    elif t.is_complex():
        t.fill_(poison[0])
    elif t.dtype == torch.bool:
        t.fill_(poison[2])
    else:
        t.fill_(poison[1])
