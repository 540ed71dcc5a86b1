"""Runs a task's launch() twice on the GPU (the first call compiles and warms up), for a
profiler to capture the second: python -m tritondx_bridge.launch_once TASK.py [SEED]
The profiled call holds gpu_lock EXCLUSIVE (the kernel is replayed under Nsight Compute there)."""
import sys

import torch

from . import gpu_lock, verify
from .task import load_task


def main(argv):
    task = load_task(argv[1])
    launch = task.function("launch")
    with gpu_lock.hold(gpu_lock.SHARED):
        inputs = verify.make_inputs(task, int(argv[2]) if len(argv) > 2 else 1234)
        launch(*inputs)
        torch.cuda.synchronize()
    with gpu_lock.hold(gpu_lock.EXCLUSIVE):
        launch(*inputs)
        torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
