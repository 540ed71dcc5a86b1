"""l0-long-row-per-program stays silent: an RMS norm takes one whole 16384-wide row per program too,
but it reduces the row (tl.sum): its elements are tied together, and a column block of the row
could not normalize it alone."""
import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_rows_kernel(x_ptr, y_ptr, stride, n_cols: tl.constexpr, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * stride + cols, (x * rstd).to(tl.float16), mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    rms_norm_rows_kernel[(n_rows,)](x, y, x.stride(0), n_cols=n_cols, eps=1e-6,
                                    BLOCK_SIZE=triton.next_power_of_2(n_cols), num_warps=16)
    return y


def reference(x):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype)


def make_inputs(device):
    return (torch.randn(64, 14336, device=device, dtype=torch.float16),)


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
