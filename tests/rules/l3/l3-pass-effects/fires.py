"""Strided scale: every access is `ptr + offs * stride` with a runtime stride, so AxisInfo gives
the pointers contiguity 1 and TritonGPUCoalesce keeps sizePerThread = [1] for the load and the
store although each thread owns 8 elements."""
import torch
import triton
import triton.language as tl


@triton.jit
def strided_scale_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)  # CHECK: l3-pass-effects
    tl.store(out_ptr + offs * stride, x * 2.0, mask=mask)  # CHECK: l3-pass-effects


def launch(x):
    out = torch.zeros_like(x)
    n = x.numel() // 3
    strided_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, 3, BLOCK=1024)
    return out


def reference(x):
    out = torch.zeros_like(x)
    out[::3] = x[::3] * 2.0
    return out


def make_inputs(device):
    return (torch.randn(3 * (1 << 18), device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
