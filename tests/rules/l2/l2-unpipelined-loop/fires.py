"""Row softmax over long rows in chunks: three streaming loops without a dot. Triton pipelines
loops without a dot only when written tl.range(..., num_stages=N), so every chunk is loaded
with a synchronous ld.global."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * row_stride
    out_row = out_ptr + row * row_stride
    row_max = -float("inf")
    for start in range(0, n_cols, BLOCK):  # CHECK: l2-unpipelined-loop
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=0))
    denom = 0.0
    for start in range(0, n_cols, BLOCK):  # CHECK: l2-unpipelined-loop
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        denom += tl.sum(tl.exp(x - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):  # CHECK: l2-unpipelined-loop
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols)
        tl.store(out_row + cols, tl.exp(x - row_max) / denom, mask=cols < n_cols)


def launch(x):
    out = torch.empty_like(x)
    softmax_kernel[(x.shape[0],)](out, x, x.stride(0), x.shape[1], BLOCK=1024)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(64, 8192, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
