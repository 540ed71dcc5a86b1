"""set-num-warps applies to an autotuned kernel: the same 256-column softmax, but under
@triton.autotune, whose config (not the launch call) decides num_warps. The recipe adds the
diagnosed config with the proposed num_warps to the configs and keeps the one it had, so the
autotuner picks the faster; the launch call is untouched."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=2, num_stages=3), triton.Config({}, num_warps=4)], key=["n_cols"])
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
