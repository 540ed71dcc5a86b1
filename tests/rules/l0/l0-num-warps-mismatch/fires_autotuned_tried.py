"""l0-num-warps-mismatch fires on the config the capture compiled (num_warps=4 over 256-column
rows), but the autotuner already tries num_warps=2 with the same block: the finding says so and
proposes no set-num-warps (test_finding_details.cpp checks the proposal is gone)."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=4), triton.Config({}, num_warps=2)], key=["n_cols"])
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
    softmax_kernel[(rows,)](out, x, x.stride(0), cols, BLOCK=triton.next_power_of_2(cols))  # CHECK: l0-num-warps-mismatch
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(4096, 256, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
