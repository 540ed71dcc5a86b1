"""The GPU half of the runtime integrity checks (torch.profiler): integrity-foreign-kernel and
integrity-side-stream. See integrity_runtime.py and docs/integrity.md."""
import json
import os
import tempfile

import torch

from .integrity_watch import Watch, clone_inputs, module_kernels

# GPU kernels PyTorch runs for the allowed ops (fills for zeros/full, copies for clone/copy_).
ALLOWED_TORCH_KERNEL_PATTERNS = ("FillFunctor", "fill_kernel", "copy_kernel", "direct_copy", "CatArrayBatchedCopy")


def profile_kernels(module, inputs):
    """[{"name", "cat", "stream"}] of every GPU kernel/memset/memcpy during one launch() call, by
    start time; a marker fill on the current stream comes first, so its stream is the caller's."""
    from torch.profiler import ProfilerActivity, profile
    marker = torch.empty(1, device="cuda")
    torch.cuda.synchronize()
    with Watch(module), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        marker.fill_(7.0)  # (the watch only restores patched timers and the environment here)
        module.launch(*inputs)
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    events = [e for e in trace.get("traceEvents", []) if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    events.sort(key=lambda e: e.get("ts", 0))
    return [{"name": e.get("name", ""), "cat": e.get("cat"), "stream": (e.get("args") or {}).get("stream")}
            for e in events]


def gpu_checks(candidate, original, inputs, rep):
    """integrity-foreign-kernel and integrity-side-stream from one profiled call each."""
    orig = profile_kernels(original, clone_inputs(inputs))
    cand = profile_kernels(candidate, clone_inputs(inputs))
    if not cand or cand[0]["cat"] != "kernel":
        rep.note("the profiler recorded no marker kernel: GPU checks skipped")
        return cand
    current = cand[0]["stream"]
    own = set(module_kernels(candidate))
    orig_names = {e["name"] for e in orig[1:]}
    for e in cand[1:]:
        if e["cat"] == "kernel":
            name = e["name"]
            ok = name in own or any(name.startswith(k) for k in own) or name in orig_names or \
                any(p in name for p in ALLOWED_TORCH_KERNEL_PATTERNS)
            if not ok:
                rep.violation("integrity-foreign-kernel",
                              f"GPU kernel {name!r} is not a Triton kernel of the module (nor a memset/memcpy)")
        if current is not None and e["stream"] is not None and e["stream"] != current:
            rep.violation("integrity-side-stream",
                          f"{e['cat']} {e['name']!r} ran on stream {e['stream']}, the caller's is {current}")
    return cand[1:]
