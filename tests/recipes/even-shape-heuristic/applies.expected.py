"""even-shape-heuristic applies: a streaming add over 262,144 elements in blocks of 1024; every
mask is always true for this launch (l0-unneeded-mask). The recipe adds an EVEN_N constexpr,
computed in the launch as n % 1024 == 0, and loads x without the mask when it holds; other
shapes keep the masked load."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if EVEN_N:
        x = tl.load(x_ptr + offs)
        y = tl.load(y_ptr + offs)
        tl.store(out_ptr + offs, x + y)
    else:
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, EVEN_N=n % 1024 == 0)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 262_144
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
