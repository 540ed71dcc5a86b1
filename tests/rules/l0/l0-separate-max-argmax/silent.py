"""l0-separate-max-argmax stays silent: one fused reduction, different axes, and a tensor changed in between."""
import torch
import triton
import triton.language as tl


@triton.jit
def reductions_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows[:, None] * BLOCK + cols[None, :])
    m, i = tl.max(x, axis=1, return_indices=True)
    tl.store(out_ptr + rows, m + i.to(tl.float32))
    col_max = tl.max(x, axis=0)
    row_arg = tl.argmax(x, axis=1)
    tl.store(out_ptr + BLOCK + rows, col_max + row_arg.to(tl.float32))
    y = x * 2.0
    y_max = tl.max(y, axis=1)
    y = y - 1.0
    y_arg = tl.argmax(y, axis=1)
    tl.store(out_ptr + 2 * BLOCK + rows, y_max + y_arg.to(tl.float32))


def launch(x):
    n = x.shape[0]
    out = torch.empty(3 * n, device=x.device, dtype=x.dtype)
    reductions_kernel[(1,)](x, out, BLOCK=n)
    return out


def reference(x):
    a = x.max(dim=1).values + x.argmax(dim=1).to(x.dtype)
    b = x.max(dim=0).values + x.argmax(dim=1).to(x.dtype)
    y = x * 2.0
    c = y.max(dim=1).values + (y - 1.0).argmax(dim=1).to(x.dtype)
    return torch.cat([a, b, c])


def make_inputs(device):
    return (torch.randn(64, 64, device=device),)
