"""`tritondx capture -- python my_script.py ARGS`: the Triton kernels a program launches, recorded,
ranked, and written as tasks. With --gpu on the program runs on its GPU and every launch is timed
(gpu_capture.py); with --gpu off (below) nothing runs.

The program runs here on CPU tensors inside cuda_emulation.emulated_cuda() (it sees one GPU of the
target), and every @triton.jit launch — plain, @triton.autotune (its first config: nothing can be
benchmarked), @triton.heuristics, a library's — is specialized exactly as Triton does it and
recorded, not run: kernel, grid, constexprs, num_warps/num_stages, and each argument (tensors by
dtype, shape, strides and the range of their data; scalars by value). Without times, kernels are
ranked by a static cost: the bytes of the tensors each launch is given, summed over its launches.
Values a kernel would have written are not computed, so data read back from them is what the CPU
tensor held (recorded as host reads).

Usage: python -m tritondx_bridge.program_capture --out DIR [--gpu auto|on|off] [--top N] [--min-share PERCENT]
       -- [python] SCRIPT ARGS... | -- [python] -m MODULE ARGS...
Writes DIR/capture.json and one task file per top kernel (captured_task.py); exit 0, or 1 when the
program failed (what was captured before is written all the same), 2 on bad usage.
"""
import argparse
import contextlib
import datetime
import json
import os
import runpy
import sys
import traceback
import weakref

from . import captured_task, kernelbench
from .capture import _patched_runtime
from .cuda_emulation import emulated_cuda
from .inductor_capture import inductor_launches, timer_label
from .kernel_writes import read_params, written_params

_STAT_SAMPLE = 1 << 16
_FEW_VALUES = 256


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _tensor_key(t):
    return ("tensor", _dtype_name(t.dtype), tuple(t.shape), tuple(t.stride()), int(t.storage_offset()))


def _value_key(v):
    import torch
    if torch.is_tensor(v):
        return _tensor_key(v)
    if isinstance(v, (bool, int, float, str)) or v is None:
        return ("value", v)
    return ("value", repr(v))


def _data_range(t):
    """What make_inputs needs to draw data like the program's: the range of integer data (so
    indices stay in bounds), the scale of float data, the share of true booleans. Read from a
    sample of the storage; None where the data is not finite (e.g. memory no kernel wrote here)."""
    import torch
    storage = t.untyped_storage()
    elems = storage.nbytes() // t.element_size() if t.element_size() else 0
    if elems == 0:
        return None
    flat = torch.empty(0, dtype=t.dtype, device=t.device).set_(storage, 0, (elems, ), (1, ))
    sample = flat[:_STAT_SAMPLE]
    if t.dtype == torch.bool:
        return {"kind": "bool", "p": float(sample.float().mean())}
    if not t.dtype.is_floating_point and not t.dtype.is_complex:
        return _int_range(sample)
    s = sample.double()
    if not bool(torch.isfinite(s).all()):
        return None
    return {"kind": "float", "mean": float(s.mean()), "std": float(s.std()) if s.numel() > 1 else 0.0,
            "min": float(s.min()), "max": float(s.max())}


def _int_range(sample):
    """Integer data: its few distinct values (labels, a handful of indices: drawn from exactly
    those), or its range with the negative sentinels beside it (-100 for an ignored label: drawn
    at their share, never a negative index in between), or its range."""
    import torch
    distinct = torch.unique(sample)
    out = {"kind": "int", "min": int(distinct[0]), "max": int(distinct[-1])}
    if distinct.numel() <= _FEW_VALUES:
        out["values"] = [int(v) for v in distinct]
        return out
    negative = distinct[distinct < 0]
    if 0 < negative.numel() <= 8 and negative.numel() < distinct.numel():
        rest = distinct[distinct >= 0]
        out.update({"min": int(rest[0]), "max": int(rest[-1]), "sentinels": [int(v) for v in negative],
                    "sentinel_share": float((sample < 0).float().mean())})
    return out


