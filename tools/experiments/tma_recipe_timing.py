"""What tma-persistent's rewrite gains on the bench's matmuls: for each entry, the optimized kernel
tritondx kept in the bench (bench/results/entries/matmul__<name>/optimize/<name>.optimized.py) and
the same file after tma-persistent (tools/experiments/tma_recipe_outputs/<name>.tma.py, written by
`tritondx optimize <optimized.py> --gpu off --no-tune`), checked against the task's reference and
timed side by side in one process with the bench's own timing (python/tritondx_bridge/timing.py).
Run on the GPU:
    python3 tools/experiments/tma_recipe_timing.py"""

import torch
import triton

from experiment_util import load, timing, variant_path

ENTRIES = ["matmul_fp16_square", "matmul_bf16_square", "matmul_bias_gelu"]
# The rewritten file as the recipe wrote it; with the K block kept as the pointer kernel had it
# (block_k = min(...) keeps it, with the stages that fit it); and at 4 stages.
VARIANTS = [("as rewritten", {}),
            ("BLOCK_K as kept", {"block_k = max(block_k": "block_k = min(block_k"}),
            ("4 stages", {"min(stages, 192512": "min(4, 192512"})]


def main():
    rows = []
    for name in ENTRIES:
        before_path = f"bench/results/entries/matmul__{name}/optimize/{name}.optimized.py"
        after_path = f"tools/experiments/tma_recipe_outputs/{name}.tma.py"
        base = load(before_path, f"{name}_base")
        torch.manual_seed(0)
        inputs = base.make_inputs("cuda")
        ref = base.reference(*inputs)
        tol = getattr(base, "TOLERANCE", {"rtol": 1e-2, "atol": 1e-2})
        for variant, changes in VARIANTS:
            times = {}
            for label, path in (("before", before_path), ("after", variant_path(after_path, changes))):
                try:
                    m = load(path, f"{name}_{label}_{variant.replace(' ', '_')}")
                    ok = torch.allclose(m.launch(*inputs).float(), ref.float(), **tol)
                    times[label] = timing.time_launch(m.launch, [inputs])["median_ms"] if ok else float("nan")
                    print(f"{name} {variant} {label}: correct={ok}", flush=True)
                except Exception as e:  # a variant that does not fit the card is reported, not fatal
                    times[label] = float("nan")
                    print(f"{name} {variant} {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            rows.append((name, variant, times["before"], times["after"]))
    print(f"card: {torch.cuda.get_device_name()}  triton {triton.__version__}  torch {torch.__version__}")
    print(f"{'entry':22} {'variant':22} {'before ms':>10} {'tma ms':>10} {'speedup':>8}")
    for name, variant, b, a in rows:
        print(f"{name:22} {variant:22} {b:10.4f} {a:10.4f} {b / a:8.3f}")


if __name__ == "__main__":
    main()
