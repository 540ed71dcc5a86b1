"""Vector add over n = 1000003 elements: n is not a multiple of 16, so the mask `offs < n` is
uniform over single elements only, and Triton remarks "vectorization fails ... mask is 1" on
both loads and the store."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # CHECK: l3-compiler-remark
    y = tl.load(y_ptr + offs, mask=mask)  # CHECK: l3-compiler-remark
    tl.store(out_ptr + offs, x + y, mask=mask)  # CHECK: l3-compiler-remark


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1000003
    return (torch.randn(n, device=device), torch.randn(n, device=device))


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
