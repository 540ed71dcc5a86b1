"""Correctness of a task's kernel against its references, on the GPU (or on the CPU under the
Triton interpreter).

The references: the task's PyTorch `reference` (computed in float64 where possible), and/or the
initial kernel, a frozen copy of the task file as the optimization run found it (its `launch`
on the same inputs, in their dtypes). A task without `reference` is verified against its
initial kernel alone; with both, both are checked and each failure says which disagreed.
Fresh random inputs for every draw (seeded, never all zeros), outputs poisoned through the
caching allocator before the launch (NaN, then a second run with different garbage that must
give the same results: bitwise, or at tolerance where the task has no PyTorch reference and
its kernels may legitimately differ run to run, e.g. float atomics), tolerance by dtype (the
task's TOLERANCE overrides; integer outputs exact), NaN/Inf never pass, inputs checked
unchanged.

Besides make_inputs' shapes (the ones timed), every input tuple of the task's
`make_test_inputs(device)` is checked once (small, odd, degenerate shapes: a kernel is called at
more shapes than the benchmark's); a task without it is also checked at `make_small_inputs`
where it has that, and the reply says when make_inputs' shapes were the only ones.
"""
import math

import torch

from .errors import BridgeError
from .task import load_task
from .tensor_copy import copy_input

# rtol, atol by output dtype (benchmark-protocol.md section 2.2).
DEFAULT_TOLERANCE = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (2e-2, 2e-2),
}


def as_tuple(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x, )


def _upcast(x):
    if torch.is_tensor(x) and x.is_floating_point():
        return x.detach().to(torch.float64)
    if torch.is_tensor(x):
        return x.detach().clone()
    return x


def has_reference(task):
    return callable(getattr(task.module, "reference", None))


def load_initial(request):
    """The initial kernel's task, when the request names its frozen copy (`initial_task`)."""
    path = request.get("initial_task")
    return load_task(path) if path else None


def reference_outputs(task, inputs):
    """The reference in float64 when it accepts float64 inputs, else in the inputs' dtypes."""
    ref = task.function("reference")
    try:
        out = as_tuple(ref(*[_upcast(x) for x in inputs]))
        return out, "float64"
    except Exception:  # noqa: BLE001 - some references need their dtype (e.g. fp16-only ops)
        out = as_tuple(ref(*[x.clone() if torch.is_tensor(x) else x for x in inputs]))
        return out, "input dtype"


def poison_allocator(nbytes, value):
    """Leaves `value`-filled blocks in the caching allocator so torch.empty returns garbage."""
    if nbytes <= 0:
        return
    blocks = []
    for size in (nbytes, nbytes // 2, nbytes // 4):
        n = max(size // 4, 1)
        blocks.append(torch.full((n, ), value, dtype=torch.float32, device="cuda"))
    del blocks


def tensor_bytes(xs):
    return sum(x.numel() * x.element_size() for x in xs if torch.is_tensor(x))


def run_on_copies(launch, inputs, device):
    """launch() on copies of `inputs`: its outputs, and the copies as it left them (a kernel may
    update its inputs in place)."""
    args = [copy_input(x) for x in inputs]
    out = as_tuple(launch(*args))
    _synchronize(device)
    return [o.clone() if torch.is_tensor(o) else o for o in out], args


def _synchronize(device):
    if device == "cuda":
        torch.cuda.synchronize()


def make_inputs(task, seed, device="cuda"):
    torch.manual_seed(seed)
    inputs = as_tuple(task.function("make_inputs")(device))
    for i, x in enumerate(inputs):
        if torch.is_tensor(x) and x.is_floating_point() and x.numel() > 0 and not bool(x.any()):
            raise BridgeError("bad-inputs", f"make_inputs returned an all-zero tensor (input {i}); zeros hide unwritten "
                              f"outputs and wrong indexing: use random data", file=task.path)
    return inputs


def test_input_sets(task, seed, device="cuda"):
    """(label, inputs) for every input tuple besides make_inputs': make_test_inputs(device)'s
    list, or make_small_inputs(device) alone; [] when the task has neither."""
    maker = getattr(task.module, "make_test_inputs", None)
    if callable(maker):
        torch.manual_seed(seed)
        sets = maker(device)
        if not isinstance(sets, (list, tuple)) or not sets:
            raise BridgeError("bad-inputs", "make_test_inputs must return a non-empty list of input tuples",
                              file=task.path)
        return [(f"test input {k} {describe_inputs(as_tuple(x))}", as_tuple(x)) for k, x in enumerate(sets)]
    small = getattr(task.module, "make_small_inputs", None)
    if callable(small):
        torch.manual_seed(seed)
        inputs = as_tuple(small(device))
        return [(f"make_small_inputs {describe_inputs(inputs)}", inputs)]
    return []


def describe_inputs(inputs):
    """The shapes of an input tuple: "(37x300 float16, 300 float32, 1e-05)"."""
    parts = []
    for x in inputs:
        if torch.is_tensor(x):
            shape = "x".join(str(d) for d in x.shape) or "scalar"
            layout = "" if x.is_contiguous() else " strided"
            parts.append(f"{shape} {str(x.dtype).replace('torch.', '')}{layout}")
        elif isinstance(x, (int, float, bool)):
            parts.append(repr(x))
        else:
            parts.append(type(x).__name__)
    return "(" + ", ".join(parts) + ")"


def tolerance_for(task, dtype):
    override = getattr(task.module, "TOLERANCE", None)
    rtol, atol = DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))
    if override:
        rtol = override.get("rtol", rtol)
        atol = override.get("atol", atol)
    return rtol, atol


