"""`tritondx capture --gpu on`: the program runs on its GPU as it would without tritondx, and

- every @triton.jit launch is recorded as the no-GPU capture records it (capture.specialize,
  Triton's own binder), then launched by Triton's own JITFunction.run; an autotuner's launch
  carries the config it chose, and the launches it makes while benchmarking are not recorded;
- every Triton kernel launch, @triton.jit's and those made through a compiled kernel's launcher
  (torch.compile's Inductor kernels), is timed with CUDA events recorded from Triton's
  launch_enter_hook / launch_exit_hook chains (added to them, so Proton's or tritonparse's hooks
  keep running).
"""
import contextlib

import torch
from triton import knobs
from triton.runtime.autotuner import Autotuner
from triton.runtime.jit import JITFunction

from .capture import Launch, specialize, with_run_defaults


def _kernel_name(metadata):
    """The kernel's name from what Triton hands a launch hook: a LazyDict (its `data` holds the
    name; get() would also run the kernel's launch_metadata function) or a dict."""
    data = getattr(metadata, "data", metadata)
    return data["name"] if isinstance(data, dict) and "name" in data else "?"


class LaunchTimer:
    """CUDA events around every Triton launch, by kernel name (on the current stream, which is
    the one Triton launches on)."""

    def __init__(self):
        self.events = {}  # kernel name, or the label set around the launch -> [(start, end)]
        self._open = []
        self.paused = 0
        self.label = None  # set around a launch whose kernel name alone is ambiguous (Inductor's)

    def enter(self, metadata):
        if self.paused:
            return
        start = torch.cuda.Event(enable_timing=True)
        start.record()
        self._open.append((self.label or _kernel_name(metadata), start))

    def exit(self, metadata):
        if self.paused or not self._open:
            return
        end = torch.cuda.Event(enable_timing=True)
        end.record()
        name, start = self._open.pop()
        self.events.setdefault(name, []).append((start, end))

    def totals_ms(self):
        """Kernel name -> (launches, total GPU ms); synchronizes once."""
        torch.cuda.synchronize()
        return {name: (len(pairs), sum(s.elapsed_time(e) for s, e in pairs)) for name, pairs in self.events.items()}


@contextlib.contextmanager
def gpu_runtime(record, timer, backend):
    """Inside: @triton.jit launches run and are given to `record` as a Launch specialized by
    `backend` (the visible card's); `timer` times every Triton launch."""
    original_run, original_autotune_run, original_bench = JITFunction.run, Autotuner.run, Autotuner._bench
    autotuners = []

    def run(self, *args, grid, warmup, **kwargs):
        if warmup or timer.paused:
            return original_run(self, *args, grid=grid, warmup=warmup, **kwargs)
        bound_args, options, signature, constexprs, attrs = specialize(self, backend, args,
                                                                       with_run_defaults(self, kwargs))
        shown = grid(bound_args) if callable(grid) else grid
        launch = Launch(self, signature, constexprs, attrs, options, tuple(shown) if shown is not None else None,
                        bound_args)
        tuner = autotuners[-1] if autotuners else None
        if tuner is not None and getattr(tuner, "best_config", None) in tuner.configs:
            launch.autotune = {"configs": [str(c) for c in tuner.configs],
                               "used": tuner.configs.index(tuner.best_config)}
        record(launch)  # before the launch: the data ranges are read from the inputs as they were
        return original_run(self, *args, grid=grid, warmup=warmup, **kwargs)

    def autotune_run(self, *args, **kwargs):
        autotuners.append(self)
        try:
            return original_autotune_run(self, *args, **kwargs)
        finally:
            autotuners.pop()

    def bench(self, *args, **kwargs):
        timer.paused += 1  # the autotuner's own benchmarking is neither recorded nor timed
        try:
            return original_bench(self, *args, **kwargs)
        finally:
            timer.paused -= 1

    JITFunction.run, Autotuner.run, Autotuner._bench = run, autotune_run, bench
    knobs.runtime.launch_enter_hook.add(timer.enter)
    knobs.runtime.launch_exit_hook.add(timer.exit)
    try:
        yield
    finally:
        JITFunction.run, Autotuner.run, Autotuner._bench = original_run, original_autotune_run, original_bench
        knobs.runtime.launch_enter_hook.remove(timer.enter)
        knobs.runtime.launch_exit_hook.remove(timer.exit)
