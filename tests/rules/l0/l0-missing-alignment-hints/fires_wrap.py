"""l0-missing-alignment-hints fires: a tutorial-style `% N` wrap on the contiguous index, N = 1000."""
import torch
import triton
import triton.language as tl


@triton.jit
def gather_cols_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs = (pid_n * BLOCK + tl.arange(0, BLOCK)) % N  # CHECK: l0-missing-alignment-hints
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
    return (torch.randn(256, 1000, device=device),)
