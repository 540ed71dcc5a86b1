"""reduce-after-loop refuses: the row maximum over 256-column chunks reads the tail chunk with a
masked tl.load without other=, so its masked lanes hold 0 (as Triton fills them), not -inf.
l0-reduction-in-loop reports the per-iteration tl.max and proposes the recipe; the recipe
declines rather than carry those lanes into a block accumulator (l0-load-without-other-in-reduction
proposes the fix, other=-float("inf"))."""
# DECLINES: not the identity of tl.max (-inf)
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    m = -float("inf")
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols)
        m = tl.maximum(m, tl.max(x, axis=0))
    tl.store(out_ptr + row, m)


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_max_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=256)
    return out


def reference(x):
    return x.max(dim=1).values


def make_inputs(device):
    return (torch.rand(4096, 3000, device=device, dtype=torch.float32) + 1.0,)


TOLERANCE = {"rtol": 0, "atol": 0}
