"""split-interleaved-pairs refuses: a real vector widened to interleaved complex numbers, the
imaginary parts stored as the constant 0.0; a scalar is no row for tl.join."""
# DECLINES: the stored value is not a row of the pair's BLOCK elements
import torch
import triton
import triton.language as tl


@triton.jit
def to_complex_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n - pid * BLOCK
    x = tl.load(x_ptr + pid * BLOCK + offs, mask=mask)
    row = out_ptr + pid * 2 * BLOCK
    tl.store(row + 2 * offs, x, mask=mask)
    tl.store(row + 2 * offs + 1, 0.0, mask=mask)


def launch(x):
    out = torch.empty(2 * x.numel(), device=x.device, dtype=x.dtype)
    BLOCK = 1024
    to_complex_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=BLOCK)
    return out


def reference(x):
    return torch.view_as_real(x.to(torch.complex64)).flatten()


def make_inputs(device):
    return (torch.randn(1 << 20, device=device),)
