"""Argmax over the last dimension of (1024, 128256) fp32 logits (525 MB read), FlagGems `argmax`.

Provenance: FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553:src/flag_gems/ops/argmax.py,
Apache-2.0 (SPDX: Apache-2.0), "Copyright © 2024 BAAI. All rights reserved." (the repository's
LICENSE; the upstream source files carry no license header). Copied verbatim: `argmax_kernel_1`,
`argmax_kernel_2` (the dim=None path), `argmax_kernel` and the wrapper `argmax` (with a dim:
`argmax_kernel` on a (cdiv(M, BLOCK_M), K) grid, each program looping over the row in BLOCK_N chunks
with `tl.max(..., return_indices=True)`; BLOCK_M and BLOCK_N from `@triton.heuristics`). Changed:
`@libentry()` (flag_gems.utils.libentry, a launch cache in front of the JIT that skips re-binding
arguments) is dropped from every kernel; the other decorators are as upstream. Imports of FlagGems
helpers are replaced by copies: the NVIDIA argmax heuristics (verbatim from
src/flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py, `HEURISTICS_CONFIGS` cut to its
"argmax" entry), a `runtime` class standing in for `flag_gems.runtime.get_heuristic_config`,
`torch_device_fn = torch.cuda` (what FlagGems resolves on NVIDIA), `tle.program_id` (verbatim from
src/flag_gems/utils/triton_lang_extension.py) and `get_dtype_min` (verbatim from
src/flag_gems/utils/limits.py).

`get_dtype_min` reads `dtype.value`, which Triton's interpreter does not provide for a dtype
argument: INTERPRETER_XFAIL below (verified under the interpreter with `tl.dtype.value` patched in).
"""
import logging
import math
import types

import torch
import triton
import triton.language as tl

# ---- copied from FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553 (Apache-2.0, Copyright © 2024 BAAI.
# All rights reserved.; the upstream files carry no license header)


# src/flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py (the heuristics used below)


def argmax_heur_block_m(args):
    return 4 if args["M"] < 4096 else 8


def argmax_heur_block_n(args):
    return min(4096, triton.next_power_of_2(args["N"]))


HEURISTICS_CONFIGS = {
    "argmax": {
        "BLOCK_M": argmax_heur_block_m,
        "BLOCK_N": argmax_heur_block_n,
    },
}


class runtime:
    """flag_gems.runtime on NVIDIA, reduced to the heuristics look-up the decorators below make
    (flag_gems/runtime/configloader.py: ConfigLoader.get_heuristics_config returns the vendor's
    HEURISTICS_CONFIGS[op_name])."""

    @staticmethod
    def get_heuristic_config(op_name):
        return HEURISTICS_CONFIGS[op_name]


# flag_gems.runtime.torch_device_fn: on NVIDIA, backend.gen_torch_device_object() evaluates `torch.cuda`
torch_device_fn = torch.cuda


# flag_gems.utils.triton_lang_extension (imported upstream as `tle`): the one function of it these
# kernels call, verbatim from src/flag_gems/utils/triton_lang_extension.py, held in a module object
# so that the kernels' `tle.program_id(...)` reads as upstream.
@triton.jit
def program_id(
    axis: int,
) -> tl.tensor:
    return tl.program_id(axis).to(tl.int64)


tle = types.ModuleType("flag_gems.utils.triton_lang_extension")
tle.program_id = program_id


# src/flag_gems/utils/limits.py


@triton.jit
def get_dtype_min(dtype):
    """get a value which is less that all other values of that dtype"""
    dtype_ = dtype.value  # tl.dtype
    if dtype_.is_floating():
        value: tl.constexpr = float("-inf")
        return value
    if dtype_.is_int_signed():
        width: tl.constexpr = dtype_.int_bitwidth
        value: tl.constexpr = -1 * 2 ** (width - 1)
        return value
    if dtype_.is_int_unsigned():
        value: tl.constexpr = 0
        return value


# src/flag_gems/ops/argmax.py


logger = logging.getLogger(__name__)


