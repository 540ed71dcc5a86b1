"""Inclusive prefix sum of a long 1-D fp32 vector of 50,000,003 elements (three-kernel blocked scan).

Provenance: the textbook scan-then-propagate algorithm (Blelloch / GPU Gems 3 ch. 39, "scan of
large arrays") written with `tl.cumsum`: kernel 1 scans each 1024-element block and writes its
total; kernel 2 (one program) scans the block totals in chunks of 1024 with a running carry;
kernel 3 adds each block's exclusive prefix of the totals back onto the block.

Weaknesses: three launches and two passes over the data (the output is written by kernel 1, then
read and rewritten by kernel 3: 4 x 200 MB of traffic where a single-pass decoupled look-back scan
moves 2 x 200 MB); kernel 2 is a single program walking 48,829 totals sequentially while the rest of
the GPU idles; n = 50,000,003 is not a multiple of 16, so Triton cannot prove the bounds mask is uniform over a
vector and every global access in the three kernels is a 4-byte scalar (no even-size fast path); a
fixed BLOCK of 1024 with the default num_warps and no autotuning.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def block_scan_kernel(x_ptr, out_ptr, block_sums_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=mask)
    tl.store(block_sums_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def scan_block_sums_kernel(block_sums_ptr, n_blocks, BLOCK: tl.constexpr):
    # one program: in-place inclusive scan of the block totals
    carry = 0.0
    for start in range(0, n_blocks, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_blocks
        v = tl.load(block_sums_ptr + offs, mask=mask, other=0.0)
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
    block_scan_kernel[(n_blocks,)](x, out, block_sums, n, BLOCK=BLOCK)
    scan_block_sums_kernel[(1,)](block_sums, n_blocks, BLOCK=BLOCK)
    add_back_kernel[(n_blocks,)](out, block_sums, n, BLOCK=BLOCK)
    return out


def reference(x):
    return torch.cumsum(x, dim=0)


def make_inputs(device):
    return (torch.randn(50_000_003, device=device, dtype=torch.float32),)  # 200 MB in, 200 MB out


def make_small_inputs(device):
    return (torch.randn(5000, device=device, dtype=torch.float32),)  # 5 blocks, the last masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime length with a tiny last block, and one element
    return [
        make_small_inputs(device),  # 5000: 5 blocks, the last 904 elements
        (torch.randn(2053, device=device, dtype=torch.float32),),  # prime: 3 blocks, the last only 5 elements (two carries added back)
        (torch.randn(1, device=device, dtype=torch.float32),),  # one element: one block, no carry to add back
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


# The prefix sums reach |4600| (about sqrt(n)); an fp32 emulation of this scan order against an
# fp64 cumsum shows up to 0.018 absolute error at the realistic size, and torch's own fp32 scan on
# the GPU adds its own: an absolute tolerance of 0.1 (2e-5 of the output's scale).
TOLERANCE = {"rtol": 1e-4, "atol": 1e-1}
