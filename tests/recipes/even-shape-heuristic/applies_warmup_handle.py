"""even-shape-heuristic applies to a kernel launched through a compiled handle: the wrapper
compiles it with `row_scale_kernel.warmup(..., grid=(1,))` (to read its registers) and launches
the handle positionally, as Triton's fused-softmax tutorial does. Rows of 4096 columns in a block
of 4096: the column mask is always true (l0-unneeded-mask). The flag is computed once before the
warmup call, passed to it by keyword and to the handle as its last positional argument."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(out_ptr, x_ptr, scale, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x * scale, mask=mask)


def launch(x):
    n_rows, n_cols = x.shape
    BLOCK = triton.next_power_of_2(n_cols)
    out = torch.empty_like(x)
    kernel = row_scale_kernel.warmup(out, x, 0.5, n_cols, BLOCK=BLOCK, num_warps=4, grid=(1, ))
    kernel._init_handles()
    kernel[(n_rows, 1, 1)](out, x, 0.5, n_cols, BLOCK)
    return out


def reference(x):
    return x * 0.5


def make_inputs(device):
    return (torch.randn(512, 4096, device=device, dtype=torch.float32), )


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