def _describe(value, written_by=None, output=False):
    """An argument as make_inputs will recreate it. `written_by`: the kernel that wrote this
    tensor's storage earlier in the program (it did not run here, so the data is not real).
    `output`: the kernel stores through it; what it held before is drawn from N(0, 1) (often
    torch.empty's leftovers, or a kernel's in-place operand: random data tests both)."""
    import torch
    if torch.is_tensor(value):
        storage_elems = value.untyped_storage().nbytes() // value.element_size() if value.element_size() else 0
        d = {"kind": "tensor", "dtype": _dtype_name(value.dtype), "shape": list(value.shape),
             "stride": list(value.stride()), "offset": int(value.storage_offset()), "storage": storage_elems,
             "bytes": int(value.numel() * value.element_size())}
        d["data"] = None if written_by or output else _data_range(value)
        if written_by:
            d["data_from"] = f"written by {written_by}, which does not run without a GPU: drawn from N(0, 1)"
        return d
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"kind": "scalar", "value": value}
    return {"kind": "other", "type": type(value).__name__, "repr": repr(value)[:200]}


class KernelRecord:
    """One kernel's launches, grouped by configuration (arguments' layouts and values, constexprs,
    grid, options); the data ranges are read at a configuration's first launch."""

    def __init__(self, fn):
        self.fn = fn
        self.writes = written_params(fn)
        self.reads = read_params(fn)
        self.calls = 0
        self.configs = {}  # key -> {"count", "args", "constexprs", "grid", "options", "autotune", "bytes"}
        self.order = []
        self.generated_by = None  # {"generator", "torch", ...} for a kernel torch.compile generated

    def add(self, launch, written):
        """`written`: storage address -> the kernel that wrote it (this launch's writes are added),
        or None where kernels run (on a GPU every tensor holds real data)."""
        import torch
        self.calls += 1
        self.generated_by = self.generated_by or getattr(launch, "generated_by", None)
        params = launch.fn.params
        args = [(p.name, launch.bound_args[p.name]) for p in params if not p.is_constexpr]
        constexprs = {p.name: launch.bound_args[p.name] for p in params if p.is_constexpr}
        options = {k: getattr(launch.options, k) for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")
                   if getattr(launch.options, k, None) is not None}
        grid = [int(g) for g in launch.grid] if launch.grid is not None else []
        key = (tuple((n, _value_key(v)) for n, v in args), repr(sorted(constexprs.items(), key=lambda kv: kv[0])),
               tuple(grid), repr(sorted(options.items())))
        held = self.configs.get(key)
        if held is None:
            described = [(n, _describe(v, written.get(v.untyped_storage().data_ptr())
                                       if written is not None and torch.is_tensor(v) and n not in self.writes
                                       else None, output=n in self.writes)) for n, v in args]
            held = {"count": 0, "args": described, "constexprs": {k: captured_task.constexpr_json(v)
                                                                   for k, v in constexprs.items()},
                    "grid": grid, "options": options, "autotune": launch.autotune,
                    "bytes": sum(d.get("bytes", 0) for _, d in described),
                    "specialization": (launch.signature, launch.constexprs, launch.attrs, launch.options)}
            self.configs[key] = held
            self.order.append(key)
        held["count"] += 1
        for n, v in args if written is not None else ():
            if n in self.writes and torch.is_tensor(v):
                address = v.untyped_storage().data_ptr()
                written[address] = self.fn.fn.__name__
                # Forgotten with the tensor, before the allocator can give its memory to another one
                # (a view that outlives it is then taken for real data: never the other way round).
                weakref.finalize(v, written.pop, address, None)

    def main_config(self):
        """The most frequent configuration (of those, the one moving the most bytes): what a task's
        make_inputs recreates and its launch repeats."""
        return max((self.configs[k] for k in self.order), key=lambda c: (c["count"], c["bytes"]))

    def static_bytes(self):
        return sum(c["count"] * c["bytes"] for c in self.configs.values())


