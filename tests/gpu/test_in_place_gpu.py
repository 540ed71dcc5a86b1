"""On a GPU: a task that names its in-place inputs in MUTATES (in_place.py) is timed on the inputs
themselves, which are put back before every call outside the timed events. The run verb verifies,
audits and re-checks it; the timing loop leaves an input updated once since its last restore, not
once per call; and the same kernel is timed faster than when launch() copies its input first (the
copy is no longer timed). Skips cleanly where no CUDA device is present."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tritondx_bridge import in_place, timing  # noqa: E402
from tritondx_bridge.task import load_task  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "in_place", "scale_in_place.py")

# x *= 2 on 64 Mi floats (256 MiB, so no L2 reuse), in place; LAUNCH is filled in per variant.
LARGE = '''
import torch, triton, triton.language as tl

@triton.jit
def _scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)

def _scale(x):
    _scale_kernel[(triton.cdiv(x.numel(), 1024), )](x, x.numel(), BLOCK=1024)

LAUNCH

def reference(x):
    return x * 2.0

def make_inputs(device):
    return (torch.randn(1 << 26, device=device),)
'''
DECLARED = 'MUTATES = ("x",)\n\ndef launch(x):\n    _scale(x)\n'
CLONING = 'def launch(x):\n    x = x.clone()\n    _scale(x)\n    return x\n'


def bridge(verb, request):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    done = subprocess.run([sys.executable, "-m", "tritondx_bridge", verb], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=600)
    reply = json.loads(done.stdout)
    assert reply["ok"], reply
    return reply


def test_the_run_verb_verifies_audits_and_rechecks_an_in_place_kernel():
    reply = bridge("run", {"task": FIXTURE, "min_reps": 100, "min_ms": 1})
    assert reply["correctness"]["passed"] and reply["recheck"]["passed"], reply
    assert reply["audit"]["passed"], reply["audit"]
    assert "median_ms" in reply["graph"], reply["graph"]
    assert set(reply["phases_s"]) == {"correctness", "timing", "recheck", "graph"}, reply["phases_s"]


def test_the_timing_loop_restores_the_input_before_every_call():
    task = load_task(FIXTURE)
    x = torch.randn(3000, device="cuda")
    pristine = x.clone()
    sets = [(x,)]
    launch, reset = in_place.timed(task.function("launch"), sets)
    result = timing.time_launch(launch, sets, min_reps=50, min_ms=1.0, reset=reset)
    torch.cuda.synchronize()
    assert result["reps"] >= 50
    assert torch.equal(x, pristine * 2), "x was doubled once since its last restore, not once per call"


def test_the_copy_is_not_timed(tmp_path):
    declared, cloning = tmp_path / "declared.py", tmp_path / "cloning.py"
    declared.write_text(LARGE.replace("LAUNCH", DECLARED))
    cloning.write_text(LARGE.replace("LAUNCH", CLONING))
    reply = bridge("compare", {"tasks": [str(declared), str(cloning)], "rounds": 3, "min_reps": 20, "min_ms": 5})
    declared_ms, cloning_ms = (sorted(t["round_ms"])[1] for t in reply["tasks"])
    # The kernel reads and writes 256 MiB; the clone reads and writes 256 MiB more.
    assert declared_ms < 0.75 * cloning_ms, (declared_ms, cloning_ms)
