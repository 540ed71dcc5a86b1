"""reuse-loaded-value refuses: the launch passes the same tensor as input and first output (an
in-place update), so the store between the loads really may change the data."""
# DECLINES: the store may write the loaded tensor
import torch
import triton
import triton.language as tl


@triton.jit
def update_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * 2.0, mask=mask)
    b = tl.load(x_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, b + 1.0, mask=mask)


def launch(x):
    x = x.clone()
    z = torch.empty_like(x)
    update_kernel[(triton.cdiv(x.numel(), 1024),)](x, x, z, x.numel(), BLOCK=1024)
    return x, z


def reference(x):
    return x * 2.0, x * 2.0 + 1.0


def make_inputs(device):
    return (torch.randn(100_003, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
