"""A loop of 256 trips gathers int8 rows through `offs // D` with a run-time D: the integer division
needs the divisor's reciprocal (I2F, MUFU.RCP, F2I), which ptxas computes once before the loop
although the line table puts it on the loop body's line. Counted once, as the machine code runs
it, it is far below the memory floor; counted per trip it would be twice the floor."""
import torch
import triton
import triton.language as tl


@triton.jit
def repeat_rows_kernel(src_ptr, dst_ptr, n, D, BLOCK: tl.constexpr, TRIPS: tl.constexpr):
    base = tl.program_id(0) * BLOCK * TRIPS
    for t in range(TRIPS):
        offs = base + t * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(src_ptr + offs // D, mask=mask, other=0)
        tl.store(dst_ptr + offs, v, mask=mask)


def launch(src, repeats):
    n = src.numel() * repeats
    dst = torch.empty(n, device=src.device, dtype=src.dtype)
    repeat_rows_kernel[(triton.cdiv(n, 128 * 256),)](src, dst, n, repeats, BLOCK=128, TRIPS=256)
    return dst


def reference(src, repeats):
    return src.repeat_interleave(repeats)


def make_inputs(device):
    return (torch.randint(-128, 127, (1 << 22,), device=device, dtype=torch.int8), 3)


def bytes_moved(src, repeats):
    return src.numel() * (1 + repeats)
