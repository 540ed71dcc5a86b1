"""GroupNorm forward (Liger-Kernel `LigerGroupNormFunction`), 32 groups over a (16, 512, 64, 64) fp32 feature map: a diffusion UNet's 512-channel block at 64x64.

Provenance: linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/group_norm.py
(BSD-2-Clause, Copyright 2024 LinkedIn Corporation). Copied verbatim: the `rsqrt` import,
`MAX_FUSED_SIZE`, the kernel `_group_norm_forward_kernel` (one program per (sample, group): a loop
for the sum and the sum of squares, then a loop that normalizes and applies the per-channel weight
and bias) and the wrapper `group_norm_forward`. Left out: the backward kernel, `group_norm_backward`
and the autograd Function `LigerGroupNormFunction`, whose `forward` calls `group_norm_forward(X,
num_channels, num_groups, W, B, eps)` as `launch` does here. The package imports are replaced by
verbatim copies of the helpers they name (`compare_version` from src/liger_kernel/ops/utils.py;
`infer_device` and `is_npu_available` from src/liger_kernel/utils.py, same commit), with the
standard-library imports those helpers use.

The launch: each group holds 16 channels x 4096 pixels = 65536 elements, so BLOCK_SIZE = 65536 with
Triton's default 4 warps, a grid of (16, 32) = 512 programs, each reading its group twice.
"""
# --------------------------------------------------------------------------------------------------
# Copied from linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/group_norm.py
# BSD-2-Clause, Copyright 2024 LinkedIn Corporation; the license text is in LICENSE beside this file.
# --------------------------------------------------------------------------------------------------


import operator

import torch
import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# Helpers the code below imports from the liger_kernel package, copied verbatim at the same commit
# from src/liger_kernel/ops/utils.py: compare_version
# from src/liger_kernel/utils.py: infer_device, is_npu_available
# --------------------------------------------------------------------------------------------------


import importlib

from typing import Callable

from packaging.version import Version


def compare_version(package: str, operator: Callable, target: str):
    try:
        pkg = importlib.import_module(package)
    except ImportError:
        return False
    pkg_version = Version(pkg.__version__)
    return operator(pkg_version, Version(target))


def infer_device():
    """
    Get current device name based on available devices
    """
    if torch.cuda.is_available():  # Works for both Nvidia and AMD
        return "cuda"
    # Use Ascend NPU if available (torch.npu)
    elif is_npu_available():
        return "npu"
    # XPU (Intel) if available
    elif torch.xpu.is_available():
        return "xpu"
    else:
        return "cpu"


def is_npu_available() -> bool:
    """Detect Ascend NPU availability."""
    try:
        from transformers.utils import is_torch_npu_available

        return is_torch_npu_available()
    except Exception:
        return False


# --------------------------------------------------------------------------------------------------
# src/liger_kernel/ops/group_norm.py continues
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

if infer_device() == "npu":
    MAX_FUSED_SIZE = 16384  # 8192
else:
    MAX_FUSED_SIZE = 65536


