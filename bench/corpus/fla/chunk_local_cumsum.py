"""Chunk-local cumulative sum (FLA `chunk_local_cumsum`, the vector form) of fp32 gates g of shape (8, 4096, 16, 128) [B, T, H, S] in chunks of 64 along T, as GLA's chunked kernels need it.

Provenance: fla-org/flash-linear-attention@bc3b101dcb713ddc5bd8924b66754eb68b5ccf89:fla/ops/utils/cumsum.py
(MIT, Copyright (c) 2023-2026, Songlin Yang, Yu Zhang, Zhiyuan Li). Copied verbatim: `BS_LIST`,
the kernels `chunk_local_cumsum_scalar_kernel` and `chunk_local_cumsum_vector_kernel` (each under
`@triton.heuristics` and FLA's `@fla_cache_autotune`), the wrappers `chunk_local_cumsum_scalar`,
`chunk_local_cumsum_vector` and the entry point `chunk_local_cumsum` (`@input_guard`,
`@dispatch('utils')`), which `launch` calls. Left out: the chunk-global variants. The package
imports are replaced by verbatim copies of the helpers they name (`check_shared_mem` with
`get_all_max_shared_mem`, `Backend`, `_cpu_device_warning` from fla/utils/_device.py;
`input_guard` with its helpers from fla/utils/_decorators.py; `autotune_cache_kwargs`), and by
stand-ins said below: `dispatch` (a pass-through, what it does on NVIDIA), `fla_cache_autotune`
(= `triton.autotune`, what it is with FLA_CACHE_MODE unset) and `prepare_chunk_indices` (only the
varlen path, with `cu_seqlens`, calls it; not copied).

The launch: grid (cdiv(S, BS), T / 64, B * H) = (4 or 2, 64, 128); BS_LIST is [32, 64] where
the GPU has more than 100 KB of shared memory per block (an H100/H200 does), [16, 32] elsewhere.
Without a GPU tritondx compiles the first autotune config (BS = 32, num_warps = 2).
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


import warnings
from enum import Enum
from functools import cache


# --------------------------------------------------------------------------------------------------
# fla/utils/_device.py (same commit): device_torch_lib (its value on an NVIDIA GPU), custom_device_ctx
# (the PyTorch >= 2.4 branch, dedented)
# fla/utils/_decorators.py (same commit), verbatim: _skip_contiguous, _contiguous_if_needed, input_guard
# --------------------------------------------------------------------------------------------------
import contextlib
import functools
from collections.abc import Callable
from typing import Any

device_torch_lib = getattr(torch, 'cuda')


def custom_device_ctx(index: int):
    if index is None:
        return contextlib.nullcontext()
    try:
        return device_torch_lib.device(index)
    except (AttributeError, AssertionError, RuntimeError):
        return contextlib.nullcontext()


def _skip_contiguous(
    no_guard_contiguous: bool | list[str] | tuple[str, ...] | set[str],
    param_name: str,
    skip_params: set[str],
) -> bool:
    return no_guard_contiguous is True or param_name in skip_params


def _contiguous_if_needed(arg: Any, skip: bool) -> Any:
    if isinstance(arg, torch.Tensor) and not skip:
        return arg.contiguous()
    return arg


def input_guard(
    fn: Callable[..., torch.Tensor] | None = None,
    *,
    no_guard_contiguous: bool | list[str] | tuple[str, ...] | set[str] = False,
) -> Callable[[Callable[..., torch.Tensor]], Callable[..., torch.Tensor]] | Callable[..., torch.Tensor]:
    """
    A decorator to make sure all input tensors are contiguous and set the device based on input tensors.

    Args:
        no_guard_contiguous (bool | list[str] | tuple[str, ...] | set[str]):
            If True, skip all contiguous checks. If a list/tuple/set of parameter names, skip contiguous check for those parameters.
    """

    def decorator(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
        # Get function signature for parameter name mapping
        sig = inspect.signature(fn)
        param_names = list(sig.parameters.keys())
        skip_params = set(no_guard_contiguous) if isinstance(no_guard_contiguous, (list, tuple, set)) else set()

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            # Process args with parameter name mapping
            processed_args = []
            for i, arg in enumerate(args):
                if i < len(param_names):
                    param_name = param_names[i]
                else:
                    # For *args beyond signature, use position as name
                    param_name = f"__arg_{i}"

                processed_args.append(_contiguous_if_needed(
                    arg, _skip_contiguous(no_guard_contiguous, param_name, skip_params)))

            # Process kwargs
            processed_kwargs = {}
            for k, v in kwargs.items():
                processed_kwargs[k] = _contiguous_if_needed(v, _skip_contiguous(no_guard_contiguous, k, skip_params))

            tensor = None
            for arg in args:
                if isinstance(arg, torch.Tensor):
                    tensor = arg
                    break
            if tensor is None:
                for value in kwargs.values():
                    if isinstance(value, torch.Tensor):
                        tensor = value
                        break

            if tensor is not None:
                ctx = custom_device_ctx(tensor.device.index)
            else:
                ctx = contextlib.nullcontext()

            with ctx:
                return fn(*processed_args, **processed_kwargs)

        return wrapper

    # Handle direct usage without parentheses: @input_guard
    if fn is not None:
        return decorator(fn)

    return decorator


# fla/utils/_device.py (same commit), verbatim: _cpu_device_warning, get_all_max_shared_mem, Backend,
# check_shared_mem
def _cpu_device_warning():
    warnings.warn(('Triton is not supported on current platform, roll back to CPU.'), stacklevel=2)


def get_all_max_shared_mem():
    try:
        return [
            triton.runtime.driver.active.utils.get_device_properties(i)['max_shared_mem']
            for i in range(device_torch_lib.device_count())
        ]
    except Exception:
        _cpu_device_warning()
        return [-1]


class Backend(Enum):
    ADA = 101376       # RTX 4090
    AMPERE = 166912    # A100
    HOPPER = 232448    # H100
    DEFAULT = 102400   # Default

    @classmethod
    def get_shared_memory(cls, arch: str) -> int:
        try:
            return cls[arch.upper()].value
        except KeyError:
            return cls.DEFAULT.value


@cache
def check_shared_mem(arch: str = "none", tensor_idx: int = 0) -> bool:
    try:
        device_shared_mem_list = get_all_max_shared_mem()
        max_shared_memory = device_shared_mem_list[tensor_idx]
        return max_shared_memory >= Backend.get_shared_memory(arch)
    except Exception:
        return False


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


def prepare_chunk_indices(cu_seqlens, chunk_size):
    # fla/ops/utils/index.py; only the varlen path (cu_seqlens given) calls it, and this task has none
    raise NotImplementedError("varlen inputs are not part of this task")


# --------------------------------------------------------------------------------------------------
# fla/ops/utils/cumsum.py, verbatim
# --------------------------------------------------------------------------------------------------
BS_LIST = [32, 64] if check_shared_mem() else [16, 32]


@triton.heuristics({
    'HAS_SCALE': lambda args: args['scale'] is not None,
    'IS_VARLEN': lambda args: args['cu_seqlens'] is not None,
})
@fla_cache_autotune(
    configs=[
        triton.Config({}, num_warps=num_warps)
        for num_warps in [1, 2, 4, 8]
    ],
    key=['B', 'H', 'BT', 'IS_VARLEN', 'REVERSE'],
    **autotune_cache_kwargs,
)
@triton.jit(do_not_specialize=['T'])
def chunk_local_cumsum_scalar_kernel(
    s,
    o,
    scale,
    cu_seqlens,
    chunk_indices,
    T,
    B: tl.constexpr,
    H: tl.constexpr,
    BT: tl.constexpr,
    REVERSE: tl.constexpr,
    HAS_SCALE: tl.constexpr,
    IS_VARLEN: tl.constexpr,
):
    i_t, i_bh = tl.program_id(0).to(tl.int64), tl.program_id(1).to(tl.int64)
    i_b, i_h = i_bh // H, i_bh % H
    if IS_VARLEN:
        i_n, i_t = tl.load(chunk_indices + i_t * 2).to(tl.int32), tl.load(chunk_indices + i_t * 2 + 1).to(tl.int64)
        bos, eos = tl.load(cu_seqlens + i_n).to(tl.int64), tl.load(cu_seqlens + i_n + 1).to(tl.int64)
        T = eos - bos
    else:
        bos, eos = i_b * T, i_b * T + T

    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T
    p_s = s + bos*H + i_h + o_t * H
    p_o = o + bos*H + i_h + o_t * H
    # [BT]
    b_s = tl.load(p_s, mask=m_t, other=0.0).to(tl.float32)
    if REVERSE:
        b_o = tl.cumsum(b_s, axis=0, reverse=True)
    else:
        b_o = tl.cumsum(b_s, axis=0)
    if HAS_SCALE:
        b_o *= scale
    tl.store(p_o, b_o.to(p_o.dtype.element_ty), mask=m_t)


@triton.heuristics({
    'HAS_SCALE': lambda args: args['scale'] is not None,
    'IS_VARLEN': lambda args: args['cu_seqlens'] is not None,
})
@fla_cache_autotune(
    configs=[
        triton.Config({'BS': BS}, num_warps=num_warps)
        for BS in BS_LIST
        for num_warps in [2, 4, 8]
    ],
    key=['B', 'H', 'S', 'BT', 'IS_VARLEN', 'REVERSE'],
    **autotune_cache_kwargs,
)
@triton.jit(do_not_specialize=['T'])
def chunk_local_cumsum_vector_kernel(
    s,
    o,
    scale,
    cu_seqlens,
    chunk_indices,
    T,
    B: tl.constexpr,
    H: tl.constexpr,
    S: tl.constexpr,
    BT: tl.constexpr,
    BS: tl.constexpr,
    REVERSE: tl.constexpr,
    HAS_SCALE: tl.constexpr,
    IS_VARLEN: tl.constexpr,
):
    i_s, i_t, i_bh = tl.program_id(0), tl.program_id(1).to(tl.int64), tl.program_id(2).to(tl.int64)
    i_b, i_h = i_bh // H, i_bh % H
    if IS_VARLEN:
        i_n, i_t = tl.load(chunk_indices + i_t * 2).to(tl.int32), tl.load(chunk_indices + i_t * 2 + 1).to(tl.int64)
        bos, eos = tl.load(cu_seqlens + i_n).to(tl.int64), tl.load(cu_seqlens + i_n + 1).to(tl.int64)
        T = eos - bos
    else:
        bos, eos = i_b * T, i_b * T + T

    o_t = i_t * BT + tl.arange(0, BT)
    o_s = i_s * BS + tl.arange(0, BS)
    m_s = (o_t[:, None] < T) & (o_s[None, :] < S)
    p_s = s + (bos * H + i_h) * S + o_t[:, None] * (H*S) + o_s[None, :]
    p_o = o + (bos * H + i_h) * S + o_t[:, None] * (H*S) + o_s[None, :]
    # [BT, BS]
    b_s = tl.load(p_s, mask=m_s, other=0.0).to(tl.float32)
    if REVERSE:
        b_o = tl.cumsum(b_s, axis=0, reverse=True)
    else:
        b_o = tl.cumsum(b_s, axis=0)
    if HAS_SCALE:
        b_o *= scale
    tl.store(p_o, b_o.to(p_o.dtype.element_ty), mask=m_s)


def chunk_local_cumsum_scalar(
    g: torch.Tensor,
    chunk_size: int,
    reverse: bool = False,
    scale: float = None,
    cu_seqlens: torch.Tensor | None = None,
    output_dtype: torch.dtype | None = torch.float,
    chunk_indices: torch.LongTensor | None = None,
    **kwargs,
) -> torch.Tensor:
    if 'head_first' in kwargs:
        raise DeprecationWarning(
            "head_first has been removed. Inputs must be in `[B, T, H, ...]` format.",
        )
    B, T, H = g.shape
    assert chunk_size == 2**(chunk_size.bit_length()-1), "chunk_size must be a power of 2"
    BT = chunk_size
    if chunk_indices is None and cu_seqlens is not None:
        chunk_indices = prepare_chunk_indices(cu_seqlens, BT)
    NT = triton.cdiv(T, BT) if cu_seqlens is None else len(chunk_indices)
    g_org, g = g, torch.empty_like(g, dtype=output_dtype or g.dtype)
    grid = (NT, B * H)
    chunk_local_cumsum_scalar_kernel[grid](
        s=g_org,
        o=g,
        scale=scale,
        cu_seqlens=cu_seqlens,
        chunk_indices=chunk_indices,
        T=T,
        B=B,
        H=H,
        BT=BT,
        REVERSE=reverse,
    )
    return g


def chunk_local_cumsum_vector(
    g: torch.Tensor,
    chunk_size: int,
    reverse: bool = False,
    scale: float = None,
    cu_seqlens: torch.Tensor | None = None,
    output_dtype: torch.dtype | None = torch.float,
    chunk_indices: torch.LongTensor | None = None,
    **kwargs,
) -> torch.Tensor:
    if 'head_first' in kwargs:
        raise DeprecationWarning(
            "head_first has been removed. Inputs must be in `[B, T, H, ...]` format.",
        )
    B, T, H, S = g.shape
    BT = chunk_size
    if chunk_indices is None and cu_seqlens is not None:
        chunk_indices = prepare_chunk_indices(cu_seqlens, BT)
    NT = triton.cdiv(T, BT) if cu_seqlens is None else len(chunk_indices)
    assert chunk_size == 2**(chunk_size.bit_length()-1), "chunk_size must be a power of 2"

    g_org, g = g, torch.empty_like(g, dtype=output_dtype or g.dtype)
    def grid(meta): return (triton.cdiv(meta['S'], meta['BS']), NT, B * H)
    # keep cummulative normalizer in fp32
    # this kernel is equivalent to
    # g = g.view(B, H, NT, BT, -1).cumsum(-2).view(B, H, T, -1)
    chunk_local_cumsum_vector_kernel[grid](
        s=g_org,
        o=g,
        scale=scale,
        cu_seqlens=cu_seqlens,
        chunk_indices=chunk_indices,
        T=T,
        B=B,
        H=H,
        S=S,
        BT=BT,
        REVERSE=reverse,
    )
    return g


@input_guard
@dispatch('utils')
def chunk_local_cumsum(
    g: torch.Tensor,
    chunk_size: int,
    reverse: bool = False,
    scale: float = None,
    cu_seqlens: torch.Tensor | None = None,
    output_dtype: torch.dtype | None = torch.float,
    chunk_indices: torch.LongTensor | None = None,
    **kwargs,
) -> torch.Tensor:
    if 'head_first' in kwargs:
        raise DeprecationWarning(
            "head_first has been removed. Inputs must be in `[B, T, H, ...]` format.",
        )
    if cu_seqlens is not None:
        assert g.shape[0] == 1, "Only batch size 1 is supported when cu_seqlens are provided"
    if len(g.shape) == 3:
        return chunk_local_cumsum_scalar(
            g=g,
            chunk_size=chunk_size,
            reverse=reverse,
            scale=scale,
            cu_seqlens=cu_seqlens,
            output_dtype=output_dtype,
            chunk_indices=chunk_indices,
        )
    elif len(g.shape) == 4:
        return chunk_local_cumsum_vector(
            g=g,
            chunk_size=chunk_size,
            reverse=reverse,
            scale=scale,
            cu_seqlens=cu_seqlens,
            output_dtype=output_dtype,
            chunk_indices=chunk_indices,
        )
    else:
        raise ValueError(
            f"Unsupported input shape {g.shape}, "
            f"which should be (B, T, H) or (B, T, H, D)",
        )


# ==================================================================================================
# What this project adds: the task around the upstream entry point.
# ==================================================================================================

CHUNK_SIZE = 64


def launch(g):
    return chunk_local_cumsum(g, chunk_size=CHUNK_SIZE)


def reference(g):
    B, T, H, S = g.shape
    NT = -(-T // CHUNK_SIZE)
    pad = NT * CHUNK_SIZE - T
    gp = torch.nn.functional.pad(g.float(), (0, 0, 0, 0, 0, pad))
    out = gp.view(B, NT, CHUNK_SIZE, H, S).cumsum(2).view(B, NT * CHUNK_SIZE, H, S)
    return out[:, :T]


def _inputs(device, B, T, H, S):
    # log-space decays, as GLA feeds them: logsigmoid of a projection, divided by a normalizer
    return torch.nn.functional.logsigmoid(torch.randn(B, T, H, S, device=device, dtype=torch.float32)) / 16,


def make_inputs(device):
    return _inputs(device, 8, 4096, 16, 128)  # g: 268 MB in, 268 MB out (fp32)


def make_small_inputs(device):
    return _inputs(device, 2, 100, 3, 40)  # T = 100: a partial second chunk; S = 40: masked feature blocks


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # T = 100: a partial second chunk; S = 40: masked feature blocks
        _inputs(device, 2, 131, 2, 37),  # T = 131: two full chunks and one of 3 steps; S = 37: a second BS block of 5
        _inputs(device, 1, 1, 1, 1),  # a length-1 sequence, one head, one feature: a chunk of one step, a BS block of one
    ]


def bytes_moved(g):
    return 2 * g.numel() * 4


def flops(g):
    return g.numel()


TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}

