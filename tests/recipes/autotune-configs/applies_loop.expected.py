"""autotune-configs applies: a row sum whose rows are streamed in 32-column blocks by a loop;
the grid counts rows, not blocks, so it stays a tuple; BLOCK and the launch's num_warps=2 leave
the call (each config sets its own)."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 1024}, num_warps=8),
        triton.Config({"BLOCK": 512}, num_warps=4),
        triton.Config({"BLOCK": 512}, num_warps=8),
        triton.Config({"BLOCK": 2048}, num_warps=4),
        triton.Config({"BLOCK": 2048}, num_warps=8),
    ],
    key=["n_cols"],
)
@triton.jit
def row_sum_kernel(out_ptr, in_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * row_stride
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(in_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(rows,)](out, x, x.stride(0), cols)
    return out


def reference(x):
    return x.sum(dim=-1)


def make_inputs(device):
    return (torch.randn(64, 4096, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
