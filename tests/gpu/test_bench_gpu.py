"""On a GPU: the benchmark's bridge verbs (`sweep` for the autotune-only grid, `baselines` for
torch eager and torch.compile, `compare` for the interleaved rounds, `device`) measure real runs.
Skips cleanly without a CUDA device."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def call(verb, request):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", verb], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=600)
    return json.loads(proc.stdout)


def test_sweep_times_every_variant_in_one_process():
    tasks = [os.path.join(ROOT, "examples", t) for t in ("vector_add.py", "softmax.py")]
    reply = call("sweep", {"tasks": tasks, "min_ms": 20})
    assert reply["ok"], reply
    for r in reply["results"]:
        assert r["ok"], r
        assert r["reply"]["correctness"]["passed"]
        assert r["reply"]["timing"]["median_ms"] > 0


def test_baselines_times_eager_and_compiled_reference():
    reply = call("baselines", {"task": os.path.join(ROOT, "examples", "softmax.py"), "min_ms": 20})
    assert reply["ok"], reply
    assert reply["eager"]["median_ms"] > 0
    assert reply["compile_error"] is None, reply["compile_error"]
    assert reply["compile_correct"] is True
    assert reply["compile"]["median_ms"] > 0


def test_compare_times_versions_in_rounds_and_a_kernel_ties_with_itself():
    path = os.path.join(ROOT, "examples", "vector_add.py")
    reply = call("compare", {"tasks": [path, path], "rounds": 5, "min_ms": 20})
    assert reply["ok"], reply
    assert reply["device"] == torch.cuda.get_device_name()
    a, b = (t["round_ms"] for t in reply["tasks"])
    assert len(a) == len(b) == 5 and min(a + b) > 0
    ratios = sorted(x / y for x, y in zip(a, b))
    assert 0.9 < ratios[2] < 1.1, ratios  # the same kernel: a median ratio near 1


def test_device_names_the_card():
    reply = call("device", {})
    assert reply["ok"] and reply["device"] == torch.cuda.get_device_name(), reply


AUTOTUNED_TASK = '''
import torch, triton, triton.language as tl

# The first config is slow on purpose (32-element blocks, one warp): the autotuner picks another.
@triton.autotune(configs=[triton.Config({"BLOCK": 32}, num_warps=1), triton.Config({"BLOCK": 1024}, num_warps=4)],
                 key=["n"])
@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

def launch(x):
    out = torch.empty_like(x)
    k[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel())
    return out

def reference(x):
    return 2 * x

def make_inputs(device):
    return (torch.randn(1 << 24, device=device),)
'''


def test_run_reports_the_config_the_autotuner_chose(tmp_path):
    task = tmp_path / "autotuned.py"
    task.write_text(AUTOTUNED_TASK)
    reply = call("run", {"task": str(task), "min_ms": 20})
    assert reply["ok"], reply
    choice = reply["autotune"]["k"]
    assert choice["configs"] == 2
    assert choice["index"] == 1, choice  # 32-element blocks on one warp are never the fastest
    assert choice["config"]["kwargs"] == {"BLOCK": 1024}
