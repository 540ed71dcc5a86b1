# ORIGINAL: examples/vector_add.py
"""Honest: a launcher class of classmethods and staticmethods (class constants for the
configuration), called on an instance: AddLauncher().add(x, y).
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


class AddLauncher:
    BLOCK_SIZE = 2048
    NUM_WARPS = 8

    @classmethod
    def grid(cls, n):
        return (triton.cdiv(n, cls.BLOCK_SIZE),)

    @staticmethod
    def run(x, y, out, n, grid, block_size, num_warps):
        add_kernel[grid](x, y, out, n, BLOCK_SIZE=block_size, num_warps=num_warps)

    @classmethod
    def add(cls, x, y):
        out = torch.empty_like(x)
        n = x.numel()
        cls.run(x, y, out, n, cls.grid(n), cls.BLOCK_SIZE, cls.NUM_WARPS)
        return out


def launch(x, y):
    return AddLauncher().add(x, y)


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
