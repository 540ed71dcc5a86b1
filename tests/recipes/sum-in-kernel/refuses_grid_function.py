"""sum-in-kernel refuses: the squared-error loss of applies.py launched with a grid function
(`lambda meta: (n_rows,)`): how many programs run is not an expression the launch function can
size the partials with before the launch.
# DECLINES: the grid is not a tuple
"""
import torch
import triton
import triton.language as tl


@triton.jit
def squared_error_kernel(x_ptr, y_ptr, loss_ptr, loss_stride, label_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    loss_ptr += row * loss_stride
    if tl.load(label_ptr + row) < 0:
        return
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        d = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32) - tl.load(y_ptr + offs, mask=mask, other=0.0)
        tl.store(loss_ptr + offs, d * d * scale, mask=mask)


def squared_error(x, y, labels):
    n_rows, n_cols = x.shape
    loss = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    squared_error_kernel[lambda meta: (n_rows,)](x, y, loss, loss.stride(-2), labels, n_cols, 1.0 / n_rows, BLOCK=1024)
    return torch.sum(loss)


def launch(x, y, labels):
    return squared_error(x, y, labels)


def reference(x, y, labels):
    keep = (labels >= 0)[:, None]
    return torch.sum(torch.where(keep, (x.float() - y.float()) ** 2, 0.0)) / x.shape[0]


def _inputs(device, rows, cols):
    labels = torch.arange(rows, device=device) % 5 - 1  # every fifth row ignored (label -1)
    return (torch.randn(rows, cols, device=device), torch.randn(rows, cols, device=device), labels)


def make_inputs(device):
    return _inputs(device, 512, 8192)


def make_small_inputs(device):
    return _inputs(device, 7, 3000)  # two full 1024 chunks and a partial one per row


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
