"""On a GPU: the runtime integrity checks, including the profiler ones (every GPU kernel is a
Triton kernel of the module, a memset/memcpy or a fill/copy; all on the caller's stream).

Every cheat of tests/integrity/cheats with `# REJECT-RUNTIME:` headers is rejected for each
of them (integrity-side-stream included); honest candidates and the examples pass; the `run`
verb carries the report. Skips cleanly where no CUDA device is present.
"""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from test_integrity_runtime import CHEATS, HONEST, ROOT, headers  # noqa: E402

from tritondx_bridge import integrity_runtime  # noqa: E402


def gpu_inputs(original, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    name = os.path.basename(original)
    if name == "vector_add.py":
        return (torch.randn(300_000, device="cuda", generator=g), torch.randn(300_000, device="cuda", generator=g))
    if name == "softmax.py":
        return (torch.randn(64, 3000, device="cuda", generator=g), )
    if name == "matmul.py":
        return (torch.randn(512, 384, device="cuda", generator=g).half(),
                torch.randn(384, 640, device="cuda", generator=g).half())
    if name == "layer_norm.py":  # tests/integrity/originals/layer_norm.py
        return (torch.randn(64, 3000, device="cuda", generator=g), torch.rand(3000, device="cuda", generator=g) + 0.5,
                torch.randn(3000, device="cuda", generator=g))
    raise AssertionError(name)


def check(path):
    h = headers(path)
    original = os.path.join(ROOT, h["ORIGINAL"][0]) if h["ORIGINAL"] else path
    cand = integrity_runtime.load_module(path)
    orig = integrity_runtime.load_module(original)
    return h, integrity_runtime.check_candidate(cand, orig, [gpu_inputs(original, 1), gpu_inputs(original, 2)],
                                                device="cuda")


@pytest.mark.parametrize("path", [p for p in CHEATS if headers(p)["REJECT-RUNTIME"]],
                         ids=lambda p: os.path.basename(p)[:-3])
def test_runtime_cheat_is_rejected_on_gpu(path):
    h, report = check(path)
    ids = {v["id"] for v in report["violations"]}
    for want in h["REJECT-RUNTIME"]:
        assert want in ids, f"{os.path.basename(path)}: expected {want}, got {report}"


def test_torch_compute_shows_as_a_foreign_kernel():
    _, report = check(os.path.join(ROOT, "tests", "integrity", "cheats", "operator_compute_add.py"))
    assert "integrity-foreign-kernel" in {v["id"] for v in report["violations"]}, report


@pytest.mark.parametrize("path", HONEST + [os.path.join(ROOT, "examples", n) for n in
                                           ("vector_add.py", "softmax.py", "matmul.py")],
                         ids=lambda p: os.path.basename(p)[:-3])
def test_honest_candidates_pass_on_gpu(path):
    _, report = check(path)
    assert report["violations"] == [], report
    assert report["gpu_kernels"], "the profiler saw no kernel"


def call_bridge(verb, request):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", verb], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=600)
    return json.loads(proc.stdout)


def test_run_verb_reports_integrity():
    cheat = os.path.join(ROOT, "tests", "integrity", "cheats", "torch_compute_softmax.py")
    reply = call_bridge("run", {"task": cheat, "timing": False, "draws": 1,
                                "integrity": {"original": os.path.join(ROOT, "examples", "softmax.py")}})
    assert reply["ok"], reply
    ids = {v["id"] for v in reply["integrity"]["violations"]}
    assert "integrity-torch-compute" in ids and "integrity-foreign-kernel" in ids, reply["integrity"]
    honest = call_bridge("run", {"task": os.path.join(ROOT, "examples", "vector_add.py"), "timing": False,
                                 "draws": 1, "integrity": {}})
    assert honest["ok"] and honest["integrity"]["passed"], honest.get("integrity")
