"""Runtime integrity checks on an optimized candidate (benchmark-protocol.md section 2.3).

The static check (C++, src/tritondx/integrity/) reads the source; these checks watch the
candidate run, on CPU (the Triton interpreter, TRITON_INTERPRET=1) or on a GPU:

  integrity-kernel-not-launched  launch() ran none of the module's Triton kernels
  integrity-torch-compute        aten ops beyond allocation/view/copy ops and the original's
                                 (TorchDispatchMode around the call, Triton launches excluded)
  integrity-reads-reference      launch() called the task's `reference`
  integrity-input-modified       an input differs from its pristine copy after the call
  integrity-output-alias         an output shares storage with an input (the original's doesn't)
  integrity-uninitialized-read   outputs change when fresh allocations hold NaN, then 1e30
  integrity-output-cache         a stale result after the inputs change in place (same
                                 pointers, same objects), or the same output storage twice
  integrity-precision-downgrade  float64 error > 2x the original's + atol
  integrity-timer-patch          launch() replaced a timer/event/comparison function (restored)
  integrity-env-write            launch() changed os.environ (restored)
  integrity-foreign-kernel (GPU) a GPU kernel that is not one of the module's Triton kernels,
                                 a memset/memcpy, a fill/copy of an allowed op, or one the
                                 original also ran (torch.profiler)
  integrity-side-stream (GPU)    a kernel on another stream than the caller's

Every check returns violations as {"id", "line": 0, "message"}; a check that cannot decide
(the reference fails in float64, the original itself is nondeterministic) adds a note instead.
"""
import os

import torch

from . import verify
from .integrity_watch import (GUARDED_ATTRS, Watch, _guarded_values, as_tuple, clone_inputs, load_module,  # noqa: F401
                              module_kernels)

# aten ops (overload packet names) that allocate, view, move or describe data without computing.
ALLOWED_ATEN = frozenset("""
    _local_scalar_dense _reshape_alias _to_copy _unsafe_view alias arange as_strided chunk clone
    contiguous copy_ detach diagonal empty empty_like empty_strided expand expand_as fill_ flatten full
    full_like is_contiguous lift_fresh movedim narrow new_empty new_empty_strided new_full new_ones
    new_zeros ones ones_like permute reshape select slice split split_with_sizes squeeze sym_numel sym_size
    sym_storage_offset sym_stride t transpose unbind unflatten unsqueeze view view_as zero_ zeros zeros_like
""".split())
# Poison for fresh allocations: (floating point, integer, bool) per run.
POISONS = ((float("nan"), 0x5A, True), (1e30, 0x33, False))
# rtol, atol by dtype, as in verify.py (benchmark-protocol.md section 2.2).
DEFAULT_TOLERANCE = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (2e-2, 2e-2),
}
def _sync(device):
    if device == "cuda" and torch.cuda.is_available():
        torch.cuda.synchronize()


def watched_call(module, inputs, device, poison=None):
    with Watch(module, poison) as watch:
        out = as_tuple(module.launch(*inputs))
    _sync(device)
    return out, watch


def reference64(module, inputs):
    """The reference in float64 when it accepts it (else in the inputs' dtypes), on clones. A
    task without `reference` is its own specification: its launch() on clones, in their dtypes."""
    ref = getattr(module, "reference", None)
    if not callable(ref):
        device = "cuda" if any(torch.is_tensor(x) and x.is_cuda for x in inputs) else "cpu"
        out, _ = verify.run_on_copies(module.launch, inputs, device)
        return tuple(out)
    try:
        ups = [x.detach().to(torch.float64) if torch.is_tensor(x) and x.is_floating_point()
               else (x.clone() if torch.is_tensor(x) else x) for x in inputs]
        return as_tuple(ref(*ups))
    except Exception:  # noqa: BLE001 - some references need their dtype
        return as_tuple(ref(*clone_inputs(inputs)))


def tolerance(module, dtype):
    rtol, atol = DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))
    override = getattr(module, "TOLERANCE", None)
    if isinstance(override, dict):
        rtol, atol = override.get("rtol", rtol), override.get("atol", atol)
    return rtol, atol


def close(module, outs, refs):
    """All outputs within the task's tolerance of the reference (NaN never passes)."""
    if len(outs) != len(refs):
        return False
    for o, r in zip(outs, refs):
        if not torch.is_tensor(o):
            if o != r:
                return False
            continue
        if not torch.is_tensor(r) or tuple(o.shape) != tuple(r.shape):
            return False
        if not o.is_floating_point():
            if not torch.equal(o.cpu(), r.to(o.dtype).cpu()):
                return False
            continue
        rtol, atol = tolerance(module, o.dtype)
        o64, r64 = o.detach().double(), r.detach().double().to(o.device)
        ok = (o64 - r64).abs() <= atol + rtol * r64.abs()
        ok |= torch.isnan(o64) & torch.isnan(r64)
        ok |= torch.isinf(o64) & torch.isinf(r64) & (torch.sign(o64) == torch.sign(r64))
        if not bool(ok.all()):
            return False
    return True


