"""l0-num-warps-mismatch stays silent: 1024-element blocks over 4 warps (two 16-byte vectors per thread)."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1_000_003
    return (torch.randn(n, device=device), torch.randn(n, device=device))
