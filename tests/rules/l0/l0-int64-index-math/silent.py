"""l0-int64-index-math stays silent: int32 index math; the int64 cast only touches a loaded value."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    i = tl.load(idx_ptr + offs, mask=mask).to(tl.int64)
    tl.store(out_ptr + offs, x * 2.0 + i.to(tl.float32), mask=mask)


def launch(x, idx):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, idx, out, x.numel(), BLOCK=1024)
    return out


def reference(x, idx):
    return x * 2.0 + idx.to(torch.float32)


def make_inputs(device):
    n = 1_000_003
    return (torch.randn(n, device=device), torch.randint(0, 100, (n,), device=device, dtype=torch.int32))
