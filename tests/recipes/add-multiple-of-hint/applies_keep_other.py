"""add-multiple-of-hint applies: two arguments are excluded from specialization; only the stride
(2048, a multiple of 16) is reported and dropped from do_not_specialize, the row count stays."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n_rows", "stride"])
def row_copy_kernel(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = (cols < n_cols) & (row < n_rows)
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, x, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_copy_kernel[(rows,)](x, out, rows, cols, x.stride(0), BLOCK=2048)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(100, 2048, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
