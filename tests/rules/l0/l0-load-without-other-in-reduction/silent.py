"""l0-load-without-other-in-reduction stays silent: other= matches each reduction, or tl.where masks it."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, max_ptr, sum_ptr, var_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    tl.store(max_ptr + row, tl.max(x, axis=0))
    y = tl.load(x_ptr + row * stride + cols, mask=mask)
    total = tl.sum(y, axis=0)
    tl.store(sum_ptr + row, total)
    d = tl.where(mask, y - total / n_cols, 0.0)
    tl.store(var_ptr + row, tl.sum(d * d, axis=0) / n_cols)


def launch(x):
    rows, cols = x.shape
    mx = torch.empty(rows, device=x.device, dtype=x.dtype)
    sm = torch.empty(rows, device=x.device, dtype=x.dtype)
    var = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_stats_kernel[(rows,)](x, mx, sm, var, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return mx, sm, var


def reference(x):
    return x.max(dim=1).values, x.sum(dim=1), x.var(dim=1, unbiased=False)


def make_inputs(device):
    return (torch.randn(512, 1000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