@triton.jit
def argmax_kernel_1(
    inp,
    mid_value,
    mid_index,
    M,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tle.program_id(0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inp_ptrs = inp + offset
    mask = offset < M
    min_value = get_dtype_min(inp.type.element_ty)
    inp_val = tl.load(inp_ptrs, mask=mask, other=min_value)
    max_val, max_index = tl.max(inp_val, axis=0, return_indices=True)
    max_index = max_index + pid * BLOCK_SIZE
    mid_value_ptr = mid_value + pid
    max_index_ptr = mid_index + pid
    tl.store(mid_value_ptr, max_val)
    tl.store(max_index_ptr, max_index)


@triton.jit
def argmax_kernel_2(mid_value, mid_index, out, mid_size, BLOCK_MID: tl.constexpr):
    offset = tl.arange(0, BLOCK_MID)
    mid_ptrs = mid_value + offset
    mask = offset < mid_size
    min_value = get_dtype_min(mid_value.type.element_ty)
    mid_val = tl.load(mid_ptrs, mask=mask, other=min_value)
    index_val = tl.argmax(mid_val, axis=0)
    mid_index_ptrs = mid_index + index_val
    out_val = tl.load(mid_index_ptrs)
    tl.store(out, out_val)


@triton.heuristics(runtime.get_heuristic_config("argmax"))
@triton.jit
def argmax_kernel(
    inp,
    out_index,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # set offset
    pid_m = tle.program_id(0)
    pid_k = tle.program_id(1)
    m_offset = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)

    dtype = inp.type.element_ty
    acc_type = tl.float32 if dtype is tl.bfloat16 else dtype
    min_value = get_dtype_min(dtype)
    max_values = tl.full([BLOCK_M], dtype=acc_type, value=min_value)
    argmax_values = tl.full([BLOCK_M], dtype=tl.int64, value=0)
    for start_n in range(0, N, BLOCK_N):
        n_offset = start_n + tl.arange(0, BLOCK_N)
        offset = m_offset[:, None] * N * K + n_offset[None, :] * K + pid_k
        mask = m_offset[:, None] < M and n_offset[None, :] < N
        inp_ptrs = inp + offset
        inp_vals = tl.load(inp_ptrs, mask=mask, other=min_value)
        local_max, local_argmax = tl.max(
            inp_vals, 1, return_indices=True, return_indices_tie_break_left=True
        )
        # if return indices is not supported, call a tl.argmax in addition
        # local_argmax = tl.argmax(inp_vals, 1)
        update = local_max > max_values
        max_values = tl.where(update, local_max, max_values)
        argmax_values = tl.where(update, start_n + local_argmax, argmax_values)

    offset_index = m_offset * K + pid_k
    out_index_ptrs = out_index + offset_index
    mask1 = m_offset < M
    tl.store(out_index_ptrs, argmax_values, mask=mask1)


def argmax(inp, dim=None, keepdim=False, *, dtype=None):
    logger.debug("GEMS ARGMAX")
    if dim is None:
        M = inp.numel()
        if dtype is None:
            dtype = inp.dtype
        block_size = triton.next_power_of_2(math.ceil(math.sqrt(M)))
        mid_size = triton.cdiv(M, block_size)
        block_mid = triton.next_power_of_2(mid_size)

        mid_value = torch.empty((mid_size,), dtype=dtype, device=inp.device)
        mid_index = torch.empty((mid_size,), dtype=torch.int64, device=inp.device)
        if keepdim:
            shape = list(inp.shape)
            for i in range(0, inp.dim()):
                shape[i] = 1
            out = torch.empty(shape, dtype=torch.int64, device=inp.device)
        else:
            out = torch.empty([], dtype=torch.int64, device=inp.device)

        with torch_device_fn.device(inp.device):
            argmax_kernel_1[(mid_size, 1, 1)](
                inp,
                mid_value,
                mid_index,
                M,
                block_size,
            )
            argmax_kernel_2[(1, 1, 1)](mid_value, mid_index, out, mid_size, block_mid)
        return out
    else:
        assert dim >= -inp.ndim and dim < inp.ndim, "Invalid dim"
        shape = inp.shape
        dim = dim % inp.ndim
        if inp.numel() == 0:
            out_shape = list(shape)
            if keepdim:
                out_shape[dim] = 1
            else:
                del out_shape[dim]
            return torch.zeros(out_shape, dtype=torch.int64, device=inp.device)
        N = shape[dim]
        M = math.prod(shape[:dim])
        K = inp.numel() // M // N

        inp = inp.contiguous()

        shape_list = list(shape)
        shape_list[dim] = 1
        out_index = torch.empty(shape_list, dtype=torch.int64, device=inp.device)
        if not keepdim:
            out_index = torch.squeeze(out_index, dim)

        grid = lambda meta: (
            triton.cdiv(M, meta["BLOCK_M"]),
            K,
        )
        with torch_device_fn.device(inp.device):
            argmax_kernel[grid](
                inp,
                out_index,
                M,
                N,
                K,
            )

        return out_index


# ---- end of the copied code; what follows is this project's task interface


INTERPRETER_XFAIL = ("get_dtype_min(inp.type.element_ty) reads `dtype.value`: compiled, a dtype passed to a "
                     "@triton.jit function arrives as a constexpr; under TRITON_INTERPRET=1 it is a bare tl.dtype "
                     "(AttributeError: 'dtype' object has no attribute 'value')")


def launch(x):
    return argmax(x, dim=-1)


def reference(x):
    return torch.argmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(1024, 128256, device=device, dtype=torch.float32), )  # greedy decoding over Llama-3's vocabulary


def make_small_inputs(device):
    return (torch.randn(3, 5000, device=device, dtype=torch.float32), )  # two 4096-wide chunks per row, the second masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            # 7 rows (BLOCK_M = 4: the second row block half masked) of 131 (one 256 chunk, 125 columns masked)
            (torch.randn(7, 131, device=device, dtype=torch.float32), ),
            # one row of one element: BLOCK_N = 1, three of the four BLOCK_M rows masked
            (torch.randn(1, 1, device=device, dtype=torch.float32), )]


def bytes_moved(x):
    return x.numel() * x.element_size() + x.shape[0] * 8


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