@triton.jit
def _group_norm_forward_kernel(
    Y_ptr,  # pointer to output, shape (n_rows, n_groups, hidden_size)
    Y_row_stride,  # stride of each row in output
    Y_col_stride,  # stride of each column in output
    X_ptr,  # pointer to input, shape (n_rows, n_groups, hidden_size)
    X_row_stride,  # stride of each row in input
    X_col_stride,  # stride of each column in input
    Mean_ptr,  # pointer to mean, shape (n_rows, n_groups)
    Mean_row_stride,  # stride of each row in mean
    Mean_col_stride,  # stride of each column in mean
    RSTD_ptr,  # pointer to rstd, shape (n_rows, n_groups)
    RSTD_row_stride,  # stride of each row in rstd
    RSTD_col_stride,  # stride of each column in rstd
    W_ptr,  # pointer to W
    B_ptr,  # pointer to B
    hidden_size,  # hidden size of X
    channels_per_group,  # the number of channels per group
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    """
    References:
    https://nn.labml.ai/normalization/group_norm/index.html
    """
    batch_idx = tl.program_id(0)
    group_idx = tl.program_id(1)

    X_ptr += batch_idx * X_row_stride + group_idx * X_col_stride
    Y_ptr += batch_idx * Y_row_stride + group_idx * Y_col_stride

    block_range = tl.arange(0, BLOCK_SIZE)

    # Compute mean and variance using the online algorithm
    s = 0.0
    squared_sum = 0.0
    for i in tl.range(0, hidden_size, BLOCK_SIZE):
        hidden_size_offsets = i + block_range
        mask = hidden_size_offsets < hidden_size
        X = tl.load(X_ptr + hidden_size_offsets, mask=mask, other=0.0)
        s += tl.sum(X)
        # X**2
        squared_sum += tl.sum(X * X)

    m = s / hidden_size

    # variance = E[X**2] - E[X]**2
    variance = (squared_sum / hidden_size) - (m * m)

    # 1/std
    rstd = rsqrt(variance + eps.to(tl.float32))

    # Normalize — flat loop over full hidden_size (not per-channel)
    # This avoids the nested channel × per_channel_hidden loop where
    # BLOCK_SIZE >> hidden_size_per_channel causes massive padding waste.
    hidden_size_per_channel = hidden_size // channels_per_group
    for i in tl.range(0, hidden_size, BLOCK_SIZE):
        hidden_size_offsets = i + block_range
        mask = hidden_size_offsets < hidden_size
        X = tl.load(X_ptr + hidden_size_offsets, mask=mask, other=m)
        # Determine which channel each element belongs to, then load W/B
        local_channel = hidden_size_offsets // hidden_size_per_channel
        global_channel = group_idx * channels_per_group + local_channel
        W = tl.load(W_ptr + global_channel, mask=mask)
        B = tl.load(B_ptr + global_channel, mask=mask)
        Y = (X - m) * rstd * W + B
        tl.store(Y_ptr + hidden_size_offsets, Y, mask=mask)

    tl.store(Mean_ptr + batch_idx * Mean_row_stride + group_idx * Mean_col_stride, m)
    tl.store(RSTD_ptr + batch_idx * RSTD_row_stride + group_idx * RSTD_col_stride, rstd)


def group_norm_forward(X, num_channels, num_groups, W, B, eps):
    shape = X.shape
    batch_size = shape[0]
    channels_per_group = num_channels // num_groups
    # Reshape X so that the mean and std are computed across the groups
    X = X.view(batch_size, num_groups, -1).contiguous()
    hidden_size = X.shape[-1]
    BLOCK_SIZE = min(4096, MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))
    Y = torch.empty((batch_size, num_groups, hidden_size), dtype=X.dtype, device=X.device)
    Mean = torch.zeros((batch_size, num_groups), dtype=X.dtype, device=X.device)
    RSTD = torch.zeros((batch_size, num_groups), dtype=X.dtype, device=X.device)

    _group_norm_forward_kernel[(batch_size, num_groups)](
        Y,
        Y.stride(0),
        Y.stride(1),
        X,
        X.stride(0),
        X.stride(1),
        Mean,
        Mean.stride(0),
        Mean.stride(1),
        RSTD,
        RSTD.stride(0),
        RSTD.stride(1),
        W,
        B,
        hidden_size,
        channels_per_group,
        eps,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=16,
    )
    # Return tensors in the original shape
    return Y.view(*shape), X.view(*shape), Mean, RSTD, BLOCK_SIZE


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


NUM_GROUPS = 32
EPS = 1e-6


def launch(X, W, B):
    Y, X, Mean, RSTD, BLOCK_SIZE = group_norm_forward(X, X.shape[1], NUM_GROUPS, W, B, EPS)
    return Y, Mean, RSTD


def reference(X, W, B):
    Xg = X.double().view(X.shape[0], NUM_GROUPS, -1)
    mean = Xg.mean(-1)
    rstd = torch.rsqrt(Xg.var(-1, unbiased=False) + EPS)
    Y = torch.nn.functional.group_norm(X.double(), NUM_GROUPS, W.double(), B.double(), EPS)
    return Y.to(X.dtype), mean.to(X.dtype), rstd.to(X.dtype)


def _inputs(device, batch, channels, height, width):
    X = torch.randn(batch, channels, height, width, device=device, dtype=torch.float32)
    W = 1.0 + 0.1 * torch.randn(channels, device=device, dtype=torch.float32)
    B = 0.1 * torch.randn(channels, device=device, dtype=torch.float32)
    return (X, W, B)


def make_inputs(device):
    return _inputs(device, 16, 512, 64, 64)  # X and Y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 2, 64, 3, 5)  # 2 channels x 15 pixels = 30 elements per group: a 32-wide block, 2 lanes masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # 2 channels x 15 pixels = 30 elements per group: a 32-wide block, 2 lanes masked
        _inputs(device, 3, 96, 7, 9),  # 3 channels x 63 pixels = 189 elements per group: a 256-wide block, 67 lanes masked
        _inputs(device, 1, 64, 1, 1),  # a batch of 1, one pixel: groups of 2 elements (the fewest group_norm allows), a 2-wide block
    ]


def bytes_moved(X, W, B):
    stats = 2 * X.shape[0] * NUM_GROUPS * X.element_size()
    return 2 * X.numel() * X.element_size() + (W.numel() + B.numel()) * W.element_size() + stats


def flops(X, W, B):
    return 7 * X.numel()  # sum, square, sum, then subtract, scale, weight, bias


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}


INTERPRETER_XFAIL = (
    "Triton 3.6's interpreter does not run "
    "libdevice functions (rsqrt; triton-lang/triton#8825). With these patched locally (float "
    "arguments passed as fp32 scalars, libdevice replaced by tl.math equivalents) the entry "
    "matches its reference"
)