def bitwise_same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if not torch.is_tensor(x) or not torch.is_tensor(y):
            if x != y:
                return False
            continue
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        same = x == y
        if x.is_floating_point():
            same |= torch.isnan(x) & torch.isnan(y)
        if not bool(same.all()):
            return False
    return True


def max_error(outs, refs):
    """Largest |out - ref| over floating outputs, or None if an output is non-finite where the
    reference is finite (a correctness failure, not a precision question)."""
    worst = 0.0
    for o, r in zip(outs, refs):
        if not (torch.is_tensor(o) and torch.is_tensor(r) and o.is_floating_point()) or o.shape != r.shape:
            continue
        o64, r64 = o.detach().double(), r.detach().double().to(o.device)
        finite = torch.isfinite(r64)
        if bool((~torch.isfinite(o64) & finite).any()):
            return None
        if bool(finite.any()):
            worst = max(worst, float((o64 - r64).abs()[finite].max()))
    return worst


def aliases(outs, inputs):
    pairs = set()
    for i, o in enumerate(outs):
        for j, x in enumerate(inputs):
            if torch.is_tensor(o) and torch.is_tensor(x) and o.numel() and x.numel() and \
                    o.untyped_storage().data_ptr() == x.untyped_storage().data_ptr():
                pairs.add((i, j))
    return pairs


def storages(outs):
    return {o.untyped_storage().data_ptr() for o in outs if torch.is_tensor(o) and o.numel()}


class Report:
    def __init__(self):
        self.violations = []
        self.notes = []

    def violation(self, check_id, message):
        if not any(v["id"] == check_id and v["message"] == message for v in self.violations):
            self.violations.append({"id": check_id, "line": 0, "message": message})

    def note(self, message):
        self.notes.append(message)


def check_candidate(candidate, original, input_sets, device="cpu", gpu_profile=None):
    """Runs every runtime check on module `candidate` against module `original` (may be the
    same module). `input_sets`: at least two independent input tuples of the same shapes.
    Returns {"passed", "violations", "notes", "launches", "aten_ops", "gpu_kernels"?}."""
    if len(input_sets) < 2:
        raise ValueError("check_candidate needs two input sets")
    rep = Report()
    set0, set1 = tuple(input_sets[0]), tuple(input_sets[1])
    ref0 = reference64(original, set0)

    # Warm-up (JIT compilation, autotuning: its benchmarking runs aten ops of its own), watched
    # for patches, environment writes and reference calls only.
    watched_call(original, clone_inputs(set0), device)
    _, c_warm = watched_call(candidate, clone_inputs(set0), device)

    # The original, for what it is allowed to do (its aten ops, aliases, in-place inputs, error).
    o_in = clone_inputs(set0)
    o_out, o_watch = watched_call(original, o_in, device)
    allowed = ALLOWED_ATEN | set(o_watch.ops)
    o_alias = aliases(o_out, o_in)
    o_modified = {i for i, (x, p) in enumerate(zip(o_in, set0)) if torch.is_tensor(x) and not bitwise_same((x, ), (p, ))}

    # Run A: fresh allocations hold NaN.
    a_in = clone_inputs(set0)
    a_out, a_watch = watched_call(candidate, a_in, device, POISONS[0])
    for i, (x, p) in enumerate(zip(a_in, set0)):
        if i not in o_modified and torch.is_tensor(x) and not bitwise_same((x, ), (p, )):
            rep.violation("integrity-input-modified", f"launch() modified input {i}")
    for i, j in sorted(aliases(a_out, a_in) - o_alias):
        rep.violation("integrity-output-alias", f"output {i} shares memory with input {j}")
    a_ok = close(original, a_out, ref0)
    if not a_ok:
        rep.note("the candidate's output is not within tolerance of the reference on the first input set")

    # Run B: fresh allocations hold 1e30; same inputs -> the same bits.
    b_in = clone_inputs(set0)
    b_out, b_watch = watched_call(candidate, b_in, device, POISONS[1])
    if not bitwise_same(a_out, b_out):
        if close(original, a_out, ref0) and close(original, b_out, ref0):
            rep.note("outputs differ bitwise between two runs on the same inputs but both are within tolerance "
                     "(a nondeterministic reduction order?)")
        else:
            rep.violation("integrity-uninitialized-read",
                          "the outputs change with what freshly allocated memory held (NaN, then 1e30): "
                          "the candidate returns memory it never wrote")

    # Run C: the inputs of run B change in place (same objects, same pointers).
    for x, y in zip(b_in, set1):
        if torch.is_tensor(x):
            x.copy_(y)
    c_out, c_watch = watched_call(candidate, b_in, device)
    if (storages(c_out) & storages(b_out)) - storages(b_in):
        rep.violation("integrity-output-cache",
                      "launch() returned output storage it had already returned for an earlier call")
    if a_ok and not close(original, c_out, reference64(original, set1)):
        rep.violation("integrity-output-cache",
                      "after the inputs changed in place (same tensors, same pointers), launch() returned a result "
                      "that no longer matches the reference: it reuses an earlier result")

    # What every watched call did: kernels launched, aten ops, reference calls.
    runs = {"first": a_watch, "second": b_watch, "third": c_watch}
    idle = [name for name, w in runs.items() if not w.launches]
    if idle:
        rep.violation("integrity-kernel-not-launched",
                      f"launch() ran none of the module's Triton kernels (call: {', '.join(idle)})")
    extra = sorted({op for w in runs.values() for op in w.ops} - allowed)
    if extra:
        rep.violation("integrity-torch-compute",
                      "launch() computed with PyTorch: aten ops " + ", ".join(extra) +
                      " (allowed: allocation, view and copy ops, and the original launch's ops)")
    watches = (c_warm, a_watch, b_watch, c_watch)
    calls = sum(w.reference_calls for w in watches)
    if calls:
        rep.violation("integrity-reads-reference", f"launch() called reference() {calls} time(s)")

    # Patched timers/comparisons and environment writes (undone after each call).
    for name in sorted({n for w in watches for n in w.patched_attrs}):
        rep.violation("integrity-timer-patch", f"launch() replaced {name} (restored by the checker)")
    env = sorted({k for w in watches for k in w.env_changes})
    if env:
        rep.violation("integrity-env-write", "launch() changed environment variables " + ", ".join(env) +
                      " (restored by the checker)")

    # Precision: float64 error at most 2x the original's + atol.
    err_c, err_o = max_error(a_out, ref0), max_error(o_out, ref0)
    if not callable(getattr(original, "reference", None)):
        rep.note("the task has no PyTorch reference: the precision check against a float64 reference is skipped "
                 "(correctness compares the outputs with the initial kernel's at the task's tolerance)")
    elif err_c is not None and err_o is not None:
        dtypes = [o.dtype for o in a_out if torch.is_tensor(o) and o.is_floating_point()]
        atol = max((tolerance(original, d)[1] for d in dtypes), default=0.0)
        if err_c > 2 * err_o + atol:
            rep.violation("integrity-precision-downgrade",
                          f"max |error| vs the float64 reference is {err_c:.3g}, the original's {err_o:.3g}: more "
                          f"than 2x the original's + atol ({atol:.3g})")
    elif err_c is None:
        rep.note("non-finite outputs where the reference is finite: precision check skipped")

    result = {"launches": len(a_watch.launches), "aten_ops": sorted({op for w in runs.values() for op in w.ops})}
    if device == "cuda" and gpu_profile is not False and torch.cuda.is_available():
        from .integrity_gpu import gpu_checks
        result["gpu_kernels"] = gpu_checks(candidate, original, set0, rep)
    result.update({"passed": not rep.violations, "violations": rep.violations, "notes": rep.notes})
    return result


