"""Logsumexp over the last dimension (FLA `logsumexp_fwd`) of (4096, 32000) bf16 logits: 4096 tokens over a 32k vocabulary, fp32 result.

Provenance: fla-org/flash-linear-attention@bc3b101dcb713ddc5bd8924b66754eb68b5ccf89:fla/ops/utils/logsumexp.py
(MIT, Copyright (c) 2023-2026, Songlin Yang, Yu Zhang, Zhiyuan Li). Copied verbatim: the kernel
`logsumexp_fwd_kernel` (its `@triton.heuristics` and `@triton.autotune` over num_warps 1..32 keyed
on D) and the wrapper `logsumexp_fwd` (B = min(next_power_of_2(D), 64K) columns per program, a
second `z.logsumexp(-1)` in PyTorch over the ND partial results). The package imports are replaced by
verbatim copies of what they name: `exp` and `log` from fla/ops/utils/op.py (the default branch,
FLA_USE_FAST_OPS unset, dedented out of its `if`/`else`), `autotune_cache_kwargs` from
fla/utils/_compat.py with `FLA_CACHE_RESULTS` from fla/utils/_config.py, same commit.

The launch: D = 32000 gives B = 32768 (one block per row, ND = 1), 4096 programs; without a GPU
tritondx compiles the first autotune config, num_warps = 1.
"""
# Copyright (c) 2023-2026, Songlin Yang, Yu Zhang, Zhiyuan Li
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
# For a list of all contributors, visit:
#   https://github.com/fla-org/flash-linear-attention/graphs/contributors

import torch
import triton
import triton.language as tl

# --------------------------------------------------------------------------------------------------
# Helpers the code below imports from the fla package, copied verbatim at the same commit:
# fla/utils/_config.py: FLA_CACHE_RESULTS; fla/utils/_compat.py: SUPPORTS_AUTOTUNE_CACHE, autotune_cache_kwargs
# --------------------------------------------------------------------------------------------------
import inspect
import os

FLA_CACHE_RESULTS = os.getenv('FLA_CACHE_RESULTS', '1') == '1'

SUPPORTS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": FLA_CACHE_RESULTS} if SUPPORTS_AUTOTUNE_CACHE else {}


# --------------------------------------------------------------------------------------------------
# fla/ops/utils/op.py (FLA_USE_FAST_OPS unset): exp, log
# --------------------------------------------------------------------------------------------------
@triton.jit
def exp(x): return tl.exp(x.to(tl.float32))
@triton.jit
def log(x): return tl.log(x.to(tl.float32))


# --------------------------------------------------------------------------------------------------
# fla/ops/utils/logsumexp.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.heuristics({
    'HAS_SCALE': lambda args: args['scale'] is not None,
})
@triton.autotune(
    configs=[
        triton.Config({}, num_warps=num_warps)
        for num_warps in [1, 2, 4, 8, 16, 32]
    ],
    key=['D'],
    **autotune_cache_kwargs,
)
@triton.jit
def logsumexp_fwd_kernel(
    x,
    z,
    scale,
    D: tl.constexpr,
    B: tl.constexpr,
    HAS_SCALE: tl.constexpr,
):
    i_n, i_d = tl.program_id(0).to(tl.int64), tl.program_id(1).to(tl.int64)
    o_d = i_d * B + tl.arange(0, B)
    m_d = o_d < D

    b_x = tl.load(x + i_n * D + o_d, mask=m_d, other=-float('inf'))
    if HAS_SCALE:
        b_x = b_x * scale
    b_m = tl.max(b_x, 0)
    b_z = log(tl.sum(exp(b_x - b_m), 0)) + b_m
    tl.store(z + i_n * tl.cdiv(D, B) + i_d, b_z)


def logsumexp_fwd(
    x,
    scale: float | None = None,
    dtype: torch.dtype | None = None,
):
    r"""
    Compute the logsumexp of the input tensor over the last dimension.

    Args:
        x (Tensor):
            The input tensor of any shape.
        scale (Optional[float]):
            The scale applied to the input tensor. Default: `None`.
        dtype (Optional[torch.dtype]):
            The data type of the output tensor. Default: `None`.
    Returns:
        Tensor: The logsumexp of the input tensor.
    """

    shape = x.shape
    x = x.view(-1, shape[-1])
    N, D = x.shape
    B = min(triton.next_power_of_2(D), 64 * 1024)
    ND = triton.cdiv(D, B)

    z = x.new_empty(N, ND, dtype=torch.float)
    logsumexp_fwd_kernel[(N, ND)](
        x=x,
        z=z,
        scale=scale,
        D=D,
        B=B,
    )
    z = z.logsumexp(-1).view(*shape[:-1])
    if dtype is not None and dtype != torch.float:
        z = z.to(dtype)
    return z


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


def launch(x):
    return logsumexp_fwd(x)


def reference(x):
    return torch.logsumexp(x.float(), dim=-1)


def _inputs(device, rows, cols):
    return (4.0 * torch.randn(rows, cols, device=device, dtype=torch.float32)).to(torch.bfloat16),


def make_inputs(device):
    return _inputs(device, 4096, 32000)  # x: 262 MB


def make_small_inputs(device):
    return _inputs(device, 5, 1000)  # a 1024-wide block, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # 5 x 1000: a 1024-wide block, the last 24 columns masked
        _inputs(device, 7, 2053),  # a prime width: a 4096-wide block, 2043 columns masked
        _inputs(device, 1, 1),  # one row of one element: a 1-wide block, the logsumexp is the element itself
    ]


def bytes_moved(x):
    return x.numel() * x.element_size() + x.shape[0] * 4


def flops(x):
    return 4 * x.numel()  # max, subtract, exp, sum


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}