def compare(task, out, ref, index):
    """One output against its reference: None if it passes, else a dict describing the failure."""
    if not torch.is_tensor(out):
        if out == ref:
            return None
        return {"output": index, "message": f"output {index} is {out!r}, expected {ref!r}"}
    if tuple(out.shape) != tuple(ref.shape):
        return {"output": index, "message": f"output {index} has shape {tuple(out.shape)}, expected {tuple(ref.shape)}"}
    exact = not out.is_floating_point()
    rtol, atol = (0.0, 0.0) if exact else tolerance_for(task, out.dtype)
    o = out.detach().to(torch.float64)
    r = ref.detach().to(torch.float64).to(o.device)
    both_nan = torch.isnan(o) & torch.isnan(r)
    same_inf = torch.isinf(o) & torch.isinf(r) & (torch.sign(o) == torch.sign(r))
    err = (o - r).abs()
    bad = ~(err <= atol + rtol * r.abs())  # NaN compares false, so NaN/Inf errors are bad
    bad &= ~(both_nan | same_inf)
    count = int(bad.sum())
    if count == 0:
        return None
    err = torch.where(bad, torch.nan_to_num(err, nan=math.inf), torch.zeros_like(err))
    flat = int(torch.argmax(err.reshape(-1)))
    where = list(torch.unravel_index(torch.tensor(flat), o.shape)) if o.dim() else []
    where = [int(w) for w in where]
    nonfinite = int((~torch.isfinite(o) & torch.isfinite(r)).sum())
    return {"output": index, "bad_elements": count, "total_elements": int(o.numel()),
            "worst_abs_error": float(err.reshape(-1)[flat]), "worst_index": where,
            "value": float(o.reshape(-1)[flat]), "expected": float(r.reshape(-1)[flat]),
            "nonfinite": nonfinite, "rtol": rtol, "atol": atol,
            "message": f"output {index}: {count} of {o.numel()} elements out of tolerance (rtol {rtol}, atol {atol}); "
                       f"worst |error| {float(err.reshape(-1)[flat]):.3g} at {where}: got {float(o.reshape(-1)[flat])!r}, "
                       f"expected {float(r.reshape(-1)[flat])!r}" + (f"; {nonfinite} NaN/Inf where the reference is finite"
                                                                       if nonfinite else "")}


def same_values(a, b):
    """Whether two outputs of one launch hold the same values, NaN matching NaN. fp8 tensors are
    decoded to fp32 first: torch implements neither nan_to_num nor equal for them."""
    if a.is_floating_point() and a.element_size() == 1:
        a, b = a.float(), b.float()
    return torch.equal(torch.nan_to_num(a), torch.nan_to_num(b))


def _compare_all(task, outs, refs, against, what="output"):
    if len(outs) != len(refs):
        return [{"output": -1, "against": against,
                 "message": f"against {against}: launch() returned {len(outs)} outputs, {against} {len(refs)}"}]
    failures = []
    for i, (o, r) in enumerate(zip(outs, refs)):
        if what != "output" and not torch.is_tensor(r):
            continue
        f = compare(task, o, r, i)
        if f:
            f["against"] = against
            text = f["message"] if what == "output" else \
                f"input {i} as launch() left it (updated in place)" + f["message"][len(f"output {i}"):]
            f["message"] = f"against {against}: {text}"
            failures.append(f)
    return failures


