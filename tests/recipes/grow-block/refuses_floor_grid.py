"""grow-block refuses: an unmasked add whose grid is n // 64 (64,000 elements, exactly 1000
blocks); 1000 blocks of 64 are not a whole number of 1024-element blocks and the kernel has no
mask, so a larger block would either drop the tail (n // 1024) or read past the data."""
# DECLINES: are not a whole number of blocks of
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))


def launch(x, y):
    out = torch.empty_like(x)
    add_kernel[(x.numel() // 64,)](x, y, out, BLOCK=64)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 64_000
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
