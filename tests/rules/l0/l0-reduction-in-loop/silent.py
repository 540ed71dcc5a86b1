"""l0-reduction-in-loop stays silent: Triton's layer-norm tutorial statistics, accumulated
elementwise in the loop (`_mean += a`) and reduced once after it."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, mean_ptr, rstd_ptr, N, stride, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X = x_ptr + row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, 1 / tl.sqrt(var + eps))


def launch(x):
    rows, cols = x.shape
    mean = torch.empty(rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_stats_kernel[(rows,)](x, mean, rstd, cols, x.stride(0), 1e-5, BLOCK_SIZE=1024)
    return mean, rstd


def reference(x):
    var, mean = torch.var_mean(x.float(), dim=1, unbiased=False)
    return mean, torch.rsqrt(var + 1e-5)


def make_inputs(device):
    return (torch.randn(4096, 3000, device=device, dtype=torch.float16),)


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
