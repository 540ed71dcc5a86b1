"""Softmax over the rows of an fp32 (32768, 2048) matrix, three passes per row (537 MB moved).

E.g. attention probabilities for 32,768 query rows of 2048 keys (batch x heads x queries).

Provenance: the textbook formula written as three loops over each row in global memory,
one program per row, in chunks of 1024 columns: (1) running max, (2) sum of exp(x - max),
(3) exp(x - max) / sum, stored.

Weaknesses: each row is read three times from global memory (the 8 KB row could stay in
registers: one pass reading, one writing; or an online max/sum merges passes 1 and 2), so
DRAM/L2 traffic is up to 3x the minimum; exp is computed twice per element; a division per
element instead of one reciprocal per row; fixed BLOCK=1024 and default num_warps=4, no
autotuning; the chunk loops have no pipelining hints; every chunk is masked.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_3pass_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride

    # pass 1: row max
    row_max = -float("inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=0))

    # pass 2: sum of exponentials
    denom = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        denom += tl.sum(tl.exp(x - row_max), axis=0)

    # pass 3: normalize and store
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_row + cols, mask=mask, other=-float("inf"))
        tl.store(out_row + cols, tl.exp(x - row_max) / denom, mask=mask)


def launch(x):
    assert x.dim() == 2 and x.stride(1) == 1
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    softmax_3pass_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK=1024)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    x = torch.randn(32768, 2048, device=device, dtype=torch.float32)  # 268 MB in, 268 MB out
    return (x,)


def make_small_inputs(device):
    x = torch.randn(3, 1500, device=device, dtype=torch.float32)  # a full chunk then a partial one
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width with a tiny last chunk, and one element
    return [
        make_small_inputs(device),  # 3 x 1500: a full chunk then a partial one
        (torch.randn(5, 2053, device=device, dtype=torch.float32),),  # prime width: 3 chunks per pass, the last only 5 columns
        (torch.randn(1, 1, device=device, dtype=torch.float32),),  # one row of one element (output 1): one masked chunk per pass
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
