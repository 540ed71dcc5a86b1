"""load-other refuses: a masked load without other= feeding tl.sum(tl.exp(...)) has no `other`
that is an identity for max/min; the finding proposes mask-before-reduction instead."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_lse_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)
    tl.store(out_ptr + row, tl.log(tl.sum(tl.exp(x), axis=0)))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_lse_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return torch.logsumexp(x, dim=1)


def make_inputs(device):
    return (torch.randn(512, 1000, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
