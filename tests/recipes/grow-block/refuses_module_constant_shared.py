"""grow-block refuses: the module-level block constant is also read by another function (the
partial-sum count of the reference), so changing it would change more than the launch."""
# DECLINES: is a module constant that functions other than the launch read too
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0, mask=mask)


BLOCK = 64


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x):
    assert x.numel() > BLOCK
    return x * 2.0


def make_inputs(device):
    return (torch.randn(500_000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