class Recorder:
    """Records every launch made inside `recording()`: on CPU tensors with nothing run (gpu=False),
    or on the GPU with every launch run and timed (gpu=True, gpu_capture.py)."""

    def __init__(self, gpu=False):
        self.gpu = gpu
        self.timer = None
        self.kernels = {}  # id(fn) -> KernelRecord, in first-launch order
        self.launches = 0
        self.written = {}  # storage address -> the kernel that wrote it

    def record(self, launch):
        self.launches += 1
        if id(launch.fn) not in self.kernels:
            self.kernels[id(launch.fn)] = KernelRecord(launch.fn)
        # Reading the data ranges is tritondx's read, not the program's: not a host read to report.
        with self.emulation.suspended() if hasattr(self, "emulation") else contextlib.nullcontext():
            self.kernels[id(launch.fn)].add(launch, None if self.gpu else self.written)

    @contextlib.contextmanager
    def recording(self, target_name="nvidia-h200"):
        from triton.backends.compiler import GPUTarget
        from triton.compiler import make_backend
        if self.gpu:
            import torch
            from .gpu_capture import LaunchTimer, gpu_runtime
            self.timer = LaunchTimer()
            major, minor = torch.cuda.get_device_capability()
            backend = make_backend(GPUTarget("cuda", major * 10 + minor, 32))
            with gpu_runtime(self.record, self.timer, backend), inductor_launches(self.record, backend, True, self.timer):
                yield self
            return
        target = GPUTarget("cuda", 90, 32)
        backend = make_backend(target)
        with emulated_cuda(target_name) as emulation:
            self.emulation = emulation
            with _patched_runtime(self.record, backend, None, None, emulation, target), \
                    inductor_launches(self.record, backend, False, emulation=emulation):
                yield self


def program_error(e, script):
    frames = traceback.extract_tb(e.__traceback__)
    inside = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(script)] or frames
    where = f"{inside[-1].filename}:{inside[-1].lineno}" if inside else script
    return {"type": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else "", "where": where,
            "traceback": "".join(traceback.format_exception(type(e), e, e.__traceback__))[-4000:]}


def run_program(argv, recorder):
    """Runs `argv` (a script and its arguments, or -m and a module and its arguments) as __main__
    inside recorder.recording(); returns (exit status, error or None)."""
    module = argv[1] if argv[0] == "-m" else None
    script = argv[0] if module is None else module
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = list(argv[1:]) if module else list(argv)
    sys.path.insert(0, os.getcwd() if module else os.path.dirname(os.path.abspath(script)))
    try:
        with recorder.recording():
            if module:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(script, run_name="__main__")
        return 0, None
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        return code, None if code == 0 else {"type": "SystemExit", "message": f"the program exited with {e.code}",
                                             "where": script}
    except Exception as e:  # noqa: BLE001 (the program's own failure is reported, with what was captured)
        return 1, program_error(e, script)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def _compile_failure(record):
    """Why the kernel's most frequent launch does not compile for sm_90 (Triton's own message), or
    None: compiled, as the launch was specialized, before a task is written for it."""
    import triton
    from triton.backends.compiler import GPUTarget
    signature, constexprs, attrs, options = record.main_config()["specialization"]
    try:
        triton.compile(triton.compiler.ASTSource(record.fn, signature, constexprs, attrs),
                       target=GPUTarget("cuda", 90, 32), options=options.__dict__)
    except Exception as e:  # noqa: BLE001 (Triton's compile errors have no common base)
        message = " ".join(str(e).split())
        return f"does not compile for sm_90: {type(e).__name__}: {message[:400]}"
    return None


def _costs(recorder):
    """Each kernel's cost and what it is: GPU ms measured around its launches, or the static cost."""
    if not recorder.gpu:
        return {id(k): k.static_bytes() for k in recorder.kernels.values()}, {}
    totals = recorder.timer.totals_ms()
    names = {k.fn.fn.__name__ for k in recorder.kernels.values()}
    # Inductor's kernels are timed under their record's label: two graphs can name two kernels alike.
    costs = {id(k): totals.get(timer_label(k.fn), totals.get(k.fn.fn.__name__, (0, 0.0)))[1]
             for k in recorder.kernels.values()}
    others = {name: t for name, t in totals.items() if isinstance(name, str) and name not in names}
    return costs, others


