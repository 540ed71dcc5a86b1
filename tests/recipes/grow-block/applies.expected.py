"""grow-block applies: a 1-D streaming add in 64-element blocks over a million elements
(l0-tiny-block); the recipe raises BLOCK to 1024 at the launch call and the grid's
triton.cdiv(n, 64) follows to triton.cdiv(n, 1024)."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1_000_003
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
