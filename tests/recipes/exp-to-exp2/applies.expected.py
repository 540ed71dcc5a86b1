"""exp-to-exp2 applies: the numerator of a one-block row softmax, tl.exp(x - row_max), folds
log2(e) into the subtraction."""
import torch
import triton
import triton.language as tl
LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    row_max = tl.max(x, axis=0)
    num = tl.exp2(x * LOG2E - row_max * LOG2E)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(1024, 1024, device=device),)
