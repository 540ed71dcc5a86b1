"""LayerNorm forward (Liger-Kernel) over a (16384, 4096) bf16 activation with weight and bias: 16k tokens at a 4096 hidden size.

Provenance: linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/layer_norm.py
(BSD-2-Clause, Copyright 2024 LinkedIn Corporation). Copied verbatim: the `rsqrt` import, the
kernel `_layer_norm_forward_kernel` and the wrapper `layer_norm_forward` (block size and warps from
`calculate_settings`, one program per row). Left out: the backward kernel, `layer_norm_backward` and
the autograd Function `LigerLayerNormFunction`, whose `forward` calls `layer_norm_forward(X, W, B,
eps)` as `launch` does here. The package imports are replaced by verbatim copies of the helpers
they name (`is_hip`, `calculate_settings`, `compare_version`, `set_large_grf_mode` from
src/liger_kernel/ops/utils.py and `is_npu_available` from src/liger_kernel/utils.py, same commit),
with the standard-library imports those helpers use.

The launch: 4096 columns give BLOCK_SIZE 4096 and 8 warps, 16384 programs; it returns Y and the
per-row mean and rstd (stored in the input dtype, bf16, as upstream does) that the backward reuses.
"""
# --------------------------------------------------------------------------------------------------
# Copied from linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/layer_norm.py
# BSD-2-Clause, Copyright 2024 LinkedIn Corporation; the license text is in LICENSE beside this file.
# --------------------------------------------------------------------------------------------------


import math
import operator

import torch
import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# Helpers the code below imports from the liger_kernel package, copied verbatim at the same commit
# from src/liger_kernel/ops/utils.py: is_hip, calculate_settings, compare_version, set_large_grf_mode
# from src/liger_kernel/utils.py: is_npu_available
# --------------------------------------------------------------------------------------------------


import importlib

from typing import Callable

from packaging.version import Version


def is_hip() -> bool:
    return torch.version.hip is not None


def calculate_settings(n):
    # reference: https://github.com/unslothai/unsloth/blob/fd753fed99ed5f10ef8a9b7139588d9de9ddecfb/unsloth/kernels/utils.py#L43

    MAX_FUSED_SIZE = 65536
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds the recommended Triton blocksize = {MAX_FUSED_SIZE}."
        )

    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32 if not is_hip() else 16
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def compare_version(package: str, operator: Callable, target: str):
    try:
        pkg = importlib.import_module(package)
    except ImportError:
        return False
    pkg_version = Version(pkg.__version__)
    return operator(pkg_version, Version(target))


def set_large_grf_mode(kernel_args: dict):
    """Set large GRF mode for XPU devices."""
    # On XPU triton installed along with pytorch-xpu will be called `pytorch-triton-xpu`,
    # triton XPU installed from source will be called `triton`.
    if compare_version("pytorch-triton-xpu", operator.ge, "3.6.0") or compare_version("triton", operator.ge, "3.6.0"):
        kernel_args["grf_mode"] = "256"
    else:
        # API was changed in https://github.com/intel/intel-xpu-backend-for-triton/pull/5430
        kernel_args["grf_mode"] = "large"


def is_npu_available() -> bool:
    """Detect Ascend NPU availability."""
    try:
        from transformers.utils import is_torch_npu_available

        return is_torch_npu_available()
    except Exception:
        return False


# --------------------------------------------------------------------------------------------------
# src/liger_kernel/ops/layer_norm.py continues
# --------------------------------------------------------------------------------------------------


if compare_version("triton", operator.ge, "3.0.0") and not is_npu_available():
    try:
        # typical import path with dispatch available
        from triton.language.extra.libdevice import rsqrt
    except ModuleNotFoundError:
        # for working with NGC containers
        from triton.language.extra.cuda.libdevice import rsqrt
else:
    from triton.language.math import rsqrt


