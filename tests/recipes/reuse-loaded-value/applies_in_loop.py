"""reuse-loaded-value applies: inside a loop over row chunks, the bias chunk is reloaded inline
in an expression after the first output's store."""
import torch
import triton
import triton.language as tl


@triton.jit
def bias_two_kernel(x_ptr, bias_ptr, y_ptr, z_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask)
        bias = tl.load(bias_ptr + cols, mask=mask)
        tl.store(y_ptr + row * stride + cols, x + bias, mask=mask)
        tl.store(z_ptr + row * stride + cols, x * tl.load(bias_ptr + cols, mask=mask), mask=mask)


def launch(x, bias):
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    bias_two_kernel[(x.shape[0],)](x, bias, y, z, x.stride(0), x.shape[1], BLOCK=256)
    return y, z


def reference(x, bias):
    return x + bias, x * bias


def make_inputs(device):
    return (torch.randn(64, 1000, device=device), torch.randn(1000, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
