"""What tma-persistent's rewrite gains on the bench's matmuls: for each entry, the optimized kernel
tritondx kept in the bench (bench/results/entries/matmul__<name>/optimize/<name>.optimized.py) and
the same file after tma-persistent (tools/experiments/tma_recipe_outputs/<name>.tma.py, written by
`tritondx optimize <optimized.py> --gpu off --no-tune`), checked against the task's reference and
timed side by side in one process (triton.testing.do_bench, median, L2 flushed). Run on the GPU:
    python3 tools/experiments/tma_recipe_timing.py"""
import importlib.util
import pathlib

import torch
import triton

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENTRIES = ["matmul_fp16_square", "matmul_bf16_square", "matmul_bias_gelu"]
# Each file as kept, and with BLOCK_K 64 at 3 stages (what a launch tune after the rewrite could pick;
# 4 stages of a 128x256x64 tile do not fit the shared memory with TMA).
VARIANTS = [("as kept", {}), ("BLOCK_K 64, 3 stages", {"BLOCK_K=32": "BLOCK_K=64", "num_stages=4": "num_stages=3"})]


def load(path, changes=None):
    if changes:
        text = path.read_text()
        for old, new in changes.items():
            text = text.replace(old, new)
        path = pathlib.Path("/tmp") / f"variant_{len(changes)}_{path.name}"
        path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem.replace(".", "_"), path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    rows = []
    for name in ENTRIES:
        before_path = ROOT / f"bench/results/entries/matmul__{name}/optimize/{name}.optimized.py"
        after_path = ROOT / f"tools/experiments/tma_recipe_outputs/{name}.tma.py"
        if not after_path.exists():
            continue
        base = load(before_path)
        torch.manual_seed(0)
        inputs = base.make_inputs("cuda")
        ref = base.reference(*inputs)
        tol = getattr(base, "TOLERANCE", {"rtol": 1e-2, "atol": 1e-2})
        for variant, changes in VARIANTS:
            times = {}
            for label, path in (("before", before_path), ("after", after_path)):
                try:
                    m = load(path, changes)
                    out = m.launch(*inputs)
                    ok = torch.allclose(out.float(), ref.float(), **tol)
                    times[label] = triton.testing.do_bench(lambda: m.launch(*inputs), warmup=100, rep=500,
                                                           return_mode="median") if ok else float("nan")
                    print(f"{name} {variant} {label}: correct={ok}", flush=True)
                except Exception as e:  # a variant that does not fit the card is reported, not fatal
                    times[label] = float("nan")
                    print(f"{name} {variant} {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            rows.append((name, variant, times["before"], times["after"]))
    print(f"card: {torch.cuda.get_device_name()}  triton {triton.__version__}  torch {torch.__version__}")
    print(f"{'entry':22} {'launch':22} {'before ms':>10} {'tma ms':>10} {'speedup':>8}")
    for name, variant, b, a in rows:
        print(f"{name:22} {variant:22} {b:10.4f} {a:10.4f} {b / a:8.3f}")


if __name__ == "__main__":
    main()
