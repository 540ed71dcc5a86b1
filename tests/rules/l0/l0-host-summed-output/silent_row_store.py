"""l0-host-summed-output stays silent: each program sums its row in the kernel and stores one
value (a per-row loss, as Liger's cross entropy stores loss_1d); the launch function's torch.sum
then adds one value per program, which is already the cheap part."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_squared_error_kernel(x_ptr, y_ptr, loss_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        d = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0) - tl.load(y_ptr + row * n_cols + offs, mask=mask, other=0.0)
        total += tl.sum(d * d)
    tl.store(loss_ptr + row, total * scale)


def launch(x, y):
    n_rows, n_cols = x.shape
    loss_1d = torch.zeros(n_rows, dtype=torch.float32, device=x.device)
    row_squared_error_kernel[(n_rows,)](x, y, loss_1d, n_cols, 1.0 / n_rows, BLOCK=1024)
    return torch.sum(loss_1d)


def reference(x, y):
    return torch.sum((x - y) ** 2) / x.shape[0]


def make_inputs(device):
    return (torch.randn(512, 8192, device=device), torch.randn(512, 8192, device=device))
