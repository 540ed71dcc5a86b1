"""set-num-warps refuses: the 256-column softmax under @triton.autotune whose configs already try
every num_warps from 1 to 8 with the same other values; adding the proposed one would repeat a
config, so the recipe declines and says the autotuner already tries it."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in [4, 1, 2, 8]], key=["n_cols"])
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
