"""loop-num-stages refuses: the row loop is a tl.static_range over a constexpr number of blocks;
it is unrolled at compile time, so there is no loop to give stages to (no finding proposes the
recipe, and the recipe would decline a static_range loop)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(out_ptr, in_ptr, row_stride, n_cols, BLOCK: tl.constexpr, N_BLOCKS: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * row_stride
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(N_BLOCKS):
        cols = i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(in_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(rows,)](out, x, x.stride(0), cols, BLOCK=256, N_BLOCKS=triton.cdiv(cols, 256))
    return out


def reference(x):
    return x.sum(dim=-1)


def make_inputs(device):
    return (torch.randn(64, 1000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
