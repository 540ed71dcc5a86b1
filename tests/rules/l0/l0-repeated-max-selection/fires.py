"""l0-repeated-max-selection fires: top-8 values of each row by eight rounds of (max with its index,
store, mask the position with -inf), each round a full reduction that waits for the previous one."""
import torch
import triton
import triton.language as tl


@triton.jit
def topk_rows_kernel(x_ptr, out_ptr, n_cols, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    for k in range(K):  # CHECK: l0-repeated-max-selection
        m, i = tl.max(x, axis=0, return_indices=True)
        tl.store(out_ptr + row * K + k, m)
        x = tl.where(cols == i, -float("inf"), x)


def launch(x):
    out = torch.empty((x.shape[0], 8), device=x.device, dtype=x.dtype)
    topk_rows_kernel[(x.shape[0],)](x, out, x.shape[1], K=8, BLOCK=triton.next_power_of_2(x.shape[1]))
    return out


def reference(x):
    return torch.topk(x, 8, dim=1).values


def make_inputs(device):
    return (torch.randn(4096, 1024, device=device),)
