"""Column sums of a row-major matrix, one program per column: the tile runs down a column,
so consecutive lanes read elements a whole row (4 KB) apart, one sector each."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, n_rows, stride_row, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_rows, BLOCK):
        rows = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows * stride_row + col, mask=rows < n_rows, other=0.0)  # CHECK: l2-uncoalesced-access
        acc += x
    tl.store(out_ptr + col, tl.sum(acc, axis=0))


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, device=x.device, dtype=x.dtype)
    col_sum_kernel[(n_cols,)](x, out, n_rows, x.stride(0), BLOCK=512)
    return out


def reference(x):
    return x.sum(dim=0)


def make_inputs(device):
    return (torch.randn(2048, 1024, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