def summarize(recorder, out_dir, top, min_share, program, status, error, problem=None):
    """Ranks the kernels, writes the task files of the top ones and capture.json; returns the summary.
    `problem`: a KernelBench problem's entry (kernelbench.py)."""
    costs, others = _costs(recorder)
    total = (sum(costs.values()) + sum(ms for _, ms in others.values())) or 1
    ranked = sorted(recorder.kernels.values(), key=lambda k: -costs[id(k)])
    os.makedirs(out_dir, exist_ok=True)
    names, kernels = set(), []
    for k in ranked:
        share = costs[id(k)] / total
        entry = captured_task.kernel_json(k)
        entry.update({"calls": k.calls, "static_bytes": k.static_bytes(), "share": share, "task": None})
        if recorder.gpu:
            entry["gpu_ms"] = costs[id(k)]
        rank = len(kernels) + 1
        if rank > top:
            entry["skipped"] = f"below the top {top}"
        elif share * 100 < min_share:
            entry["skipped"] = f"{share * 100:.1f}% of the total, under --min-share {min_share:g}%"
        elif not recorder.gpu and (failure := _compile_failure(k)):  # on a GPU it ran, so it compiled
            entry["skipped"] = failure
        else:
            name = captured_task.file_name(k.fn, names)
            entry.update(captured_task.write_task(k, os.path.join(out_dir, name), program, recorder.gpu))
        entry["rank"] = rank
        kernels.append(entry)
    for name, (calls, ms) in sorted(others.items(), key=lambda kv: -kv[1][1]):
        kernels.append({"kernel": name, "calls": calls, "gpu_ms": ms, "share": ms / total, "configs": 0, "task": None,
                        "skipped": "launched through a compiled kernel's launcher, not @triton.jit's run "
                                   "(torch.compile's Inductor kernels are): timed, no task"})
    kernels.sort(key=lambda e: -e["share"])
    for i, e in enumerate(kernels, 1):
        e["rank"] = i
    ranking = ("GPU time: CUDA events around every Triton launch, summed per kernel" if recorder.gpu else
               "static cost: the bytes of the tensors each launch is given, summed over the kernel's launches")
    summary = {"program": program, "gpu": recorder.gpu, "captured_at": datetime.datetime.now(datetime.timezone.utc)
               .strftime("%Y-%m-%dT%H:%M:%SZ"), "ranking": ranking,
               "exit_status": status, "error": error, "launches": recorder.launches, "kernels": kernels,
               "cuda_emulation": recorder.emulation.to_json() if hasattr(recorder, "emulation") else {}}
    if problem is not None:
        summary["problem"] = problem
    with open(os.path.join(out_dir, "capture.json"), "w") as f:
        json.dump(summary, f, indent=1, default=str)
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tritondx capture")
    parser.add_argument("--out", default="captured")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--min-share", type=float, default=2.0, help="percent of the static cost")
    parser.add_argument("--gpu", choices=("auto", "on", "off"), default="auto")
    parser.add_argument("--kernelbench", metavar="PROBLEM",
                        help="a KernelBench problem file: its Model, compiled by torch.compile, is the program")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if program[:1] and os.path.basename(program[0]).startswith("python"):
        program = program[1:]  # `-- python my_script.py`: this interpreter runs it
    if args.kernelbench and program:
        parser.error("give either --kernelbench PROBLEM or a program after --, not both")
    if not program and not args.kernelbench:
        parser.error("no program to run: give it after --, e.g. -- python my_script.py")
    path = args.kernelbench or program[0]
    if path != "-m" and not os.path.isfile(path):
        print(f"error: capture: no such {'problem' if args.kernelbench else 'program'} file: {path}", file=sys.stderr)
        return 2
    import torch
    visible = torch.cuda.is_available()
    if args.gpu == "on" and not visible:
        print("error: capture: --gpu on, but torch sees no CUDA GPU here (use --gpu off to capture without one)",
              file=sys.stderr)
        return 2
    recorder = Recorder(gpu=args.gpu == "on" or (args.gpu == "auto" and visible))
    if args.kernelbench:
        return _capture_problem(args, recorder)
    status, error = run_program(program, recorder)
    summary = summarize(recorder, args.out, args.top, args.min_share, program, status, error)
    return 1 if error or not summary["kernels"] else 0


def _capture_problem(args, recorder):
    """--kernelbench: the problem's compiled Model is the program; its eager Model the reference."""
    problem, status, error = None, 0, None
    try:
        problem = kernelbench.run(args.kernelbench, recorder, args.out)
    except kernelbench.NotAProblem as e:
        print(f"error: capture: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 (the problem's own failure is reported, with what was captured)
        status, error = 1, program_error(e, args.kernelbench)
    summary = summarize(recorder, args.out, args.top, args.min_share, ["--kernelbench", args.kernelbench], status,
                        error, problem)
    return 1 if error or not summary["kernels"] else 0


if __name__ == "__main__":
    sys.exit(main())
