"""The same row scaling with 16 warps for the 16384-element row: 32 elements per thread, few
registers, occupancy limited by nothing below 50%."""
import torch
import triton
import triton.language as tl


@triton.jit
def normalize_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    total = tl.sum(x * x, axis=0)
    tl.store(out_ptr + offs, x / tl.sqrt(total))


def launch(x):
    out = torch.empty_like(x)
    normalize_kernel[(x.shape[0],)](x, out, BLOCK=x.shape[1], num_warps=16)
    return out


def reference(x):
    return x / torch.sqrt((x * x).sum(dim=1, keepdim=True))


def make_inputs(device):
    return (torch.randn(64, 16384, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
