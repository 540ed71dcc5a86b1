"""l3-vectorization-lost fires: the input's row stride (1001 fp16 elements) is not a
multiple of 16, so `rm[:, None] * stride_xm` has divisibility 1, every row start is only
2-byte aligned and the tile load is 16-bit; the output (stride 1024) stays 128-bit."""
import torch
import triton
import triton.language as tl


@triton.jit
def crop_kernel(x_ptr, out_ptr, stride_xm, stride_om, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :])  # CHECK: l3-vectorization-lost
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :], x)


def launch(x):
    M, N = x.shape[0], 1024
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    crop_kernel[(M // 32, N // 64)](x, out, x.stride(0), out.stride(0), BM=32, BN=64)
    return out


def reference(x):
    return x[:, :1024].clone()


def make_inputs(device):
    return (torch.randn(256, 1001, device=device, dtype=torch.float16),)
