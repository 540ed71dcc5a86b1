"""l0-one-program-per-element fires: one program per element of a 100k vector."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr):
    i = tl.program_id(0)  # CHECK: l0-one-program-per-element
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, x * 2.0)


def launch(x):
    out = torch.empty_like(x)
    scale_kernel[(x.numel(),)](x, out)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(100_000, device=device),)
