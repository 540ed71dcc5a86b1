"""reduce-after-loop refuses: each row's running total is stored after every 256-column chunk
(a chunked prefix sum), so the accumulator's value is needed inside the loop at every
iteration and the reduction cannot wait until after it (l0-reduction-in-loop stays silent, and
the recipe declines such an update when l1-hot-line-stall proposes it)."""
import torch
import triton
import triton.language as tl


@triton.jit
def chunk_prefix_kernel(x_ptr, out_ptr, n_cols, n_chunks, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    total = 0.0
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0)
        total += tl.sum(x, axis=0)
        tl.store(out_ptr + row * n_chunks + off // BLOCK, total)


def launch(x):
    rows, cols = x.shape
    n_chunks = triton.cdiv(cols, 256)
    out = torch.empty(rows, n_chunks, device=x.device, dtype=torch.float32)
    chunk_prefix_kernel[(rows,)](x, out, cols, n_chunks, x.stride(0), BLOCK=256)
    return out


def reference(x):
    rows, cols = x.shape
    sums = torch.stack([x[:, k:k + 256].sum(dim=1) for k in range(0, cols, 256)], dim=1)
    return sums.cumsum(dim=1)


def make_inputs(device):
    return (torch.randn(4096, 3000, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
