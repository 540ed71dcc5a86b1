"""Accumulates x + y over a stack of 64x64 tiles: both loads, the sum and the accumulator share
one coalesced layout, so the loop needs no layout conversion."""
import torch
import triton
import triton.language as tl


@triton.jit
def trans_add_kernel(x_ptr, y_ptr, out_ptr, n_iter, BLOCK: tl.constexpr):
    offs_r = tl.arange(0, BLOCK)
    offs_c = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(n_iter):
        x = tl.load(x_ptr + i * BLOCK * BLOCK + offs_r[:, None] * BLOCK + offs_c[None, :])
        y = tl.load(y_ptr + i * BLOCK * BLOCK + offs_r[:, None] * BLOCK + offs_c[None, :])
        acc += x + y
    tl.store(out_ptr + offs_r[:, None] * BLOCK + offs_c[None, :], acc)


def launch(x, y):
    n_iter = x.shape[0]
    out = torch.empty((64, 64), device=x.device, dtype=torch.float32)
    trans_add_kernel[(1,)](x, y, out, n_iter, BLOCK=64)
    return out


def reference(x, y):
    return (x + y).sum(0)


def make_inputs(device):
    x = torch.randn(8, 64, 64, device=device)
    y = torch.randn(8, 64, 64, device=device)
    return (x, y)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
