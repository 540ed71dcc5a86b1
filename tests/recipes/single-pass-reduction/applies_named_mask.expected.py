"""single-pass-reduction applies: a three-pass row softmax whose last pass names its mask
(`mask = cols < n_cols`) where the first two write it inline; the named mask is the same
expression of the shared index, so the passes still fuse (and the name is kept for the store)."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_3pass_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride

    # pass 1: row max
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_row + cols, mask=cols < n_cols, other=-float("inf"))
    row_max = tl.max(x, axis=0)

    # pass 2: sum of exponentials
    denom = tl.sum(tl.exp(x - row_max), axis=0)

    # pass 3: normalize and store
    mask = cols < n_cols
    tl.store(out_row + cols, tl.exp(x - row_max) / denom, mask=mask)


def launch(x):
    assert x.dim() == 2 and x.stride(1) == 1
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    softmax_3pass_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    x = torch.randn(64, 2048, device=device, dtype=torch.float32)
    return (x,)


def make_small_inputs(device):
    x = torch.randn(3, 1500, device=device, dtype=torch.float32)  # a full chunk then a partial one
    return (x,)


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
