"""On a GPU: tma-persistent's outputs run their descriptor path on real TMA hardware (the CPU tests
run it under the interpreter, which emulates descriptors) and match their references, through the
bridge's `run` verb: the recipe's fixture, and its outputs for the bench's three matmuls
(tools/experiments/tma_recipe_outputs/, at 4096 and 8192 squares). Skips cleanly without a CUDA
device; on a GPU older than Hopper the launch takes the pointer path."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = ["tests/recipes/tma-persistent/applies.expected.py",
         "tools/experiments/tma_recipe_outputs/matmul_fp16_square.tma.py",
         "tools/experiments/tma_recipe_outputs/matmul_bf16_square.tma.py",
         "tools/experiments/tma_recipe_outputs/matmul_bias_gelu.tma.py"]


@pytest.mark.parametrize("task", TASKS)
def test_tma_output_matches_its_reference_on_the_gpu(task):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "run"],
                          input=json.dumps({"task": os.path.join(ROOT, task), "timing": False}),
                          capture_output=True, text=True, env=env, timeout=600)
    reply = json.loads(proc.stdout)
    assert reply["ok"], reply
    assert reply["correctness"]["passed"], reply["correctness"]
