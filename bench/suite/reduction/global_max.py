"""Reduction: max of a 100,000,000-element fp32 vector, two-stage (400 MB read).

Stage 1: one program per 1024 elements writes its block max to a partials buffer
(97,657 partials); stage 2: a single program loops over the partials and writes the result.

Provenance: the classic two-pass GPU reduction from CUDA textbooks (per-block partial
results, then a second small kernel over the partials), written with the tutorials'
1-D elementwise indexing.

Weaknesses: fixed BLOCK_SIZE=1024 and default num_warps=4, no autotuning; stage 1 launches
97,657 short programs (one block each, no grid-stride loop), so every program pays its
own launch, reduction tree and a 4-byte store, and the partials buffer is written and
re-read; stage 2 is one program on one SM walking ~98K partials serially, in scalar
32-bit loads (97,657 is not a multiple of 16) with an unpipelined loop; two launches
where one persistent kernel (or atomic_max on a float-ordered integer) would do; the
n = 1e8 mask bound is a multiple of 16, but every block is still masked; NaN is not
propagated (torch.max returns NaN if any element is NaN).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def block_max_kernel(x_ptr, partial_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=-float("inf"))
    tl.store(partial_ptr + pid, tl.max(x, axis=0))


@triton.jit
def final_max_kernel(partial_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    acc = tl.full([BLOCK_SIZE], -float("inf"), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        p = tl.load(partial_ptr + offsets, mask=offsets < n_partials, other=-float("inf"))
        acc = tl.maximum(acc, p)
    tl.store(out_ptr, tl.max(acc, axis=0))


def launch(x):
    assert x.dim() == 1 and x.is_contiguous() and x.dtype == torch.float32
    n = x.numel()
    n_partials = triton.cdiv(n, 1024)
    partials = torch.empty(n_partials, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    block_max_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=1024)
    final_max_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=1024)
    return out[0]


def reference(x):
    return torch.max(x)


def make_inputs(device):
    x = torch.randn(100_000_000, device=device, dtype=torch.float32)  # 400 MB
    return (x,)


def make_small_inputs(device):
    # 3001 elements: 3 partials, the last block partial (stage 2 runs one masked iteration;
    # its loop over several chunks of partials needs > 1M elements, too slow for the interpreter)
    x = torch.randn(3001, device=device, dtype=torch.float32)
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime length with a tiny last block, and one element
    return [
        make_small_inputs(device),  # 3001: 3 partials, the last block 953 elements
        (torch.randn(1031, device=device, dtype=torch.float32),),  # prime: 2 partials, the last block only 7 elements
        (torch.randn(1, device=device, dtype=torch.float32),),  # one element: one partial, 1023 lanes masked in both stages
    ]


def bytes_moved(x):
    return x.numel() * x.element_size() + 4


TOLERANCE = {"rtol": 0.0, "atol": 0.0}  # max is exact
