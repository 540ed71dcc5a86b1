"""unmasked-full-blocks applies inside a loop: one program sums a vector of 10,003 elements in
blocks of 512; every iteration but the last reads a full block, and the guard is evaluated per
iteration."""
import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        if start + BLOCK <= n:
            v = tl.load(x_ptr + offs)
        else:
            v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        acc += v
    tl.store(out_ptr, tl.sum(acc, axis=0))


def launch(x):
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    sum_kernel[(1,)](x, out, x.numel(), BLOCK=512)
    return out


def reference(x):
    return x.sum().reshape(1)


def make_inputs(device):
    return (torch.randn(10_003, device=device),)


def make_small_inputs(device):
    return (torch.randn(1500, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
