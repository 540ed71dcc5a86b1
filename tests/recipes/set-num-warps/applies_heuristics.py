"""set-num-warps applies to a kernel whose num_warps a @triton.heuristics computes from the shape
(FlagGems' way): the same 256-column softmax. An innermost heuristic scales what the shape's
heuristic chose by the proposed factor, so the captured launch gets the proposed num_warps and
the other shapes keep their relation to it; the launch call and the shape heuristic are untouched."""
import torch
import triton
import triton.language as tl


@triton.heuristics({"num_warps": lambda args: 4 if args["n_cols"] <= 1024 else 8})
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
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(512, 256, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
