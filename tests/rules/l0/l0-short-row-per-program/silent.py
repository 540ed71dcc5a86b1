"""l0-short-row-per-program stays silent: a 1024-element fp32 row per program moves 8 KB."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs)
    tl.store(out_ptr + row * stride + offs, x * 2.0)


def launch(x):
    out = torch.empty_like(x)
    scale_rows_kernel[(x.shape[0],)](x, out, x.stride(0), BLOCK=x.shape[1])
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(8192, 1024, device=device),)
