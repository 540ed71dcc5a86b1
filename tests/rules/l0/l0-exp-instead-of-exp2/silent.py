"""l0-exp-instead-of-exp2 stays silent: softmax written with exp2 and log2(e) folded in."""
import torch
import triton
import triton.language as tl

LOG2E: tl.constexpr = 1.4426950408889634


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp2(x * LOG2E - tl.max(x, axis=0) * LOG2E)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), cols, BLOCK=triton.next_power_of_2(cols), num_warps=8)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(256, 2048, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
