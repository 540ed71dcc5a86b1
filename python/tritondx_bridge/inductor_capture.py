"""torch.compile's kernels, recorded as capture records @triton.jit launches.

Inductor launches the Triton kernels it generates through its own autotuner
(`torch._inductor.runtime.triton_heuristics.CachingAutotuner.run`), not through
`JITFunction.run`, so capture hooks that call instead. Each call becomes a `capture.Launch` of the
kernel's `@triton.jit` function, specialized by Triton's own binder with the config Inductor
launches (its constexprs, `num_warps`, `num_stages`) and the grid Inductor computes for it
(`GridExpr`, evaluated at the call's arguments): the same record a hand-written kernel gets, so
its task is written the same way.

- On a GPU (`gpu=True`) the kernel runs as Inductor runs it. Inductor compiles and benchmarks its
  configs at the first call; capture lets it do that first (its benchmarking launches are
  neither recorded nor timed), then records the config it chose.
- Without a GPU the program runs on CPU tensors (cuda_emulation.py), where Inductor generates C++
  unless told otherwise: here its CPU backend is set to Triton, so the same fusions become Triton
  kernels, and nothing compiles or runs them (Inductor's own compile targets a CPU driver Triton
  3.6 does not have). A kernel with several configs gets its first, as an autotuned kernel does
  without a GPU. Inductor's heuristics for the CPU device can size blocks differently from the
  ones it would pick for a GPU; the kernels, arguments and shapes are the program's.
"""
import contextlib
import functools
import warnings

import torch

from .capture import Launch, specialize, with_run_defaults


def _heuristics():
    try:
        from torch._inductor.runtime import triton_heuristics
    except ImportError:  # a torch without Inductor: nothing of it to capture
        return None
    return triton_heuristics if hasattr(triton_heuristics, "CachingAutotuner") else None


def _runtime_names(tuner):
    """The names of the arguments CachingAutotuner.run is given: the kernel's signature less its
    constexprs and the arguments Inductor made constants."""
    constants = tuner.triton_meta.get("constants") or {}
    return [name for name, kind in tuner.triton_meta["signature"].items()
            if kind != "constexpr" and name not in constants]


def timer_label(fn):
    """The key an Inductor kernel's launches are timed under (gpu_capture.LaunchTimer.label)."""
    return ("inductor", id(fn))


def _grid(heuristics, tuner, config, values):
    """The grid Inductor's launcher computes for this config and these argument values (the
    expressions its launcher is generated from, evaluated here)."""
    grid_expr = getattr(heuristics, "GridExpr", None)
    if grid_expr is None or "grid_type" not in tuner.inductor_meta:
        raise RuntimeError(f"torch {torch.__version__}: this Inductor computes its grids elsewhere "
                           "(no GridExpr); its kernels cannot be captured")
    grid = grid_expr.from_meta(tuner.inductor_meta, config)
    scope = {**config.kwargs, **values}
    for line in grid.prefix:
        exec(line, scope)
    return tuple(int(eval(str(e), scope)) for e in (grid.x_grid, grid.y_grid, grid.z_grid))


def _config_json(config):
    return {**config.kwargs, "num_warps": config.num_warps, "num_stages": config.num_stages}


def _configs(tuner):
    """Inductor's configs for the kernel. Once compiled, Inductor drops `configs` (None) and
    keeps one launcher per config, then only the chosen one: capture notes them before that."""
    noted = getattr(tuner, "_tritondx_configs", None)
    if noted is None:
        noted = list(tuner.configs) if tuner.configs is not None else [l.config for l in tuner.launchers]
        if len(noted) > 1 or tuner.configs is not None:
            tuner._tritondx_configs = noted
    return noted


def _autotune(tuner, config):
    """What capture says of Inductor's configs: all it had, and the one launched."""
    configs = [_config_json(c) for c in _configs(tuner)]
    used = _config_json(config)
    if used not in configs:  # a config Inductor's coordinate descent found beyond its list
        configs.append(used)
    return {"configs": [str(c) for c in configs], "used": configs.index(used), "by": "inductor"}


