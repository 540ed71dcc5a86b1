# ORIGINAL: examples/vector_add.py
"""Honest: the grid is a lambda of the launch meta-parameters, the launch a module-level
lambda defined after launch(), the block size from a nested def.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def launch(x, y):
    def block_size(n):
        return 4096 if n >= 1 << 20 else 1024

    out = torch.empty_like(x)
    _launch_add(x, y, out, x.numel(), block_size(x.numel()))
    return out


_launch_add = lambda x, y, out, n, block: add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](
    x, y, out, n, BLOCK_SIZE=block, num_warps=8)


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
