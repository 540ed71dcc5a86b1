"""flatten-contiguous-rows applies: a 2-D elementwise kernel over rows of 1023 fp32 elements (one
program per row and column block). The row stride 1023 is not a multiple of 16, so every row
starts 4-byte aligned and all accesses stay scalar (l3-vectorization-lost, alignment lost at the
row offset). The rows are contiguous, so the recipe launches the kernel over the flat
rows x columns elements instead, under a flag the launch computes from the strides."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n_cols, stride_xm, stride_xn, stride_om, stride_on, scale,
                       BLOCK_SIZE: tl.constexpr, FLAT_ROWS: tl.constexpr):
    row = 0 if FLAT_ROWS else tl.program_id(axis=0)
    col_block = tl.program_id(0) if FLAT_ROWS else tl.program_id(axis=1)
    cols = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask)
    y = x * scale + 1.0
    tl.store(out_ptr + row * stride_om + cols * stride_on, y, mask=mask)


def launch(x, scale=0.5):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    grid = (n_rows, triton.cdiv(n_cols, 1024))
    flat_rows = x.stride(0) == n_cols and x.stride(1) == 1 and out.stride(0) == n_cols and out.stride(1) == 1 and n_rows * n_cols < 2**31
    scale_shift_kernel[(triton.cdiv(n_rows * n_cols, 1024),) if flat_rows else grid](x, out, n_rows * n_cols if flat_rows else n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), scale,
                             BLOCK_SIZE=1024, FLAT_ROWS=flat_rows)
    return out


def reference(x, scale=0.5):
    return x * scale + 1.0


def make_inputs(device):
    return (torch.randn(512, 1023, device=device),)


def make_small_inputs(device):
    return (torch.randn(5, 1023, device=device),)  # contiguous: the flat launch


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
