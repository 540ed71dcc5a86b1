"""`tritondx capture --kernelbench problem.py`: a KernelBench problem's PyTorch model, compiled by
torch.compile, whose generated Triton kernels become the initial kernels (tasks).

A KernelBench problem is a Python file defining `class Model(nn.Module)`, `get_inputs()` and
`get_init_inputs()`. As KernelBench's own harness does, the model is built from
`get_init_inputs()` on the GPU and called on `get_inputs()` moved to it; here it is called first
as it is (eager PyTorch: the reference of the whole problem), then compiled with
`torch.compile` (default mode) and called `iterations` times, while capture records the kernels
Inductor launches (inductor_capture.py). On a GPU the compiled output is then compared with the
reference (KernelBench's tolerance, atol = rtol = 1e-2) and the comparison goes into
capture.json; without one, nothing ran and the comparison is not made.
"""
import os
import runpy
import shutil

_REQUIRED = ("Model", "get_inputs", "get_init_inputs")
TOLERANCE = 1e-2  # KernelBench's atol and rtol


class NotAProblem(Exception):
    """The file is not a KernelBench problem; the message says what it lacks."""


def load(path):
    """The problem's namespace, once its three definitions are checked."""
    namespace = runpy.run_path(path, run_name="kernelbench_problem")
    missing = [name for name in _REQUIRED if not callable(namespace.get(name))]
    if missing:
        raise NotAProblem(f"{path} is not a KernelBench problem: it defines no {', '.join(missing)} "
                          "(a problem defines class Model, get_inputs() and get_init_inputs())")
    return namespace


def _to_gpu(value):
    import torch
    return value.cuda() if torch.is_tensor(value) else value


def _outputs(value):
    import torch
    if torch.is_tensor(value):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _outputs(v)]
    return []


def compare(expected, got):
    """The compiled model's outputs against the eager model's, as KernelBench checks them."""
    import torch
    expected, got = _outputs(expected), _outputs(got)
    if len(expected) != len(got):
        return {"matches": False, "why": f"{len(got)} output tensor(s), the model returns {len(expected)}"}
    worst, ok = 0.0, True
    for e, g in zip(expected, got):
        if e.shape != g.shape:
            return {"matches": False, "why": f"output shape {tuple(g.shape)}, the model's is {tuple(e.shape)}"}
        e, g = e.double(), g.double()
        worst = max(worst, float((e - g).abs().max()) if e.numel() else 0.0)
        ok &= bool(torch.allclose(g, e, atol=TOLERANCE, rtol=TOLERANCE))
    return {"matches": ok, "max_abs_error": worst, "tolerance": {"atol": TOLERANCE, "rtol": TOLERANCE}}


def run(path, recorder, out_dir, iterations=3):
    """Captures the problem's compiled kernels into `recorder`; returns the problem's entry for
    capture.json (the problem file is copied into `out_dir`: the reference of the whole problem).
    Raises NotAProblem, or what the problem itself raises."""
    import torch
    os.makedirs(out_dir, exist_ok=True)
    copy = os.path.join(out_dir, "problem.py")
    if os.path.abspath(path) != os.path.abspath(copy):
        shutil.copyfile(path, copy)
    entry = {"file": os.path.abspath(path), "copy": os.path.abspath(copy), "reference": "Model (eager PyTorch)",
             "compiled_with": f"torch.compile (default mode), torch {torch.__version__}", "iterations": iterations}
    with recorder.recording():
        namespace = load(path)
        torch.manual_seed(0)
        model = namespace["Model"](*namespace["get_init_inputs"]())
        if isinstance(model, torch.nn.Module):
            model = model.cuda().eval()
        inputs = [_to_gpu(v) for v in namespace["get_inputs"]()]
        entry["inputs"] = [list(v.shape) if torch.is_tensor(v) else v for v in inputs]
        compiled = torch.compile(model)
        with torch.no_grad():
            expected = model(*inputs)
            for _ in range(iterations):
                got = compiled(*inputs)
        if recorder.gpu:
            torch.cuda.synchronize()
    entry["check"] = compare(expected, got) if recorder.gpu else {
        "matches": None, "why": "not run: without a GPU no kernel ran, so the compiled model computed nothing"}
    return entry
