"""flatten-contiguous-rows applies: the addresses multiply the row by the row length itself
(`row * n_cols + cols`, a kernel written for contiguous rows only); with 1023 columns the rows
are misaligned all the same. The flat launch needs no stride condition, only the total."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_rows_kernel(a_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cb = tl.program_id(1)
    cols = cb * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + row * n_cols + cols, mask=cols < n_cols)
    b = tl.load(b_ptr + row * n_cols + cols, mask=cols < n_cols)
    tl.store(out_ptr + row * n_cols + cols, a + b, mask=cols < n_cols)


def launch(a, b):
    rows, n_cols = a.shape
    out = torch.empty_like(a)
    add_rows_kernel[(rows, triton.cdiv(n_cols, 512))](a, b, out, n_cols, BLOCK=512)
    return out


def reference(a, b):
    return a + b


def make_inputs(device):
    return (torch.randn(256, 1023, device=device), torch.randn(256, 1023, device=device))


def make_small_inputs(device):
    return (torch.randn(3, 1023, device=device), torch.randn(3, 1023, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
