"""l3-vectorization-lost stays silent: n is a multiple of 16 and every pointer is 16-byte
aligned, so the mask has constancy 16 and all accesses are 128-bit."""
import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    axpy_kernel[(triton.cdiv(n, 1024),)](x, y, out, 2.0, n, BLOCK=1024)
    return out


def reference(x, y):
    return 2.0 * x + y


def make_inputs(device):
    n = 1 << 20
    return (torch.randn(n, device=device), torch.randn(n, device=device))


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()
