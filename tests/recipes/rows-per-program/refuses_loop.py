"""rows-per-program refuses: the same one-row-per-program kernel walks its row in chunks; a second
tile dimension inside a loop is left alone (only straight-line kernels are retiled)."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + pid * stride + offs, mask=mask, other=0.0)
        tl.store(out_ptr + pid * stride + offs, x * 2.0, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    scale_rows_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=32)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(8192, 96, device=device, dtype=torch.float32),)


def make_small_inputs(device):
    return (torch.randn(7, 50, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
