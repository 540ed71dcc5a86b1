"""A per-row dot of 64-element vectors on the default 4 warps: the 64-element tiles are spread
over 128 threads, so every element is loaded by two threads (two whole warps duplicate the
other two)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_dot_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # CHECK: l2-replicated-loads
    y = tl.load(y_ptr + offs)  # CHECK: l2-replicated-loads
    tl.store(out_ptr + row, tl.sum(x * y, axis=0))


def launch(x, y):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    row_dot_kernel[(x.shape[0],)](x, y, out, BLOCK=x.shape[1])
    return out


def reference(x, y):
    return (x * y).sum(dim=1)


def make_inputs(device):
    return (torch.randn(4096, 64, device=device, dtype=torch.float32), torch.randn(4096, 64, device=device, dtype=torch.float32))


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
