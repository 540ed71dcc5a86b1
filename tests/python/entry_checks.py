"""The checks a benchmark entry (bench/suite, bench/corpus) gets, as scripts run in a fresh interpreter:
importing an entry into the pytest process would import Triton without TRITON_INTERPRET, which
breaks the interpreter-based tests that run later in the same process."""

# Runs in a fresh interpreter: TRITON_INTERPRET must be set before triton is imported. Real
# libraries' code asks for CUDA (a driver query at import, `torch.cuda.device(x.device)` in the
# wrapper): the entry runs under the bridge's CUDA emulation, its kernels under the interpreter, and
# an autotuned kernel with its first config (install_interpreter_shim), as tritondx runs it on a CPU.
# Every small input tuple is checked: make_small_inputs, then each of make_test_inputs (the shapes
# every candidate is verified at). argv: ENTRY.py PYTHON_DIR
CHECK = r"""
import importlib.util, json, sys, torch
sys.path.insert(0, sys.argv[2])
from tritondx_bridge.interpreter_shim import install_interpreter_shim
from tritondx_bridge.cuda_emulation import emulated_cuda
from tritondx_bridge import in_place
install_interpreter_shim()
results = []
with emulated_cuda(interpreted=True):
    spec = importlib.util.spec_from_file_location("entry", sys.argv[1])
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    in_place.install(m)  # a kernel that updates inputs named in MUTATES runs on copies of them, as tritondx runs it
    torch.manual_seed(0)
    cases = [("make_small_inputs", m.make_small_inputs("cpu"))]
    if callable(getattr(m, "make_test_inputs", None)):
        cases += [(f"make_test_inputs[{k}]", x) for k, x in enumerate(m.make_test_inputs("cpu"))]
    for name, inputs in cases:
        if not isinstance(inputs, (tuple, list)): inputs = (inputs,)
        pristine = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        out = m.launch(*inputs)
        ref = m.reference(*pristine)
        shapes = [tuple(x.shape) for x in pristine if isinstance(x, torch.Tensor)]
        results.append((name, shapes, out, ref))
tol = getattr(m, "TOLERANCE", {"rtol": 1e-4, "atol": 1e-4})
worst = []
for name, shapes, out, ref in results:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    for i, (o, r) in enumerate(zip(outs, refs)):
        o, r = o.float(), r.float()
        if o.shape != r.shape:
            worst.append(f"{name} {shapes}: output {i}: shape {tuple(o.shape)} != {tuple(r.shape)}"); continue
        bad = ~torch.isclose(o, r, rtol=tol["rtol"], atol=tol["atol"]) | ~torch.isfinite(o)
        if bad.any():
            worst.append(f"{name} {shapes}: output {i}: {int(bad.sum())} of {o.numel()} elements off, "
                         f"max abs err {float((o - r).abs().nan_to_num(1e30).max()):.3g}")
print(json.dumps({"cases": [r[0] for r in results], "outputs": len(outs), "problems": worst}))
"""


# What the note and size checks need from every entry, gathered in one fresh interpreter: importing
# the entries here would import Triton into the pytest process without TRITON_INTERPRET, which
# breaks the interpreter-based tests that run later in the same process. argv: PYTHON_DIR ENTRY.py...
DESCRIBE = r"""
import importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
from tritondx_bridge.cuda_emulation import emulated_cuda
out = {}
for path in sys.argv[2:]:
    with emulated_cuda():  # a tutorial queries the driver when it is imported
        spec = importlib.util.spec_from_file_location("entry", path)
        m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    inputs = m.make_inputs("meta")
    inputs = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    flops = getattr(m, "flops", None)
    out[path] = {
        "doc": m.__doc__ or "",
        "functions": [n for n in ("launch", "reference", "make_inputs", "make_small_inputs", "bytes_moved")
                      if callable(getattr(m, n, None))],
        "tolerance_is_dict": isinstance(getattr(m, "TOLERANCE", None), dict),
        "bytes_moved": int(m.bytes_moved(*inputs)) if callable(getattr(m, "bytes_moved", None)) else 0,
        "flops": int(flops(*inputs)) if callable(flops) else 0,
        "interpreter_xfail": getattr(m, "INTERPRETER_XFAIL", None),
    }
print(json.dumps(out))
"""
