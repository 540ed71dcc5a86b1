"""l0-missing-alignment-hints fires: a row stride of 1024 excluded from specialization."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["stride"])  # CHECK: l0-missing-alignment-hints
def row_copy_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, x, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_copy_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(1024, 1024, device=device),)
