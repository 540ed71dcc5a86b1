"""reduce-after-loop applies: the row L2 norm of applies.py with the row pointer advanced in place
(`x_ptr += row * row_stride`, as Liger's kernels write it): the loaded block's shape is spelled
through the augmented assignment of a pointer parameter."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_norm_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * row_stride
    acc = 0.0
    acc_blk = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0)
        acc_blk += x * x
    acc += tl.sum(acc_blk, axis=0)
    tl.store(out_ptr + row, tl.sqrt(acc))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_norm_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=256)
    return out


def reference(x):
    return torch.linalg.vector_norm(x, dim=1)


def make_inputs(device):
    return (torch.randn(4096, 3000, device=device, dtype=torch.float32),)


def make_small_inputs(device):
    return (torch.randn(5, 1000, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
