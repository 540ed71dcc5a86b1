"""reuse-loaded-value applies: x is loaded again after a store to another tensor; the compiler
must assume the store may alias x, the launch shows it does not."""
import torch
import triton
import triton.language as tl


@triton.jit
def two_outputs_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * 2.0, mask=mask)
    b = a
    tl.store(z_ptr + offs, b + 1.0, mask=mask)


def launch(x):
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    two_outputs_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, z, x.numel(), BLOCK=1024)
    return y, z


def reference(x):
    return x * 2.0, x + 1.0


def make_inputs(device):
    return (torch.randn(1_000_003, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
