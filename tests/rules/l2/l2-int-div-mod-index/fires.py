"""Bias add over a (rows, n_cols) matrix written with a flat index: the column comes from
offs % n_cols with a run-time n_cols, so every element pays an integer remainder (a long SASS
sequence) and the bias load loses its contiguity."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, b_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    col = offs % n_cols  # CHECK: l2-int-div-mod-index
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + col, mask=mask)
    tl.store(out_ptr + offs, x + b, mask=mask)


def launch(x, b):
    out = torch.empty_like(x)
    n = x.numel()
    add_bias_kernel[(triton.cdiv(n, 1024),)](x, b, out, n, x.shape[1], BLOCK=1024)
    return out


def reference(x, b):
    return x + b[None, :]


def make_inputs(device):
    return (torch.randn(1000, 1000, device=device, dtype=torch.float32), torch.randn(1000, device=device, dtype=torch.float32))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
