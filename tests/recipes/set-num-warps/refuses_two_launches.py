"""set-num-warps refuses: the kernel is launched from two call sites (one per half of the rows);
which one the capture diagnosed is unknown, so the recipe declines to edit either."""
# DECLINES: which one the capture used is unknown
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def launch(x):
    rows, cols = x.shape
    half = rows // 2
    out = torch.empty_like(x)
    softmax_kernel[(half,)](out, x, x.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    softmax_kernel[(rows - half,)](out[half:], x[half:], x.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(512, 256, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
