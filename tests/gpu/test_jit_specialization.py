"""On a GPU: the bridge's CPU-side specialization gives the same TTGIR as Triton's JIT.

Each example task is launched for real through the JIT on the GPU; its compiled TTGIR is
compared with the one the bridge produces from CPU tensors (as it does without a GPU).
Skips cleanly where no CUDA device is present. Writes a summary to $TRITONDX_RESULTS_DIR
(default: results/gpu) when it runs.
"""
import datetime
import glob
import os
import tempfile

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from triton.backends.compiler import GPUTarget  # noqa: E402

from tritondx_bridge.capture import capture_launches  # noqa: E402
from tritondx_bridge.compile import compile_launch  # noqa: E402
from tritondx_bridge.cuda_emulation import emulated_cuda  # noqa: E402
from tritondx_bridge.task import load_task  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")) +
               glob.glob(os.path.join(ROOT, "tests", "fixtures", "tasks", "*.py")))
RESULTS = []


def jit_ttgirs(task):
    inputs = task.function("make_inputs")("cuda")
    task.function("launch")(*inputs)
    torch.cuda.synchronize()
    out = {}
    for name, info in task.kernels.items():
        for cache in info.jit_fn.device_caches.values():
            for compiled in cache[0].values():
                out.setdefault(name, []).append(compiled.asm["ttgir"])
    return out


@pytest.mark.parametrize("path", TASKS, ids=[os.path.basename(t) for t in TASKS])
def test_bridge_ttgir_matches_jit(path):
    task = load_task(path)
    jit = jit_ttgirs(task)
    with emulated_cuda() as emulation:
        launches, _ = capture_launches(task, emulation, GPUTarget("cuda", 90, 32), device="cpu")
    with tempfile.TemporaryDirectory() as tmp:
        for i, launch in enumerate(launches):
            reply = compile_launch(task, launch, GPUTarget("cuda", 90, 32), tmp, False, False, i)
            bridge_ttgir = open(reply["files"]["ttgir"]).read()
            same = bridge_ttgir in jit.get(launch.name, [])
            RESULTS.append((os.path.basename(path), launch.name, same, len(bridge_ttgir)))
            assert same, f"{launch.name}: bridge TTGIR differs from the JIT's"


def teardown_module(module):
    if not RESULTS:
        return
    out_dir = os.environ.get("TRITONDX_RESULTS_DIR", os.path.join(ROOT, "results", "gpu"))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "jit-specialization.md"), "w") as f:
        f.write("# Bridge (CPU inputs) vs Triton JIT (GPU launch): TTGIR identity\n\n")
        f.write(f"- card: {torch.cuda.get_device_name()}\n- date: {datetime.date.today()}\n")
        import triton
        f.write(f"- triton {triton.__version__}, torch {torch.__version__}\n")
        f.write("- command: `python3 -m pytest -q tests/gpu/test_jit_specialization.py`\n\n")
        f.write("| task | kernel | TTGIR identical | TTGIR bytes |\n|---|---|---|---|\n")
        for task, kernel, same, size in RESULTS:
            f.write(f"| {task} | {kernel} | {'yes' if same else 'NO'} | {size} |\n")
