"""grow-block refuses: a blocked scan whose third kernel adds each block's offset over the
same 64-element blocks: its grid (n_blocks,) and its BLOCK=64 tile the data exactly as the
first kernel's do, so the first kernel's block cannot change alone."""
# DECLINES: it may depend on BLOCK; not retuned
import torch
import triton
import triton.language as tl


@triton.jit
def block_scan_kernel(x_ptr, out_ptr, sums_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)
    tl.store(sums_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def add_back_kernel(out_ptr, offsets_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    y = tl.load(out_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, y + tl.load(offsets_ptr + pid), mask=offs < n)


def launch(x):
    n = x.numel()
    n_blocks = triton.cdiv(n, 64)
    out = torch.empty_like(x)
    sums = torch.empty(n_blocks, device=x.device, dtype=torch.float32)
    block_scan_kernel[(n_blocks,)](x, out, sums, n, BLOCK=64)
    offsets = (torch.cumsum(sums, 0) - sums).contiguous()
    add_back_kernel[(n_blocks,)](out, offsets, n, BLOCK=64)
    return out


def reference(x):
    return torch.cumsum(x, 0)


def make_inputs(device):
    return (torch.randn(100_000, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
