"""int32-index-math applies: the program id is widened to int64 although a 1M-element vector
fits int32 offsets."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(1_000_003, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
