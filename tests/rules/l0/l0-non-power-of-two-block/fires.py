"""l0-non-power-of-two-block fires: one 4096-lane block per 3000-column row (27% of the lanes masked)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)  # CHECK: l0-non-power-of-two-block
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride + cols, x / tl.sum(x, axis=0), mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_scale_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols), num_warps=16)
    return out


def reference(x):
    return x / x.sum(dim=1, keepdim=True)


def make_inputs(device):
    return (torch.rand(256, 3000, device=device) + 0.5,)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}
