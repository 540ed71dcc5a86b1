"""int32-index-math applies: tl.cast(..., tl.int64) of a row index inside the address of a
256 x 4096 matrix, an argument of a call; the cast goes and no parentheses are needed."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    row_ptr = x_ptr + tl.multiple_of(row * stride, 16)
    x = tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def launch(x):
    out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
    row_sum_kernel[(x.shape[0],)](x, out, x.stride(0), x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out


def reference(x):
    return x.sum(dim=1)


def make_inputs(device):
    return (torch.randn(256, 4096, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
