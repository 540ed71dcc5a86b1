"""reduce-then-scan refuses: the block totals are not stored by the scan kernel but read back from
the local scans (each block's last element) by the second kernel, so the local scans must stay in
the output until then."""
import torch
import triton
import triton.language as tl


@triton.jit
def block_scan_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=mask)


@triton.jit
def scan_block_sums_kernel(out_ptr, block_sums_ptr, n, n_blocks, BLOCK: tl.constexpr):
    carry = 0.0
    for start in range(0, n_blocks, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_blocks
        last = tl.minimum((offs + 1) * BLOCK, n) - 1
        v = tl.load(out_ptr + last, mask=mask, other=0.0)
        tl.store(block_sums_ptr + offs, tl.cumsum(v, axis=0) + carry, mask=mask)
        carry += tl.sum(v, axis=0)


@triton.jit
def add_back_kernel(out_ptr, scanned_sums_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    prefix = tl.load(scanned_sums_ptr + pid - 1, mask=pid > 0, other=0.0)
    y = tl.load(out_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, y + prefix, mask=mask)


BLOCK = 1024


def launch(x):
    n = x.numel()
    out = torch.empty_like(x)
    n_blocks = triton.cdiv(n, BLOCK)
    block_sums = torch.empty(n_blocks, device=x.device, dtype=torch.float32)
    block_scan_kernel[(n_blocks,)](x, out, n, BLOCK=BLOCK)
    scan_block_sums_kernel[(1,)](out, block_sums, n, n_blocks, BLOCK=BLOCK)
    add_back_kernel[(n_blocks,)](out, block_sums, n, BLOCK=BLOCK)
    return out


def reference(x):
    return torch.cumsum(x, dim=0)


def make_inputs(device):
    return (torch.randn(5000, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