def _launch(heuristics, tuner, backend, config, args, kwargs):
    fn = tuner.fn
    values = dict(zip(_runtime_names(tuner), args))
    values.update(kwargs)
    call = {**(tuner.triton_meta.get("constants") or {}), **values, **config.kwargs,
            "num_warps": config.num_warps, "num_stages": config.num_stages}
    call = {k: v for k, v in call.items() if k in fn.arg_names or k in ("num_warps", "num_stages")}
    bound_args, options, signature, constexprs, attrs = specialize(fn, backend, (), with_run_defaults(fn, call))
    launch = Launch(fn, signature, constexprs, attrs, options, _grid(heuristics, tuner, config, values), bound_args)
    launch.autotune = _autotune(tuner, config)
    launch.generated_by = {"generator": "torch.compile (Inductor)", "torch": torch.__version__}
    return launch


def _compiled_off_the_mode_stack(emulation, original):
    """`original` (torch.compile), returning callables that run off the emulation's mode stack (the
    compiled code runs on the CPU tensors it is given: Inductor generates for them)."""

    def outside(call):
        @functools.wraps(call)
        def wrapper(*args, **kwargs):
            with emulation.off_the_mode_stack():
                return call(*args, **kwargs)
        return wrapper

    def compile(model=None, **kwargs):
        if model is None:  # @torch.compile(mode=...)
            return lambda m: compile(m, **kwargs)
        compiled = original(model, **kwargs)
        if isinstance(compiled, torch.nn.Module):
            compiled.forward = outside(compiled.forward)
            return compiled
        return outside(compiled)

    return compile


@contextlib.contextmanager
def inductor_launches(record, backend, gpu, timer=None, emulation=None):
    """Inside: every kernel Inductor launches is given to `record` as a Launch; with `gpu`, then
    run (its first call's compile and benchmarking paused on `timer`), without, not run."""
    heuristics = _heuristics()
    if heuristics is None:
        yield
        return
    tuner_class = heuristics.CachingAutotuner
    original_run, original_precompile = tuner_class.run, tuner_class.precompile

    def run(self, *args, stream, benchmark_run=False, **kwargs):
        if benchmark_run or (timer is not None and timer.paused):
            return original_run(self, *args, stream=stream, benchmark_run=benchmark_run, **kwargs)
        if gpu:
            timer.paused += 1  # Inductor's own compile and benchmarking, at the first call
            try:
                if not self.launchers:
                    self.precompile()
                if len(self.launchers) > 1:
                    _configs(self)  # before autotuning keeps only the chosen launcher
                    self.autotune_to_one_config(*args, **kwargs)
            finally:
                timer.paused -= 1
            record(_launch(heuristics, self, backend, self.launchers[0].config, args, kwargs))
            timer.label = timer_label(self.fn)
            try:
                return original_run(self, *args, stream=stream, benchmark_run=benchmark_run, **kwargs)
            finally:
                timer.label = None
        with emulation.suspended():
            launch = _launch(heuristics, self, backend, _configs(self)[0], args, kwargs)
        emulation.kernel_launched(launch.name, launch.bound_args)
        record(launch)
        return None

    def precompile(self, *args, **kwargs):
        return None  # without a GPU: compiled for sm_90 by capture, never for a CPU driver

    tuner_class.run = run
    settings = contextlib.ExitStack()
    original_compile = torch.compile
    if not gpu:
        import torch._inductor.config as inductor_config
        tuner_class.precompile = precompile
        torch.compile = _compiled_off_the_mode_stack(emulation, original_compile)
        settings.enter_context(inductor_config.patch(cpu_backend="triton", compile_threads=1))
        settings.enter_context(warnings.catch_warnings())
        warnings.filterwarnings("ignore", message="Could not find an active CPU backend")
    try:
        with settings:
            yield
    finally:
        tuner_class.run, tuner_class.precompile = original_run, original_precompile
        torch.compile = original_compile
