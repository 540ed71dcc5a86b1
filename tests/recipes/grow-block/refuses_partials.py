"""grow-block refuses: a two-stage sum whose launch sizes its buffer of partial sums with the
same literal 64 as the block (triton.cdiv(n, 64) partials); that literal is tied to BLOCK in a
way the recipe cannot see through, so it declines rather than leave the buffer inconsistent."""
# DECLINES: it may depend on BLOCK; not retuned
import torch
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


def launch(x):
    n = x.numel()
    partials = torch.empty(triton.cdiv(n, 64), device=x.device, dtype=torch.float32)
    partial_sum_kernel[(triton.cdiv(n, 64),)](x, partials, n, BLOCK=64)
    return partials.sum().reshape(1)


def reference(x):
    return x.sum().reshape(1)


def make_inputs(device):
    return (torch.randn(200_000, device=device),)


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