@triton.jit
def _layer_norm_forward_kernel(
    Y_ptr,  # pointer to output, shape (n_rows, n_cols)
    Y_row_stride,  # stride of each row in output
    X_ptr,  # pointer to input, shape (n_rows, n_cols)
    X_row_stride,  # stride of each row in input
    W_ptr,  # pointer to weights, shape (n_cols,)
    W_row_stride,  # stride of each row in weights
    B_ptr,  # pointer to bias, shape (n_cols,)
    B_row_stride,  # stride of each row in bias
    Mean_ptr,  # pointer to mean, shape (n_rows,)
    Mean_row_stride,  # stride of each row in mean
    RSTD_ptr,  # pointer to rstd, shape (n_rows,)
    RSTD_row_stride,  # stride of each row in rstd
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    """
    References:
    https://arxiv.org/abs/1607.06450
    https://github.com/karpathy/llm.c/blob/master/doc/layernorm/layernorm.md
    """
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # Pre-load weights and bias in fp32 to avoid repeated conversions
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0)
    B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0.0)
    W_f32 = W_row.to(tl.float32)
    B_f32 = B_row.to(tl.float32)

    # Calculate pointers for this row
    row_X_ptr = X_ptr + row_idx * X_row_stride
    row_Y_ptr = Y_ptr + row_idx * Y_row_stride
    row_Mean_ptr = Mean_ptr + row_idx * Mean_row_stride
    row_RSTD_ptr = RSTD_ptr + row_idx * RSTD_row_stride

    # Load input data and convert to fp32 for numerical stability
    X_row = tl.load(row_X_ptr + col_offsets, mask=mask, other=0.0)
    X_f32 = X_row.to(tl.float32)

    # Compute statistics in fp32 for numerical stability
    mean = tl.sum(X_f32, axis=0) / n_cols
    X_centered = X_f32 - mean
    # Apply mask to variance calculation to exclude contributions from masked elements
    X_centered_masked = tl.where(mask, X_centered, 0.0)
    var = tl.sum(X_centered_masked * X_centered_masked, axis=0) / n_cols
    rstd = rsqrt(var + eps.to(tl.float32))

    # Store statistics (convert back to original dtype only once)
    tl.store(row_Mean_ptr, mean.to(X_row.dtype))
    tl.store(row_RSTD_ptr, rstd.to(X_row.dtype))

    # Fused normalization and affine transformation
    # Y = (X - mean) * rstd * W + B = X_centered * rstd * W + B
    Y_f32 = X_centered * rstd * W_f32 + B_f32

    # Store output (single conversion back to original dtype)
    tl.store(row_Y_ptr + col_offsets, Y_f32.to(X_row.dtype), mask=mask)


def layer_norm_forward(X, W, B, eps):
    """
    Args:
        X: Input tensor of shape (..., hidden_size)
        W: Weight tensor of shape (hidden_size,)
        B: Bias tensor of shape (hidden_size,)
        eps: Small constant for numerical stability

    Returns:
        Tuple of (output, input, mean, rstd, block_size, num_warps)
    """
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape

    # Calculate optimal block size and warp configuration
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    # Allocate output tensors
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=X.dtype, device=X.device)

    # Validate input dimensions
    if X.shape[1] != W.shape[0]:
        raise ValueError(
            f"Incompatible dimensions: input feature size (X.shape[1]={X.shape[1]}) "
            f"must match weight size (W.shape[0]={W.shape[0]})"
        )

    # XPU-specific optimization
    kernel_args = {}
    if X.device.type == "xpu":
        set_large_grf_mode(kernel_args)

    # Launch kernel with one thread block per row for optimal performance
    grid = (n_rows,)
    _layer_norm_forward_kernel[grid](
        Y,
        Y.stride(0),
        X,
        X.stride(0),
        W,
        W.stride(0),
        B,
        B.stride(0),
        Mean,
        Mean.stride(0),
        RSTD,
        RSTD.stride(0),
        n_cols,
        eps,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
        **kernel_args,
    )

    return Y.view(*shape), X, Mean, RSTD, BLOCK_SIZE, num_warps


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


EPS = 1e-5


def launch(X, W, B):
    Y, X, Mean, RSTD, BLOCK_SIZE, num_warps = layer_norm_forward(X, W, B, EPS)
    return Y, Mean, RSTD


def reference(X, W, B):
    xf = X.float()
    mean = xf.mean(-1)
    var = (xf - mean[:, None]).pow(2).mean(-1)
    rstd = torch.rsqrt(var + EPS)
    Y = (xf - mean[:, None]) * rstd[:, None] * W.float() + B.float()
    return Y.to(X.dtype), mean.to(X.dtype), rstd.to(X.dtype)


def _inputs(device, rows, cols):
    X = torch.randn(rows, cols, device=device, dtype=torch.bfloat16)
    W = (1.0 + 0.1 * torch.randn(cols, device=device)).to(torch.bfloat16)
    B = (0.1 * torch.randn(cols, device=device)).to(torch.bfloat16)
    return (X, W, B)


def make_inputs(device):
    return _inputs(device, 16384, 4096)  # X and Y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 6, 1000)  # a 1024-wide block, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # 6 x 1000: a 1024-wide block, the last 24 columns masked
        _inputs(device, 7, 2053),  # a prime width: a 4096-wide block, 2043 columns masked, 8 warps
        _inputs(device, 1, 4096),  # one token (a decode step) at Llama-3-8B's width: one program, the block exactly full
    ]


def bytes_moved(X, W, B):
    rows = X.shape[0]
    return 2 * X.numel() * X.element_size() + (W.numel() + B.numel()) * W.element_size() + 2 * rows * X.element_size()


def flops(X, W, B):
    return 7 * X.numel()  # sum, center, square, sum, scale, weight, bias


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}


INTERPRETER_XFAIL = (
    "Triton 3.6's interpreter does not run "
    "libdevice functions (rsqrt; triton-lang/triton#8825). With these patched locally (float "
    "arguments passed as fp32 scalars, libdevice replaced by tl.math equivalents) the entry "
    "matches its reference"
)
