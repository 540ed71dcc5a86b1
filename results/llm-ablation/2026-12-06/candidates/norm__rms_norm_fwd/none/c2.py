"""RMS norm forward: y = x / sqrt(mean(x^2) + eps) * w over rows of an (8192, 8192) bf16 matrix (Llama-70B hidden size).

Provenance: the usual first Triton draft of RMSNorm (the shape of the LLaMA reference
`x * rsqrt(mean(x^2) + eps) * weight`, as in many LLM-written and tutorial kernels): one program
per row, the whole row in one register tile of BLOCK = next_power_of_2(n_cols) columns, the sum of
squares in fp32, the normalized row cast back to bf16 before the weight multiply (the Hugging Face
LlamaRMSNorm order).

Weaknesses: the block is sized from the row length only and launched with the default num_warps
(4): a 8192-column row gives each of 128 threads 64 elements of x (64 fp32 registers once
upcast) plus 64 of the weight: 95 registers per thread for sm_90, 5 programs (20 warps) per SM; no autotuning of num_warps;
one program per row (8192 programs, no persistent loop); the weight row is re-read by every
program (from L2). It cannot handle rows longer than one register tile holds.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd_kernel(x_ptr, w_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, eps,
                        BLOCK: tl.constexpr = 64, NUM_WARPS: tl.constexpr = 8):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(mean_sq + eps)
    x_hat = (x * rstd).to(y_ptr.dtype.element_ty)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    y = x_hat.to(tl.float32) * w.to(tl.float32)  # bf16 * bf16, computed in fp32 and rounded as torch does
    tl.store(y_ptr + row * y_row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


EPS = 1e-6


def launch(x, weight):
    rows, cols = x.shape
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    rms_norm_fwd_kernel[(rows,)](x, weight, y, x.stride(0), y.stride(0), cols, EPS, BLOCK=BLOCK)
    return y


def reference(x, weight):
    xf = x.float()
    x_hat = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)
    return weight * x_hat.to(x.dtype)


def _inputs(device, rows, cols):
    x = torch.randn(rows, cols, device=device, dtype=torch.bfloat16)
    weight = (1.0 + 0.1 * torch.randn(cols, device=device)).to(torch.bfloat16)
    return (x, weight)


def make_inputs(device):
    return _inputs(device, 8192, 8192)  # x and y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 6, 1000)  # a 1024-wide tile, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width in a larger tile, one full-width row
    return [
        make_small_inputs(device),  # 6 x 1000: a 1024-wide tile, the last 24 columns masked
        _inputs(device, 7, 2053),  # a prime width (and row stride): a 4096-wide tile, 2043 columns masked
        _inputs(device, 1, 8192),  # one row (a decode step) at the realistic width: the 8192 tile exactly full
    ]


def bytes_moved(x, weight):
    return 2 * x.numel() * x.element_size() + weight.numel() * weight.element_size()


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}
