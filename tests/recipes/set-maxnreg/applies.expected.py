"""set-maxnreg applies: a row scaling kernel launched with maxnreg=32 holds 32 fp32 values per thread
across a block reduction (2048 elements over 2 warps), so ptxas spills under the cap and
l2-register-spills proposes lifting it; the recipe removes the keyword."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_by_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x * tl.sum(x * x, axis=0)
    tl.store(out_ptr + offs, y, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    scale_by_sum_kernel[(triton.cdiv(n, 2048),)](x, out, n, BLOCK=2048, num_warps=2)
    return out


def reference(x):
    blocks = x.view(-1, 2048)
    return (blocks * (blocks * blocks).sum(dim=1, keepdim=True)).view(-1)


def make_inputs(device):
    return (torch.randn(1 << 20, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
