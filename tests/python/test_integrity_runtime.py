"""Runtime integrity checks on CPU (Triton interpreter, tiny inputs): every cheat of
tests/integrity/cheats with a `# REJECT-RUNTIME: <id>` header is rejected for that reason,
except the GPU-only ids (tests/gpu/test_integrity_gpu.py); the honest candidates and the
examples pass."""
import glob
import json
import os
import subprocess
import sys

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHEATS = sorted(glob.glob(os.path.join(ROOT, "tests", "integrity", "cheats", "*.py")))
HONEST = sorted(glob.glob(os.path.join(ROOT, "tests", "integrity", "honest", "*.py")))
GPU_ONLY = {"integrity-side-stream", "integrity-foreign-kernel"}


def headers(path):
    out = {"ORIGINAL": [], "REJECT": [], "REJECT-RUNTIME": []}
    with open(path) as f:
        for line in f:
            if not line.startswith("# "):
                break
            key, _, value = line[2:].strip().partition(": ")
            if key in out:
                out[key].append(value)
    return out


def tiny_inputs(original, seed):
    g = torch.Generator().manual_seed(seed)
    name = os.path.basename(original)
    if name == "vector_add.py":
        return (torch.randn(3000, generator=g), torch.randn(3000, generator=g))
    if name == "softmax.py":
        return (torch.randn(6, 300, generator=g), )
    if name == "matmul.py":
        return (torch.randn(64, 48, generator=g).half(), torch.randn(48, 80, generator=g).half())
    if name == "layer_norm.py":  # tests/integrity/originals/layer_norm.py
        return (torch.randn(6, 300, generator=g), torch.rand(300, generator=g) + 0.5, torch.randn(300, generator=g))
    raise AssertionError(f"no tiny inputs for {name}")


@pytest.fixture()
def interpret(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    from tritondx_bridge import integrity_runtime
    from tritondx_bridge.interpreter_shim import install_interpreter_shim
    undo = install_interpreter_shim()  # examples/softmax.py's range(0, n_cols, BLOCK)
    yield integrity_runtime
    undo()


def check(integrity_runtime, path):
    h = headers(path)
    original = os.path.join(ROOT, h["ORIGINAL"][0]) if h["ORIGINAL"] else path
    cand = integrity_runtime.load_module(path)
    orig = integrity_runtime.load_module(original)
    sets = [tiny_inputs(original, 1), tiny_inputs(original, 2)]
    return h, integrity_runtime.check_candidate(cand, orig, sets, device="cpu")


RUNTIME_CHEATS = [p for p in CHEATS if set(headers(p)["REJECT-RUNTIME"]) - GPU_ONLY]


@pytest.mark.parametrize("path", RUNTIME_CHEATS, ids=lambda p: os.path.basename(p)[:-3])
def test_runtime_cheat_is_rejected_for_its_reason(interpret, path):
    h, report = check(interpret, path)
    ids = {v["id"] for v in report["violations"]}
    for want in set(h["REJECT-RUNTIME"]) - GPU_ONLY:
        assert want in ids, f"{os.path.basename(path)}: expected {want}, got {report['violations']}"
    assert not report["passed"]


@pytest.mark.parametrize("path", HONEST + [os.path.join(ROOT, "examples", n) for n in ("vector_add.py", "softmax.py")]
                         + [os.path.join(ROOT, "tests", "integrity", "originals", "layer_norm.py")],
                         ids=lambda p: os.path.basename(p)[:-3])
def test_honest_candidates_pass(interpret, path):
    if "@triton.autotune" in open(path).read():
        pytest.skip("autotuning needs a GPU driver (tests/gpu/test_integrity_gpu.py runs it)")
    _, report = check(interpret, path)
    assert report["violations"] == [], report
    assert report["launches"] >= 1
    assert report["passed"]


def test_every_runtime_id_is_covered_by_a_cheat():
    ids = set()
    for p in CHEATS:
        ids |= set(headers(p)["REJECT-RUNTIME"])
    assert ids >= {"integrity-torch-compute", "integrity-kernel-not-launched", "integrity-reads-reference",
                   "integrity-input-modified", "integrity-output-alias", "integrity-uninitialized-read",
                   "integrity-output-cache", "integrity-precision-downgrade", "integrity-side-stream"}


def test_static_only_cheats_still_run_cleanly_or_are_caught(interpret):
    """A static-only cheat must at least run under the checks (no crash in the harness)."""
    path = os.path.join(ROOT, "tests", "integrity", "cheats", "fallback_softmax.py")
    _, report = check(interpret, path)
    assert "violations" in report


def write_tiny_task(folder, name, launch_body):
    path = folder / name
    path.write_text(f'''
import torch, triton, triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

def launch(x):
{launch_body}

def reference(x):
    return x * 2

def make_inputs(device):
    return (torch.randn(500, device=device),)
''')
    return str(path)


def call_bridge(verb, request):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", verb], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=300)
    return json.loads(proc.stdout)


def test_run_verb_integrity_on_cpu(tmp_path):
    honest = write_tiny_task(tmp_path, "honest.py", "    out = torch.empty_like(x)\n"
                             "    k[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)\n    return out")
    cheat = write_tiny_task(tmp_path, "cheat.py", "    out = torch.empty_like(x)\n"
                            "    k[(1,)](x, out, x.numel(), BLOCK=128)\n    return x * 2")
    ok = call_bridge("run", {"task": honest, "integrity": {"device": "cpu"}})
    assert ok["ok"], ok
    assert ok["device"] == "cpu" and ok["integrity"]["passed"], ok["integrity"]
    bad = call_bridge("run", {"task": cheat, "integrity": {"device": "cpu", "original": honest}})
    assert bad["ok"], bad
    ids = {v["id"] for v in bad["integrity"]["violations"]}
    assert "integrity-torch-compute" in ids, bad["integrity"]


def test_run_verb_without_integrity_keeps_needing_a_gpu(tmp_path):
    honest = write_tiny_task(tmp_path, "honest.py", "    out = torch.empty_like(x)\n"
                             "    k[(4,)](x, out, x.numel(), BLOCK=128)\n    return out")
    reply = call_bridge("run", {"task": honest})
    assert not reply["ok"] and reply["error"]["kind"] == "no-gpu"


def test_gpu_trace_analysis_without_a_gpu(interpret, monkeypatch):
    """The profiler half on canned traces: a marker on the caller's stream first, then the call's
    kernels; a foreign kernel and a kernel on another stream are reported, the module's own
    kernels, memsets and the original's kernels are not."""
    from tritondx_bridge import integrity_gpu
    module = interpret.load_module(os.path.join(ROOT, "examples", "vector_add.py"))
    marker = {"name": "vectorized_elementwise_kernel<4, FillFunctor<float>>", "cat": "kernel", "stream": 7}
    traces = {
        "original": [marker, {"name": "add_kernel", "cat": "kernel", "stream": 7},
                     {"name": "ampere_sgemm", "cat": "kernel", "stream": 7}],
        "candidate": [marker, {"name": "add_kernel", "cat": "kernel", "stream": 13},
                      {"name": "Memset (Device)", "cat": "gpu_memset", "stream": 7},
                      {"name": "ampere_sgemm", "cat": "kernel", "stream": 7},
                      {"name": "cutlass_80_tensorop_gemm", "cat": "kernel", "stream": 7}],
    }
    calls = iter(["original", "candidate"])
    monkeypatch.setattr(integrity_gpu, "profile_kernels", lambda mod, inputs: traces[next(calls)])
    rep = interpret.Report()
    kernels = integrity_gpu.gpu_checks(module, module, (), rep)
    assert len(kernels) == 4
    by_id = {}
    for v in rep.violations:
        by_id.setdefault(v["id"], []).append(v["message"])
    assert set(by_id) == {"integrity-foreign-kernel", "integrity-side-stream"}, rep.violations
    assert len(by_id["integrity-foreign-kernel"]) == 1 and "cutlass" in by_id["integrity-foreign-kernel"][0]
    assert len(by_id["integrity-side-stream"]) == 1 and "add_kernel" in by_id["integrity-side-stream"][0]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float8_e4m3fn])
