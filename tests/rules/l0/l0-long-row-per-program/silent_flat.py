"""l0-long-row-per-program stays silent: a flat elementwise kernel with a 16384-wide block at 4 warps
(128 elements per thread) already splits its data into blocks (`pid * BLOCK + tl.arange`): it is
no row per program, whatever its block holds per thread."""
import torch
import triton
import triton.language as tl


@triton.jit
def silu_flat_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.float32)
    tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(tl.float16), mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n = x.numel()
    silu_flat_kernel[(triton.cdiv(n, 16384),)](x, y, n, BLOCK=16384)
    return y


def reference(x):
    return torch.nn.functional.silu(x.float()).to(x.dtype)


def make_inputs(device):
    return (torch.randn(64 * 14336, device=device, dtype=torch.float16),)


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
