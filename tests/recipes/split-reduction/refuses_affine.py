"""split-reduction refuses: a column mean that adds 1.0 to the result; the constant would be
added once per split, so a sum of partial results differs from the kernel's value."""
# DECLINES: the stored value is not linear in the accumulators (a sum of partial
import torch
import triton
import triton.language as tl


@triton.jit
def column_mean_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        acc += tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=0.0)
    col_sum = tl.sum(acc, axis=0)
    tl.store(out_ptr + cols, col_sum / n_rows + 1.0, mask=col_mask)


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(n_cols, 64),)
    column_mean_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_M=32, BLOCK_N=64)
    return out


def reference(x):
    return x.mean(dim=0) + 1.0


def make_inputs(device):
    return (torch.randn(4096, 512, device=device, dtype=torch.float32),)


def make_small_inputs(device):
    return (torch.randn(301, 150, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}
