"""l0-unneeded-mask is silent on a branch the launch's constexprs make dead: the kernel already
has an EVEN_N path, and with EVEN_N=True Triton folds `if EVEN_N:` so the masked accesses of the
else branch are never compiled (the ladder drops findings on constexpr-dead lines,
pyast/constexpr_branches.h). Without the flag the same masked accesses fire (fires.py)."""
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
        y = tl.load(y_ptr + offs, mask=mask, other=0.0)
        tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, EVEN_N=n % 1024 == 0)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1 << 20
    return (torch.randn(n, device=device), torch.randn(n, device=device))
