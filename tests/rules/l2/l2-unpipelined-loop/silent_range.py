"""A streaming sum over long rows written with tl.range(..., num_stages=3): the loop carries
tt.num_stages, so the pipeliner stages its loads through cp.async."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in tl.range(0, n_cols, BLOCK, num_stages=3):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * row_stride + cols)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    row_sum_kernel[(x.shape[0],)](x, out, x.stride(0), x.shape[1], BLOCK=1024)
    return out


def reference(x):
    return x.sum(dim=1)


def make_inputs(device):
    return (torch.randn(64, 8192, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
