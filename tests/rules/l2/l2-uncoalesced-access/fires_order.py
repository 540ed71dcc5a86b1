"""A 2-D copy of row-major matrices whose unit column stride is a run-time argument that
Triton may not specialize (do_not_specialize): the axis info proves no contiguity along either
dimension, Coalesce falls back to order [0, 1], and the lanes walk dimension 0 (rows 2 KB
apart in memory) while dimension 1 is the contiguous one."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["stride_c"])
def copy_kernel(x_ptr, out_ptr, stride_r, stride_c, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    offs = rows[:, None] * stride_r + cols[None, :] * stride_c
    x = tl.load(x_ptr + offs)  # CHECK: l2-uncoalesced-access
    tl.store(out_ptr + offs, x)  # CHECK: l2-uncoalesced-access


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    copy_kernel[(n_rows // 64, n_cols // 64)](x, out, x.stride(0), x.stride(1), BLOCK_R=64, BLOCK_C=64)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(512, 512, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 0, "atol": 0}