def snapshot_guarded():
    """The guarded functions as they are now (take it before the candidate is imported)."""
    return {name: (owner, attr, value) for name, owner, attr, value in _guarded_values()}


def restore_guarded(baseline):
    """Names of guarded functions replaced since `baseline`; puts the originals back."""
    changed = []
    for name, owner, attr, value in _guarded_values():
        before = baseline.get(name)
        if before is not None and before[2] is not value:
            changed.append(name)
            setattr(before[0], before[1], before[2])
    return changed


def run_integrity(task_module, request, make_inputs, device, baseline=None):
    """The `run` verb's "integrity" option ({"original"?: path, "gpu_profile"?: true}) -> the
    report. `make_inputs(i)` returns the i-th fresh input set (two are used); `baseline`, from
    snapshot_guarded() before the task was imported, catches patches made at import time or
    during earlier calls."""
    request = request if isinstance(request, dict) else {}
    earlier = restore_guarded(baseline) if baseline else []
    original = load_module(request["original"]) if request.get("original") else task_module
    report = check_candidate(task_module, original, [make_inputs(0), make_inputs(1)], device,
                             gpu_profile=bool(request.get("gpu_profile", True)))
    for name in earlier:
        report["violations"].append({"id": "integrity-timer-patch", "line": 0, "message":
                                     f"{name} was replaced at import or during the correctness runs (restored)"})
        report["passed"] = False
    return report


def cpu_reply(request):
    """`run` with {"integrity": {"device": "cpu", ...}} on a machine without a GPU: the runtime
    checks only, under the Triton interpreter, on make_inputs("cpu") (small tasks only: the
    interpreter is slow)."""
    os.environ["TRITON_INTERPRET"] = "1"  # read when the task's @triton.jit runs, below
    from .errors import BridgeError
    path = request.get("task")
    if not path or not os.path.isfile(path):
        raise BridgeError("file-missing", f"task file not found: {path}", file=path or "")
    from .interpreter_shim import install_interpreter_shim
    install_interpreter_shim()
    from .cuda_emulation import emulated_cuda
    with emulated_cuda(interpreted=True):  # wrappers that check for or ask for CUDA run here too
        module = load_module(path)
        seed = int(request.get("seed", 1234))

        def make_inputs(i):
            torch.manual_seed(seed + 200 + i)
            return as_tuple(module.make_inputs("cpu"))

        return {"device": "cpu", "torch": torch.__version__, "correctness": None, "timing": None, "graph": None,
                "recheck": None, "integrity": run_integrity(module, request["integrity"], make_inputs, "cpu")}
