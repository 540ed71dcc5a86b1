"""grow-block applies: the block size is a module-level constant that only the launch reads (two
kernels share it, as a multi-kernel scan does); its assignment changes (64 -> 1024), and every
launch and the grid follow it."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0, mask=mask)


@triton.jit
def shift_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(out_ptr + offsets, mask=mask) + 1.0, mask=mask)


BLOCK = 64


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    n_blocks = triton.cdiv(n, BLOCK)
    scale_kernel[(n_blocks,)](x, out, n, BLOCK=BLOCK)
    shift_kernel[(n_blocks,)](out, n, BLOCK=BLOCK)
    return out


def reference(x):
    return x * 2.0 + 1.0


def make_small_inputs(device):
    return (torch.randn(5000, device=device),)


def make_inputs(device):
    return (torch.randn(500_000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
