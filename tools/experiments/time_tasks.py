"""Times task files side by side on one suite entry's inputs, with the bench's timing
(python/tritondx_bridge/timing.py: CUDA events per call, L2 flushed before each call, median),
after checking each against the entry's reference with its tolerances. Run on a GPU:
    python3 tools/experiments/time_tasks.py bench/suite/elementwise/leaky_relu_scale.py \
        bench/results/entries/elementwise__leaky_relu_scale/optimize/leaky_relu_scale.optimized.py \
        tools/experiments/leaky_relu_flat/best_flattened.py
The first file is the entry (its reference, inputs and tolerances); every file's launch() is timed.
A file given as PATH@num_warps=4 (keywords separated by commas) is timed with those launch
keywords set. Outputs may be a tensor or a tuple of tensors (each is compared).

tools/experiments/narrow_pipe/ and divisibility/ hold the variants for this session's recipes:
    python3 tools/experiments/time_tasks.py bench/suite/quant/quantize_int8_rowwise.py \
        tools/experiments/narrow_pipe/quantize_*.py
    python3 tools/experiments/time_tasks.py bench/suite/select/topk_rows_k8.py \
        tools/experiments/narrow_pipe/topk_bitonic.py@num_warps={1,2,4,8} \
        tools/experiments/narrow_pipe/topk_rounds.py@num_warps={1,2,4,8}
    python3 tools/experiments/time_tasks.py bench/suite/softmax/log_softmax_rows.py \
        bench/results/entries/softmax__log_softmax_rows/optimize/log_softmax_rows.optimized.py \
        tools/experiments/divisibility/log_softmax_rows_by_construction.py"""
import pathlib
import sys

import torch

from experiment_util import load, timing, with_launch_keywords


def agrees(got, want, tol):
    """Every output (a tensor, or each tensor of a tuple) matches the reference's."""
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(want) and all(
            agrees(g, w, tol) for g, w in zip(got, want))
    return got.shape == want.shape and torch.allclose(got.float(), want.float(), **tol)


def main():
    entry = load(sys.argv[1], "entry")
    torch.manual_seed(0)
    inputs = entry.make_inputs("cuda")
    want = entry.reference(*inputs)
    tol = getattr(entry, "TOLERANCE", {"rtol": 1e-4, "atol": 1e-4})
    print(f"{pathlib.Path(sys.argv[1]).name} on {torch.cuda.get_device_name()}")
    for i, path in enumerate(sys.argv[1:]):
        task = load(with_launch_keywords(path), f"task{i}")
        ok = agrees(task.launch(*inputs), want, tol)
        ms = timing.time_launch(task.launch, [inputs])["median_ms"]
        print(f"{ms:9.4f} ms  {'ok       ' if ok else 'DISAGREES'}  {path}")


if __name__ == "__main__":
    main()
