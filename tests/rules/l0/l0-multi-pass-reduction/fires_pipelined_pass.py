"""l0-multi-pass-reduction fires at the first pass: the three-pass row softmax whose first pass is
pipelined (`tl.range(0, n_cols, BLOCK, num_stages=3)`) runs the same iterations as the others'
`range`, so all three are one reduction."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride

    row_max = -float("inf")
    for start in tl.range(0, n_cols, BLOCK, num_stages=3):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))  # CHECK: l0-multi-pass-reduction
        row_max = tl.maximum(row_max, tl.max(x, axis=0))

    denom = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
        denom += tl.sum(tl.exp(x - row_max), axis=0)

    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_row + cols, mask=cols < n_cols)
        tl.store(out_row + cols, tl.exp(x - row_max) / denom, mask=cols < n_cols)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=256)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(256, 3000, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
