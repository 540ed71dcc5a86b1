"""unmasked-full-blocks refuses: n = 1000 elements in one block of 1024, so no block is full and an
unmasked copy would never run (the accesses are still scalar: l3-vectorization-lost)."""
# DECLINES: covers a single block: no block is full
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * 2.0, mask=offs < n)


def launch(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(1000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
