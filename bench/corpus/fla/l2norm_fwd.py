"""L2 normalization over the last dimension (FLA `l2norm_fwd`) of bf16 q/k heads of shape (8, 4096, 16, 128): the per-head query/key norm of GatedDeltaNet-style layers.

Provenance: fla-org/flash-linear-attention@bc3b101dcb713ddc5bd8924b66754eb68b5ccf89:fla/modules/l2norm.py
(MIT, Copyright (c) 2023-2026, Songlin Yang, Yu Zhang, Zhiyuan Li). Copied verbatim: `BT_LIST`,
`NUM_WARPS_AUTOTUNE`, the forward kernels `l2norm_fwd_kernel1` (one row per program, for D > 512)
and `l2norm_fwd_kernel` (BT rows per program, `@fla_cache_autotune` over BT and num_warps, for
D <= 512) and the wrapper `l2norm_fwd` (`@dispatch('modules')`), which `L2NormFunction.forward`
calls as `launch` does. Left out: the backward kernels and wrapper, the autograd Function and the
module. The package imports are replaced by verbatim copies (`autotune_cache_kwargs`) and by
stand-ins said below: `dispatch` (a pass-through, what it does on NVIDIA), `fla_cache_autotune`
(= `triton.autotune`, what it is with FLA_CACHE_MODE unset) and `IS_AMD = False` (an NVIDIA GPU).

The launch: D = 128 takes the tiled kernel, grid cdiv(T, BT) over T = 524288 rows; without a GPU
tritondx compiles the first autotune config (BT = 8, num_warps = 1). It returns y and the per-row
rstd (fp32) that the backward reuses.
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

IS_AMD = False  # fla/utils/_device.py: (device_platform == 'hip'); an NVIDIA GPU here


# --------------------------------------------------------------------------------------------------
# Stand-ins, not copies: `dispatch` (fla.ops.backends / fla.modules.backends) picks a backend
# implementation by name and, on an NVIDIA GPU, calls the decorated Triton function itself;
# `fla_cache_autotune` (fla/ops/utils/cache.py) is Triton's autotuner that first looks for a tuned
# config in FLA's config cache, and with FLA_CACHE_MODE unset (its default, "disabled") it is
# Triton's autotuning unchanged.
# --------------------------------------------------------------------------------------------------
def dispatch(name):
    return lambda fn: fn


fla_cache_autotune = triton.autotune


# --------------------------------------------------------------------------------------------------
# fla/modules/l2norm.py, verbatim
# --------------------------------------------------------------------------------------------------
BT_LIST = [8, 16, 32, 64, 128]
NUM_WARPS_AUTOTUNE = [1, 2, 4, 8, 16] if IS_AMD else [1, 2, 4, 8, 16, 32]


@triton.autotune(
    configs=[triton.Config({}, num_warps=num_warps) for num_warps in NUM_WARPS_AUTOTUNE],
    key=["D"],
    **autotune_cache_kwargs,
)
@triton.jit
def l2norm_fwd_kernel1(
    x,
    y,
    rstd,
    eps,
    D,
    BD: tl.constexpr,
):
    i_t = tl.program_id(0).to(tl.int64)
    x += i_t * D
    y += i_t * D
    # Compute mean and variance
    cols = tl.arange(0, BD)
    mask = cols < D

    b_x = tl.load(x + cols, mask=mask, other=0.0).to(tl.float32)
    b_rstd = 1 / tl.sqrt(tl.sum(b_x * b_x) + eps)
    b_y = b_x * b_rstd
    tl.store(y + cols, b_y, mask=mask)
    tl.store(rstd + i_t, b_rstd)


@fla_cache_autotune(
    configs=[triton.Config({"BT": BT}, num_warps=num_warps) for num_warps in [1, 2, 4, 8, 16] for BT in BT_LIST],
    key=["D", "NB"],
    **autotune_cache_kwargs,
)
@triton.jit(do_not_specialize=["T"])
def l2norm_fwd_kernel(
    x,
    y,
    rstd,
    eps,
    T,
    D: tl.constexpr,
    BD: tl.constexpr,
    NB: tl.constexpr,
    BT: tl.constexpr,
):
    i_t = tl.program_id(0).to(tl.int64)
    o_t = i_t * BT + tl.arange(0, BT)
    o_d = tl.arange(0, BD)
    m_t = o_t < T
    m_x = m_t[:, None] & (o_d[None, :] < D)
    p_x = x + o_t[:, None] * D + o_d[None, :]
    p_y = y + o_t[:, None] * D + o_d[None, :]
    p_rstd = rstd + o_t

    b_x = tl.load(p_x, mask=m_x, other=0.0).to(tl.float32)
    b_rstd = 1 / tl.sqrt(tl.sum(b_x * b_x, 1) + eps)
    b_y = b_x * b_rstd[:, None]

    tl.store(p_y, b_y.to(p_y.dtype.element_ty), mask=m_x)
    tl.store(p_rstd, b_rstd.to(p_rstd.dtype.element_ty), mask=m_t)


@dispatch('modules')
def l2norm_fwd(
    x: torch.Tensor,
    eps: float = 1e-6,
    output_dtype: torch.dtype | None = None,
):
    x_shape_og = x.shape
    x = x.view(-1, x.shape[-1])
    # allocate output
    if output_dtype is None:
        y = torch.empty_like(x)
    else:
        y = torch.empty_like(x, dtype=output_dtype)
    assert y.stride(-1) == 1
    T, D = x.shape[0], x.shape[-1]
    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(D))
    if D > BD:
        raise RuntimeError("This layer doesn't support feature dim >= 64KB.")

    rstd = torch.empty((T,), dtype=torch.float32, device=x.device)
    if D <= 512:
        # NOTE(tylerr): Avoid excessive recompilation and autotuning by tolerating a larger range
        # of T before recompiling the kernel.
        # NB = triton.cdiv(T, 2048)
        NB = triton.cdiv(T, 2048 * 32)

        def grid(meta):
            return (triton.cdiv(T, meta["BT"]),)

        l2norm_fwd_kernel[grid](
            x=x,
            y=y,
            rstd=rstd,
            eps=eps,
            T=T,
            D=D,
            BD=BD,
            NB=NB,
        )
    else:
        l2norm_fwd_kernel1[(T,)](
            x=x,
            y=y,
            rstd=rstd,
            eps=eps,
            D=D,
            BD=BD,
        )
    return y.view(x_shape_og), rstd.view(x_shape_og[:-1])


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================

EPS = 1e-6


def launch(x):
    return l2norm_fwd(x, EPS)


def reference(x):
    xf = x.float()
    rstd = 1.0 / torch.sqrt((xf * xf).sum(-1) + EPS)
    return (xf * rstd[..., None]).to(x.dtype), rstd


def _inputs(device, B, T, H, D):
    return torch.randn(B, T, H, D, device=device, dtype=torch.bfloat16),


def make_inputs(device):
    return _inputs(device, 8, 4096, 16, 128)  # x and y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 2, 7, 3, 100)  # 42 rows (a partial last row block); D = 100 in a 128-wide block


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # 42 rows (a partial last row block); D = 100 in a 128-wide block
        _inputs(device, 3, 5, 2, 521),  # 30 rows, D = 521 > 512: the one-row kernel, a 1024-wide block, 503 masked
        _inputs(device, 1, 1, 1, 128),  # one row at the realistic head dim: one row block, all rows but the first masked
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size() + (x.numel() // x.shape[-1]) * 4


def flops(x):
    return 3 * x.numel()  # square, sum, scale


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}