def _repeat_failures(task, out_a, out_b, at_tolerance):
    failures = []
    for i, (a, b) in enumerate(zip(out_a, out_b)):
        if not torch.is_tensor(a):
            continue
        same = compare(task, b, a, i) is None if at_tolerance and a.is_floating_point() else same_values(a, b)
        if not same:
            failures.append({"output": i, "message": f"output {i} differs between two runs on the same inputs "
                             "with different garbage in fresh memory" + (" (beyond the tolerance)" if at_tolerance else "")
                             + ": the kernel reads memory it did not write, or is nondeterministic"})
    return failures


def check_correctness(task, draws=3, seed=1234, initial=None, device="cuda", test_inputs=True):
    """`initial`: the initial kernel's task (a frozen copy of the file, loaded), or None.

    With a PyTorch `reference`, launch() must leave its inputs as they were. Without one, the
    kernel is its own specification: in-place updates of the inputs are part of its result and
    are compared with the initial kernel's. With neither a reference nor an initial kernel only
    the repeat check can run, and the reply says so. `test_inputs`: also check the task's test
    input tuples (test_input_sets) once make_inputs' draws pass."""
    launch = task.function("launch")
    use_reference = has_reference(task)
    references = (["the reference"] if use_reference else []) + (["the initial kernel"] if initial else [])
    cases = [(None, f"make_inputs draw {draw}", None) for draw in range(draws)]
    extra = test_input_sets(task, seed + draws, device) if test_inputs else []
    cases += [(k, label, inputs) for k, (label, inputs) in enumerate(extra)]
    results = []
    for draw, (test_input, label, inputs) in enumerate(cases):
        if inputs is None:
            inputs = make_inputs(task, seed + draw, device)
        expected = []  # (against, outputs, inputs as launch() left them or None)
        ref_precision = None
        try:
            if use_reference:
                ref, ref_precision = reference_outputs(task, [x.clone() if torch.is_tensor(x) else x for x in inputs])
                expected.append(("the reference", ref, None))
            if initial is not None:
                expected.append(("the initial kernel", *run_on_copies(initial.function("launch"), inputs, device)))
        except Exception as e:  # noqa: BLE001 - a test shape the task's own code rejects is the task's problem
            if test_input is None:
                raise
            raise BridgeError("bad-inputs", f"{references[-1] if expected else references[0]} fails at {label}: "
                              f"{type(e).__name__}: {e}; remove that shape from make_test_inputs or fix it",
                              file=task.path) from e
        poison = max(tensor_bytes(inputs), 1 << 20)
        if device == "cuda":
            poison_allocator(poison, float("nan"))
        out_a, after_a = run_on_copies(launch, inputs, device)
        failures = []
        if use_reference:
            for i, (x, before) in enumerate(zip(after_a, inputs)):
                if torch.is_tensor(x) and not torch.equal(x, before):
                    failures.append({"output": -1, "message": f"launch() modified input {i}"})
        for against, ref_out, ref_after in expected:
            failures += _compare_all(task, out_a, ref_out, against)
            if ref_after is not None:
                failures += _compare_all(task, after_a, ref_after, against, what="input")
        if not failures:
            if device == "cuda":
                poison_allocator(poison, 1e30)
            out_b, after_b = run_on_copies(launch, inputs, device)
            failures += _repeat_failures(task, out_a, out_b, at_tolerance=not use_reference)
            if not use_reference:
                failures += _repeat_failures(task, after_a, after_b, at_tolerance=True)
        if test_input is not None:
            for f in failures:
                f["test_input"] = test_input
                f["message"] = f"at {label}: {f['message']}"
        results.append({"draw": draw, "seed": seed + draw, "inputs": label, "test_input": test_input,
                        "reference_precision": ref_precision, "references": references, "passed": not failures,
                        "failures": failures})
        if failures:
            break
    reply = {"passed": all(r["passed"] for r in results), "draws": results, "references": references,
             "test_inputs": len(extra), "test_inputs_checked": sum(1 for r in results if r["test_input"] is not None)}
    if test_inputs and not extra:
        reply["shapes_note"] = ("checked at make_inputs' shapes only: the task defines neither make_test_inputs "
                                "nor make_small_inputs")
    if not references:
        reply["note"] = ("the task has no reference and no initial kernel was given: only that launch() runs and "
                         "repeats its results was checked")
    return reply
