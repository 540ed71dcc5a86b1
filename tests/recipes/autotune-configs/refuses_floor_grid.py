"""autotune-configs refuses: an unmasked add (grid n // 64): configs with other block sizes would
read past the data for shapes they do not divide, and the grid is not the triton.cdiv form
the recipe rewrites into a lambda over meta["BLOCK"], so it declines."""
# DECLINES: is indexed by BLOCK without a mask: other block sizes would read past
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))


def launch(x, y):
    out = torch.empty_like(x)
    add_kernel[(x.numel() // 64,)](x, y, out, BLOCK=64)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 64_000
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
