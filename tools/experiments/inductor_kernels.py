"""What torch.compile runs for suite entries where it beats tritondx: for each entry named (default:
those where the bench's torch.compile time is below tritondx's), compile the function the bench
compiles (torch_baseline, else reference), run it on the suite's inputs, and print the Triton
kernels inductor generated with the launch config its autotuner kept, next to the time of
tritondx's best kernel and of the compiled function (the bench's timing). Run on a GPU:
    python3 tools/experiments/inductor_kernels.py [category/entry ...] > inductor.txt"""
import gc
import json
import sys

import torch
from torch._inductor.utils import run_and_get_code

from experiment_util import ROOT, load, timing


def losing_entries():
    names = []
    for path in sorted((ROOT / "bench/results/entries").glob("*/entry.json")):
        e = json.loads(path.read_text())
        best = (e.get("tritondx") or {}).get("median_ms")
        compiled = ((e.get("torch") or {}).get("compile") or {}).get("median_ms")
        if best and compiled and compiled < best:
            names.append(e["entry"])
    return names


def kept_configs(seen):
    """The autotuners not listed for an earlier entry, with the configs they kept."""
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    found = []
    for obj in gc.get_objects():
        # type(), not isinstance: dead weak proxies raise
        if issubclass(type(obj), CachingAutotuner) and id(obj) not in seen:
            seen.add(id(obj))
            configs = [str(getattr(launcher, "config", "?")) for launcher in getattr(obj, "launchers", [])]
            found.append(f"{obj.fn.__name__}: {' | '.join(configs)}")
    return found


def main():
    names = sys.argv[1:] or losing_entries()
    seen = set()
    for name in names:
        category, stem = name.split("/")
        entry = load(ROOT / "bench/suite" / category / f"{stem}.py", stem)
        best_path = ROOT / "bench/results/entries" / f"{category}__{stem}/optimize/{stem}.optimized.py"
        function = getattr(entry, "torch_baseline", None) or entry.reference
        inputs = entry.make_inputs("cuda")
        torch._dynamo.reset()
        compiled = torch.compile(function)
        _, sources = run_and_get_code(compiled, *inputs)
        compiled_ms = timing.time_launch(compiled, [inputs])["median_ms"]
        best_ms = None
        if best_path.exists():
            best_ms = timing.time_launch(load(best_path, stem + "_best").launch, [inputs])["median_ms"]
        print(f"===== {name}: torch.compile {compiled_ms:.4f} ms, tritondx best "
              f"{'-' if best_ms is None else f'{best_ms:.4f}'} ms")
        for line in kept_configs(seen):
            print("kept config:", line)
        for source in sources:
            kernels = [block for block in source.split("\n\n\n") if "@triton.jit" in block or "def call(" in block]
            print("\n\n".join(kernels))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