def test_poison_fits_every_float_dtype(dtype):
    # CUDA refuses fill_(1e30) on a half tensor ("cannot be converted ... without overflow"), so the
    # poison must be clamped to what the dtype holds; a finite poison still marks unwritten outputs.
    from tritondx_bridge import integrity_runtime
    from tritondx_bridge.integrity_watch import fill_poison
    t = torch.zeros(8, dtype=dtype)
    fill_poison(t, integrity_runtime.POISONS[1])
    expected = min(1e30, torch.finfo(dtype).max)
    assert torch.isfinite(t.float()).all() and t.float()[0].item() == pytest.approx(expected, rel=1e-2)
    fill_poison(t, integrity_runtime.POISONS[0])
    if dtype != torch.float8_e4m3fn:  # e4m3fn has a NaN, but fill_ keeps the bit pattern; checked above
        assert torch.isnan(t.float()).all()


def test_interpreter_shim_fma_rounds_once(interpret, tmp_path):
    # a*b + c with c = -RN(a*b): an FMA returns the product's rounding error, a multiply then an
    # add returns 0. The shim's tl.fma must give the former, as the GPU's FFMA does.
    kernel = tmp_path / "fma_kernel.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def fma_kernel(a_ptr, b_ptr, c_ptr, out_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(out_ptr + offs, tl.fma(tl.load(a_ptr + offs), tl.load(b_ptr + offs), tl.load(c_ptr + offs)))\n")
    module = interpret.load_module(str(kernel))
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(64, generator=g), torch.randn(64, generator=g)
    c = -(a * b)
    out = torch.empty(64)
    module.fma_kernel[(1,)](a, b, c, out, BLOCK=64)
    exact = (a.double() * b.double() + c.double()).float()  # exact: the error of a float product fits
    assert torch.equal(out, exact)
    assert (out != 0).sum() > 32
