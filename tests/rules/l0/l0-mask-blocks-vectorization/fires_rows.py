"""l0-mask-blocks-vectorization fires: rows of 1000 fp32 (1000 % 16 = 8) walked in 256-column chunks."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)  # CHECK: l0-mask-blocks-vectorization
        tl.store(out_ptr + row * stride + cols, x * 2.0, mask=cols < n_cols)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=256, num_warps=2)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(512, 1000, device=device),)
