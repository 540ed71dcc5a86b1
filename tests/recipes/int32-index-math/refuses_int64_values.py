"""int32-index-math refuses: the int64 cast computes stored values (i * 2**32), not offsets, and
the step argument itself is past int32; nothing proposes dropping it."""
import torch
import triton
import triton.language as tl


@triton.jit
def strided_iota_kernel(out_ptr, step, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    vals = offs.to(tl.int64) * step
    tl.store(out_ptr + offs, vals, mask=offs < n)


def launch(n):
    out = torch.empty(n, dtype=torch.int64)
    strided_iota_kernel[(triton.cdiv(n, 1024),)](out, 2**32, n, BLOCK=1024)
    return out


def reference(n):
    return torch.arange(n, dtype=torch.int64) * 2**32


def make_inputs(device):
    return (100_000,)
