"""On a GPU: the benchmark's bridge verbs (`sweep` for the autotune-only grid, `baselines` for
torch eager and torch.compile) measure real runs. Skips cleanly without a CUDA device."""
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
