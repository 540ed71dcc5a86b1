"""grow-block applies: the block size is a launch-local variable (64 -> 1024). The wrapper also
holds `num_warps = 64`, a local nobody reads any more (what a set-num-warps candidate leaves
when it writes the option's value into the call): a constant that feeds nothing is not a use of
the block's value, so the recipe does not refuse over it."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK_SIZE = 1024
    num_warps = 64
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    scale_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(500_000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
