"""add-contiguity-hint refuses: the same `% N` wrap with N = 1001 (odd): runs of two lanes can
wrap, so no contiguity hint is true and no finding proposes one."""
import torch
import triton
import triton.language as tl


@triton.jit
def gather_cols_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs = (pid_n * BLOCK + tl.arange(0, BLOCK)) % N
    x = tl.load(x_ptr + row * stride + offs)
    out_cols = pid_n * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + row * stride + out_cols, x, mask=out_cols < N)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    gather_cols_kernel[(rows, triton.cdiv(cols, 64))](x, out, cols, x.stride(0), BLOCK=64)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(128, 1001, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
