"""set-maxnreg applies to an autotuned kernel: the kernel of applies.py, but maxnreg=32 comes from
its @triton.autotune config. l2-register-spills proposes lifting the cap; the recipe adds the same
config without maxnreg (first, so the re-diagnosis compiles it), so the autotuner can pick the one that does not spill."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=2, num_stages=3), triton.Config({}, num_warps=2, maxnreg=32)], key=["n"])
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
    scale_by_sum_kernel[(triton.cdiv(n, 2048),)](x, out, n, BLOCK=2048)
    return out


def reference(x):
    blocks = x.view(-1, 2048)
    return (blocks * (blocks * blocks).sum(dim=1, keepdim=True)).view(-1)


def make_inputs(device):
    return (torch.randn(1 << 20, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
