"""l0-mask-blocks-vectorization stays silent: the masked accesses of n = 100,003 are the tail
branch of a full-block guard (unmasked-full-blocks' output), which only the last block runs."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if pid * BLOCK_SIZE + BLOCK_SIZE <= n_elements:
        x = tl.load(x_ptr + offsets)
        y = tl.load(y_ptr + offsets)
        tl.store(out_ptr + offsets, x + y)
    else:
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    return (torch.randn(100_003, device=device), torch.randn(100_003, device=device))


def make_small_inputs(device):
    return (torch.randn(5003, device=device), torch.randn(5003, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
