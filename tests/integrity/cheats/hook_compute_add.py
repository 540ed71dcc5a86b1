# ORIGINAL: examples/vector_add.py
# REJECT: integrity-torch-compute
# REJECT-RUNTIME: integrity-torch-compute
"""Cheat: a @triton.heuristics lambda computes the whole answer with torch.add while 'choosing'
BLOCK_SIZE; the kernel then only covers one block. Decorator arguments are host code.
"""
import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK_SIZE": lambda args: torch.add(args["x_ptr"], args["y_ptr"], out=args["out_ptr"]).numel() * 0 + 1024})
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(1,)](x, y, out, n)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 50_000_003  # 200 MB per tensor: several times the 60 MB L2 of an H200
    x = torch.randn(n, device=device, dtype=torch.float32)
    y = torch.randn(n, device=device, dtype=torch.float32)
    return (x, y)


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
