"""single-pass-reduction refuses: the first pass already stores (a running max written out per
chunk), so fusing would move that store before the later passes' reads of the row."""
# DECLINES: stores before a later pass reads the row
import torch
import triton
import triton.language as tl


@triton.jit
def scaled_kernel(out_ptr, max_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_max = -float("inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=0))
        tl.store(max_ptr + row * stride + cols, tl.maximum(x, row_max), mask=cols < n_cols)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols)
        tl.store(out_ptr + row * stride + cols, x / row_max, mask=cols < n_cols)


def launch(x):
    out = torch.empty_like(x)
    running = torch.empty_like(x)
    scaled_kernel[(x.shape[0],)](out, running, x, x.stride(0), x.shape[1], BLOCK=256)
    return out


def reference(x):
    return x / x.amax(dim=-1, keepdim=True)


def make_inputs(device):
    return (torch.rand(64, 1000, device=device) + 0.5,)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
