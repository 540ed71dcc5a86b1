"""int32-index-math applies: the first row of a row range is widened to int64 inside a larger
expression, `(row_start + row).to(tl.int64) * stride`, in a 512 x 1024 matrix; the cast goes, the
parentheses the sum needs stay."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, row_start, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    base = (row_start + row).to(tl.int64) * stride + cols
    mask = cols < n_cols
    x = tl.load(x_ptr + base, mask=mask)
    tl.store(out_ptr + base, x * 0.5, mask=mask)


def launch(x):
    out = x.clone()
    row_start = 16
    rows = x.shape[0] - row_start
    row_scale_kernel[(rows,)](x, out, row_start, x.stride(0), x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out


def reference(x):
    out = x.clone()
    out[16:] *= 0.5
    return out


def make_inputs(device):
    return (torch.randn(512, 1000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
