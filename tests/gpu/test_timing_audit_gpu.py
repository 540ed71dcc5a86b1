"""On a GPU: the `run` verb's random-point audit (timing_audit.py) catches kernels that pass the
checks before and after timing but cheat inside the timing loop, and passes an honest one.
Skips cleanly where no CUDA device is present."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TASK = '''
import torch, triton, triton.language as tl

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

def _scale(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out

{launch}

def reference(x):
    return 2 * x

def make_inputs(device):
    return (torch.randn(1 << 20, device=device),)
'''

LAUNCHES = {
    "honest": '''
def launch(x):
    return _scale(x)
''',
    # Keyed by the input tensor itself (the same live object): verification's draws are new
    # tensors and never hit; the timing loop passes the same input sets again and again and hits
    # from the second round on. (Keyed by data_ptr() alone, the cheat fails verification on a GPU:
    # the caching allocator hands the next draw the freed draw's address.)
    "caches_by_tensor": '''
import weakref
_CACHE = {}

def launch(x):
    held = _CACHE.get(id(x))
    if held is not None and held[0]() is x:
        return held[1]
    out = _scale(x)
    _CACHE[id(x)] = (weakref.ref(x), out)
    return out
''',
    # Honest until it has been called 16 times in a row less than a millisecond apart, which
    # verification (a few draws) never does and the warm-up and the timing loop always do; from
    # then on it returns the last output of that shape.
    "skips_when_called_back_to_back": '''
import time
_LAST = {}
_STATE = {"previous": 0.0, "streak": 0}

def launch(x):
    now = time.perf_counter()
    _STATE["streak"] = _STATE["streak"] + 1 if now - _STATE["previous"] < 0.001 else 0
    _STATE["previous"] = now
    if _STATE["streak"] >= 16 and x.shape in _LAST:
        return _LAST[x.shape]
    _LAST[x.shape] = _scale(x)
    return _LAST[x.shape]
''',
}


def run_verb(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(TASK.replace("{launch}", LAUNCHES[name]))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    done = subprocess.run([sys.executable, "-m", "tritondx_bridge", "run"],
                          input=json.dumps({"task": str(path), "min_reps": 100, "min_ms": 1}), capture_output=True,
                          text=True, env=env, timeout=600)
    reply = json.loads(done.stdout)
    assert reply["ok"], reply
    return reply


def test_an_honest_kernel_passes_the_audit(tmp_path):
    reply = run_verb(tmp_path, "honest")
    assert reply["correctness"]["passed"] and reply["recheck"]["passed"]
    assert reply["audit"]["passed"], reply["audit"]


@pytest.mark.parametrize("name", ["caches_by_tensor", "skips_when_called_back_to_back"])
def test_a_kernel_that_cheats_inside_the_timing_loop_is_caught(tmp_path, name):
    reply = run_verb(tmp_path, name)
    assert reply["correctness"]["passed"], "the cheat passes the verification before timing"
    assert not reply["audit"]["passed"], reply["audit"]
    assert reply["audit"]["failures"][0]["message"].startswith("the call audited at iteration")
