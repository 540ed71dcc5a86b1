"""On a GPU: `capture --gpu on` runs the program for real, times every Triton launch, keeps the
config the autotuner chose, leaves the autotuner's own benchmarking out, and writes tasks that
verify on the GPU at every captured shape. Skips cleanly where no CUDA device is present."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = os.path.join(ROOT, "tests", "fixtures", "capture", "train_step.py")


def test_a_program_is_captured_on_the_gpu_with_times_and_its_tasks_verify(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    done = subprocess.run([sys.executable, "-m", "tritondx_bridge.program_capture", "--gpu", "on", "--out",
                           str(tmp_path), "--", PROGRAM, "--steps", "4"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.load(open(tmp_path / "capture.json"))
    results = os.environ.get("TRITONDX_RESULTS_DIR")
    if results:
        with open(os.path.join(results, "capture-gpu.json"), "w") as f:
            json.dump(summary, f, indent=1)
    assert summary["gpu"] and summary["error"] is None
    kernels = {k["kernel"]: k for k in summary["kernels"]}
    assert set(kernels) == {"scaled_square_kernel", "row_sum_kernel", "gather_kernel"}, kernels
    # 4 steps: one launch of each kernel per step, and row_sum twice more; none of the autotuner's
    # benchmarking launches counted.
    assert kernels["scaled_square_kernel"]["calls"] == 4
    assert kernels["row_sum_kernel"]["calls"] == 6
    for k in kernels.values():
        assert k["gpu_ms"] > 0, k
    assert abs(sum(k["share"] for k in kernels.values()) - 1) < 1e-6
    # Kernels ran: data an earlier kernel wrote is real, and nothing says it was drawn.
    assert not any(k.get("notes") and any("never computed" in n for n in k["notes"]) for k in kernels.values())
    autotune = kernels["row_sum_kernel"]["autotune"]
    assert len(autotune["configs"]) == 2 and autotune["used"] in (0, 1)
    tasks = [k["task"] for k in kernels.values()]
    verified = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "verify_shapes.py"), "--device", "cuda",
                               "--out", str(tmp_path / "verified.jsonl"), *tasks], capture_output=True, text=True,
                              env=env, timeout=600)
    lines = [json.loads(line) for line in open(tmp_path / "verified.jsonl")]
    assert all(line.get("passed") for line in lines), lines
    assert sum(line["test_inputs_checked"] for line in lines) >= 3, verified.stdout
