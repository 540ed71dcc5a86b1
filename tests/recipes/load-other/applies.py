"""load-other applies: the masked lanes of a row whose values are all negative would make tl.max
return 0; other=-inf keeps them out of the reduction."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)
    tl.store(out_ptr + row, tl.max(x, axis=0))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_max_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return x.max(dim=1).values


def make_inputs(device):
    return (torch.randn(512, 1000, device=device) - 10.0,)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
