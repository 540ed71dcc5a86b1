"""Seeded (Philox) dropout, p = 0.1, over 2**26 fp32 elements (537 MB moved), Triton tutorial 04.

Provenance: triton-lang/triton@7fd4724371b3a1ab786c0610df19c7683cb6a23b:python/tutorials/04-low-memory-dropout.py,
MIT (SPDX: MIT), "Copyright 2018-2020 Philippe Tillet, Copyright 2020-2022 OpenAI" (the repository's
LICENSE; the tutorial file itself has no header). Copied verbatim: `DEVICE`, the `_seeded_dropout`
kernel (the keep mask comes from `tl.rand(seed, offsets)`, never stored) and its host function
`seeded_dropout`. Left out: the tutorial's first, mask-tensor `_dropout` kernel, its `tabulate`
printouts and module-level demo calls. Nothing in the kernel or the wrapper changed.

The reference reproduces `tl.rand` (triton/language/random.py: Philox-4x32, 10 rounds, counter
(offset, 0, 0, 0), key (seed_lo, seed_hi), the first word mapped to [0, 1) as
int32 -> |x| -> x * 4.6566127342e-10) in int64 PyTorch arithmetic, so the keep mask is bit-exact.
"""
import torch

import triton
import triton.language as tl

# ---- copied from python/tutorials/04-low-memory-dropout.py (MIT, Copyright 2018-2020 Philippe Tillet, 2020-2022 OpenAI)

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _seeded_dropout(
    x_ptr,
    output_ptr,
    n_elements,
    p,
    seed,
    BLOCK_SIZE: tl.constexpr,
):
    # compute memory offsets of elements handled by this instance
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # load data from x
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # randomly prune it
    random = tl.rand(seed, offsets)
    x_keep = random > p
    # write-back
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


# ---- end of the copied code; what follows is this project's task interface

P = 0.1
SEED = 123  # the tutorial's seed


def launch(x):
    return seeded_dropout(x, p=P, seed=SEED)


_M32 = 0xFFFFFFFF


def _umulhi_lo(a, b):
    """High and low 32 bits of a * b for uint32 values held in int64 (b split in 16-bit halves so
    nothing overflows int64)."""
    b_hi, b_lo = b >> 16, b & 0xFFFF
    lo_part = a * b_lo
    t = a * b_hi + (lo_part >> 16)
    return t >> 16, ((t & 0xFFFF) << 16) | (lo_part & 0xFFFF)


def _philox_rand(seed, offsets):
    """tl.rand(seed, offsets) for int32 offsets and an integer seed, as triton/language/random.py computes it."""
    seed = seed & 0xFFFFFFFFFFFFFFFF
    k0 = torch.full_like(offsets, seed & _M32)
    k1 = torch.full_like(offsets, (seed >> 32) & _M32)
    c0, c1 = offsets & _M32, torch.zeros_like(offsets)
    c2, c3 = torch.zeros_like(offsets), torch.zeros_like(offsets)
    A, B = 0xD2511F53, 0xCD9E8D57
    for _ in range(10):
        hi_b, lo_b = _umulhi_lo(c2, torch.full_like(c2, B))
        hi_a, lo_a = _umulhi_lo(c0, torch.full_like(c0, A))
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = (k0 + 0x9E3779B9) & _M32
        k1 = (k1 + 0xBB67AE85) & _M32
    x = torch.where(c0 >= 2**31, c0 - 2**32, c0)  # bitcast to int32
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32)


def reference(x):
    offsets = torch.arange(x.numel(), dtype=torch.int64, device=x.device)
    keep = (_philox_rand(SEED, offsets) > torch.tensor(P, dtype=torch.float32)).reshape(x.shape)
    scale = torch.tensor(1.0, dtype=torch.float32) - torch.tensor(P, dtype=torch.float32)
    return torch.where(keep, x / scale, torch.zeros((), dtype=x.dtype))


def make_inputs(device):
    return (torch.randn(2**26, device=device, dtype=torch.float32), )


def make_small_inputs(device):
    return (torch.randn(4099, device=device, dtype=torch.float32), )  # 5 blocks of 1024, the last one masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small odd length, a prime length, a single element
    return [
        make_small_inputs(device),  # 4099: 5 blocks of 1024, the last one 3 wide
        (torch.randn(9973, device=device, dtype=torch.float32), ),  # 9973 (prime): 10 blocks, the last one 757 wide; Philox offsets up to 9972
        (torch.randn(1, device=device, dtype=torch.float32), ),  # a single element (offset 0): one program, 1023 lanes masked
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
