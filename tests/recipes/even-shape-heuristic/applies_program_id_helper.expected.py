"""even-shape-heuristic applies when the program id comes from a helper (FlagGems'
`tle.program_id(axis=0)`, which returns it as int64): the block index `pid * BLOCK + tl.arange`
is still known to cover [0, n) for this launch, so the streaming add's masks are always true and
the recipe guards them with EVEN_N as in applies.py."""
import torch
import triton
import triton.language as tl


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    pid = program_id(axis=0)
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
