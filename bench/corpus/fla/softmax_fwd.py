"""Row softmax (FLA `softmax_fwd`) of a (16384, 4096) bf16 matrix into fp32 probabilities: 16k rows of 4096 scores.

Provenance: fla-org/flash-linear-attention@bc3b101dcb713ddc5bd8924b66754eb68b5ccf89:fla/ops/utils/softmax.py
(MIT, Copyright (c) 2023-2026, Songlin Yang, Yu Zhang, Zhiyuan Li). Copied verbatim:
`NUM_WARPS_AUTOTUNE`, the kernel `softmax_fwd_kernel` (`@triton.autotune` over num_warps keyed on
D, the whole row of B = next_power_of_2(D) columns in one program) and the wrapper `softmax_fwd`
(output dtype fp32 by default). Left out: the backward kernel and `softmax_bwd`. The package
imports are replaced by verbatim copies of what they name: `exp` from fla/ops/utils/op.py (the
default branch, FLA_USE_FAST_OPS unset, dedented out of its `if`/`else`), `autotune_cache_kwargs`
from fla/utils/_compat.py with `FLA_CACHE_RESULTS` from fla/utils/_config.py; `IS_AMD` (from
fla/utils/_device.py, where it compares the Triton backend with 'hip') is False here, as on an
NVIDIA GPU.

The launch: 16384 programs of one 4096-column row each; without a GPU tritondx compiles the first
autotune config, num_warps = 1.
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
# fla/ops/utils/op.py (FLA_USE_FAST_OPS unset): exp
# --------------------------------------------------------------------------------------------------
@triton.jit
def exp(x): return tl.exp(x.to(tl.float32))


# --------------------------------------------------------------------------------------------------
# fla/ops/utils/softmax.py, verbatim
# --------------------------------------------------------------------------------------------------
NUM_WARPS_AUTOTUNE = [1, 2, 4, 8, 16] if IS_AMD else [1, 2, 4, 8, 16, 32]


@triton.autotune(
    configs=[
        triton.Config({}, num_warps=num_warps)
        for num_warps in NUM_WARPS_AUTOTUNE
    ],
    key=['D'],
    **autotune_cache_kwargs,
)
@triton.jit
def softmax_fwd_kernel(
    x,
    p,
    D: tl.constexpr,
    B: tl.constexpr,
):
    i_n = tl.program_id(0).to(tl.int64)
    o_d = tl.arange(0, B)
    m_d = o_d < D

    b_x = tl.load(x + i_n * D + o_d, mask=m_d, other=-float('inf'))
    b_m = tl.max(b_x, 0)
    b_x = exp(b_x - b_m)
    b_p = b_x / tl.sum(b_x, 0)

    tl.store(p + i_n * D + o_d, b_p.to(p.dtype.element_ty), mask=m_d)


def softmax_fwd(
    x: torch.Tensor,
    dtype: torch.dtype | None = torch.float,
) -> torch.Tensor:
    shape = x.shape
    x = x.view(-1, x.shape[-1])

    N, D = x.shape
    B = triton.next_power_of_2(D)

    p = torch.empty_like(x, dtype=dtype)
    softmax_fwd_kernel[(N,)](
        x=x,
        p=p,
        D=D,
        B=B,
    )
    return p.view(*shape)


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


def launch(x):
    return softmax_fwd(x)


def reference(x):
    return torch.softmax(x.float(), dim=-1)


def _inputs(device, rows, cols):
    return (3.0 * torch.randn(rows, cols, device=device, dtype=torch.float32)).to(torch.bfloat16),


def make_inputs(device):
    return _inputs(device, 16384, 4096)  # x: 134 MB in, p: 268 MB out (fp32)


def make_small_inputs(device):
    return _inputs(device, 6, 1000)  # a 1024-wide block, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # 6 x 1000: a 1024-wide block, the last 24 columns masked
        _inputs(device, 7, 2053),  # a prime width: a 4096-wide block, 2043 columns masked
        _inputs(device, 1, 4096),  # one row at the realistic width: one program, the block exactly full
    ]


def bytes_moved(x):
    return x.numel() * (x.element_size() + 4)


def flops(x):
    return 5 * x.numel()  # max, subtract, exp, sum, divide


TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}

