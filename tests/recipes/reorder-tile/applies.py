"""reorder-tile applies: a first-draft transpose. One program per (row, column chunk) stores its
chunk of row `row` as a piece of column `row` of out: consecutive lanes write 4096 bytes apart."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xr, stride_xc, stride_outr, stride_outc,
                     BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols * stride_xc, mask=mask)
    tl.store(out_ptr + cols * stride_outr + row * stride_outc, x, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    grid = (rows, triton.cdiv(cols, 256))
    transpose_kernel[grid](x, out, rows, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK=256)
    return out


def reference(x):
    return x.t().contiguous()


def make_inputs(device):
    return (torch.randn(1024, 1024, device=device, dtype=torch.float32),)


def make_small_inputs(device):
    return (torch.randn(45, 300, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
