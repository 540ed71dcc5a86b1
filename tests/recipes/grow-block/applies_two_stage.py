"""grow-block applies: a two-stage max whose first kernel reads 64-element blocks
(l0-tiny-block). The buffer of partial maxima and the first grid are both sized by
n_partials = triton.cdiv(n, 64), which follows the block; the final kernel's own BLOCK=64
stays, because its grid (1,) does not count blocks of 64: it is that kernel's chunk size."""
import torch
import triton
import triton.language as tl


@triton.jit
def block_max_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    tl.store(partial_ptr + pid, tl.max(x, axis=0))


@triton.jit
def final_max_kernel(partial_ptr, out_ptr, n_partials, BLOCK: tl.constexpr):
    acc = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(partial_ptr + offs, mask=offs < n_partials, other=-float("inf")))
    tl.store(out_ptr, tl.max(acc, axis=0))


def launch(x):
    n = x.numel()
    n_partials = triton.cdiv(n, 64)
    partials = torch.empty(n_partials, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    block_max_kernel[(n_partials,)](x, partials, n, BLOCK=64)
    final_max_kernel[(1,)](partials, out, n_partials, BLOCK=64)
    return out


def reference(x):
    return x.max().reshape(1)


def make_inputs(device):
    return (torch.randn(1_000_000, device=device),)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
