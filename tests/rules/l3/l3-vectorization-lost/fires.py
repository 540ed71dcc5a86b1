"""l3-vectorization-lost fires: n is not a multiple of 16, so Triton gives `n` no
tt.divisibility, AxisInfo's cmpi rule makes `offs < n` constancy 1, and every load and
store is predicted one fp32 at a time (32-bit) instead of 128-bit."""
import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # CHECK: l3-vectorization-lost
    y = tl.load(y_ptr + offs, mask=mask)  # CHECK: l3-vectorization-lost
    tl.store(out_ptr + offs, a * x + y, mask=mask)  # CHECK: l3-vectorization-lost


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    axpy_kernel[(triton.cdiv(n, 1024),)](x, y, out, 2.0, n, BLOCK=1024)
    return out


def reference(x, y):
    return 2.0 * x + y


def make_inputs(device):
    n = 1_000_003  # not a multiple of 16
    return (torch.randn(n, device=device), torch.randn(n, device=device))


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()
