"""l0-non-power-of-two-block fires: tl.arange over 48 lanes, which Triton rejects."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # CHECK: l0-non-power-of-two-block
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 48),)](x, out, x.numel(), BLOCK=48)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(4800, device=device),)
