"""l0-missing-alignment-hints stays silent: strides are specialized, the wrap is hinted, n % 16 != 0 gets no hint."""
import torch
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, out_ptr, N, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs = (pid_n * BLOCK + tl.arange(0, BLOCK)) % N
    offs = tl.max_contiguous(tl.multiple_of(offs, 8), 8)
    x = tl.load(x_ptr + row * stride + offs)
    out_cols = pid_n * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + row * stride + out_cols, x, mask=(out_cols < N) & (out_cols < n))


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    kernel[(rows, triton.cdiv(cols, 64))](x, out, cols, x.stride(0), 1000, BLOCK=64)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(256, 1000, device=device),)
