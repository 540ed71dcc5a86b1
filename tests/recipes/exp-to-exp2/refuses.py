"""exp-to-exp2 refuses: tl.exp(x) of a plain value compiles to the same code as
tl.exp2(x * LOG2E), so there is nothing to fold and no finding proposes the recipe."""
import torch
import triton
import triton.language as tl


@triton.jit
def exp_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.exp(x), mask=offs < n)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    exp_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def reference(x):
    return torch.exp(x)


def make_inputs(device):
    return (torch.randn(1 << 20, device=device),)
