"""Inclusive cumsum over the last dimension of a (512, 128256) fp32 matrix (525 MB moved), FlagGems `cumsum`.

Provenance: FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553:src/flag_gems/ops/cumsum.py,
Apache-2.0 (SPDX: Apache-2.0), "Copyright © 2024 BAAI. All rights reserved." (the repository's
LICENSE; the upstream source files carry no license header). Copied verbatim: `get_num_sms`,
`get_scan_accum_type`, `scan_part_sum_abc_kernel`, `add_base_sum_abc_kernel`, `scan_then_fan` (the K
> 1 column scan), `cumsum_wrapper`, `reduce_then_scan_row` and its three kernels
(`reduce_then_scan_block_sum_kernel_row`, `reduce_then_scan_root_scan_kernel_row`,
`reduce_then_scan_block_scan_kernel_row`) and the wrapper `cumsum`. A row longer than 16384 takes
the three-kernel reduce-then-scan path: per-CTA block sums over up to 4 * NUM_SMS CTAs per row, a
scan of those sums, then each CTA rescans its tiles with the prefix. Changed: `@libentry()`
(flag_gems.utils.libentry, a launch cache in front of the JIT that skips re-binding arguments) is
dropped from every kernel; the other decorators are as upstream. Imports of FlagGems helpers are
replaced by copies: `torch_device_fn = torch.cuda` (what FlagGems resolves on NVIDIA),
`get_device_properties` (flag_gems.utils.triton_driver_helper binds
`torch_device_fn.get_device_properties`), `tle.program_id` (verbatim from
src/flag_gems/utils/triton_lang_extension.py) and `device = "cuda"` (flag_gems.runtime.device.name
on NVIDIA). Left out: the non-NVIDIA backends' cumsum overrides (not used on NVIDIA),
`scan_part_sum_kernel`/`add_base_sum_kernel`/ `scan_then_fan_col` (no caller in `cumsum`),
`cumsum_out` and `normed_cumsum`.

`reduce_then_scan_row` launches its block-sum kernel on a 4-element grid, which the compiled
launcher accepts (it reads the first three) and Triton's interpreter rejects: INTERPRETER_XFAIL
below (verified under the interpreter with the grid cut to three dimensions).
"""
import functools
import logging
import math
import types

import torch
import triton
import triton.language as tl
from torch._prims_common import is_boolean_dtype, is_integer_dtype

# ---- copied from FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553 (Apache-2.0, Copyright © 2024 BAAI.
# All rights reserved.; the upstream files carry no license header)

# flag_gems.runtime.torch_device_fn: on NVIDIA, backend.gen_torch_device_object() evaluates `torch.cuda`
torch_device_fn = torch.cuda

# flag_gems.utils.triton_driver_helper on NVIDIA
get_device_properties = torch_device_fn.get_device_properties


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


# src/flag_gems/ops/cumsum.py


device = "cuda"  # upstream: `device = device.name`, flag_gems.runtime.device.name on NVIDIA
logger = logging.getLogger(__name__)


@functools.lru_cache
def get_num_sms(idx: int) -> int:
    return get_device_properties(idx).multi_processor_count


@tl.constexpr
def get_scan_accum_type(inp_dtype: tl.dtype) -> tl.dtype:
    if inp_dtype.is_bf16() or inp_dtype.is_fp16():
        return tl.float32
    if inp_dtype.is_int():  # signed or not(including bool)
        return tl.int64
    else:
        return inp_dtype


@triton.jit(do_not_specialize=["part_num"])
def scan_part_sum_abc_kernel(
    inp,
    out,
    partial_sum,
    B,
    C,
    part_num,
    BLOCK_SIZE: tl.constexpr,
):
    pid_a = tle.program_id(0)
    pid_b = tle.program_id(1)
    pid_c = tle.program_id(2)

    a_idx = pid_a
    b_idx = pid_b * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    c_idx = pid_c

    offset = a_idx * B * C + b_idx * C + c_idx
    base_part_offset = a_idx * part_num * C + c_idx
    part_offset = base_part_offset + pid_b * C

    mask = b_idx < B
    inp_ptrs = inp + offset
    inp_vals = tl.load(inp_ptrs, mask=mask)
    if (
        tl.constexpr(inp_vals.dtype.is_int64())
        or tl.constexpr(inp_vals.dtype.is_uint64())
    ) or tl.constexpr(inp_vals.dtype.is_fp64()):
        inp_vals = inp_vals
    elif tl.constexpr(inp_vals.dtype.is_int()):
        inp_vals = inp_vals.to(tl.int32)
    else:
        inp_vals = inp_vals.to(tl.float32)
    result = tl.cumsum(inp_vals, axis=0)

    part_sum_via_sum = tl.sum(inp_vals)

    out_ptrs = out + offset
    tl.store(out_ptrs, result, mask=mask)

    partial_sum_ptrs = partial_sum + part_offset
    tl.store(partial_sum_ptrs, part_sum_via_sum)


@triton.jit(do_not_specialize=["part_num"])
def add_base_sum_abc_kernel(
    out,
    partial_sum,
    B,
    C,
    part_num,
    BLOCK_SIZE: tl.constexpr,
):
    pid_a = tle.program_id(0)
    pid_b = tle.program_id(1)
    pid_c = tle.program_id(2)

    a_idx = pid_a
    b_idx = pid_b * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    c_idx = pid_c

    base_offset = a_idx * B * C + c_idx
    offset = base_offset + b_idx * C
    base_part_offset = a_idx * part_num * C + c_idx
    last_part_offset = base_part_offset + (pid_b - 1) * C

    mask = b_idx < B
    out_ptrs = out + offset
    out_vals = tl.load(out_ptrs, mask=mask)

    if pid_b > 0:
        partial_sum_ptrs = partial_sum + last_part_offset
        last_part_sum_via_sum = tl.load(partial_sum_ptrs)

        final_vals = out_vals + last_part_sum_via_sum
        tl.store(out_ptrs, final_vals.to(out_vals.dtype), mask=mask)


def scan_then_fan(inp, out, A, B, C, dtype):
    # TODO(all): tune on target board
    BLOCK_SIZE = 1024
    if B <= 1024 * 4:
        BLOCK_SIZE = triton.next_power_of_2(B)
    part_num = math.ceil(B / BLOCK_SIZE)
    partial_sum = torch.empty(A, part_num, C, dtype=dtype, device=inp.device)

    grid = (A, part_num, C)
    with torch_device_fn.device(inp.device):
        scan_part_sum_abc_kernel[grid](
            inp, out, partial_sum, B, C, part_num, BLOCK_SIZE
        )

    if part_num >= 2:
        scan_then_fan(partial_sum, partial_sum, A, part_num, C, dtype)
        with torch_device_fn.device(inp.device):
            add_base_sum_abc_kernel[grid](out, partial_sum, B, C, part_num, BLOCK_SIZE)


def cumsum_wrapper(inp, dim=1, dtype=None, out=None):
    assert dim >= -inp.ndim and dim < inp.ndim, "Invalid dim"
    shape = inp.shape
    dim = dim % inp.ndim
    M = 1
    N = shape[dim]
    for i in range(dim):
        M *= shape[i]
    inp = inp.contiguous()
    K = inp.numel() // M // N

    if dtype is None:
        dtype = inp.dtype
        if is_integer_dtype(dtype) or is_boolean_dtype(dtype):
            dtype = torch.int64
    if out is None:
        out = torch.empty_like(inp, dtype=dtype)

    compute_dtype = out.dtype
    if inp.dtype == torch.float16 or inp.dtype == torch.bfloat16:
        compute_dtype = torch.float32

    if K == 1:  # row scan
        reduce_then_scan_row(inp, out, M, N, compute_dtype)
    else:  # col scan
        scan_then_fan(inp, out, M, N, K, compute_dtype)

    return out


def reduce_then_scan_row(x, out, M, N, compute_dtype):
    if N <= 16384:  # persistent
        TILE_SIZE = triton.next_power_of_2(N)
        num_warps = 8 if TILE_SIZE > 2048 else 4
        reduce_then_scan_root_scan_kernel_row[(M, 1, 1)](
            x, out, N, TILE_SIZE, num_warps=num_warps
        )
        return out

    TILE_SIZE = min(4096, triton.next_power_of_2(N))
    num_warps = 8 if TILE_SIZE > 2048 else 4
    num_tiles = triton.cdiv(N, TILE_SIZE)
    max_ctas = get_num_sms(x.device.index) * 4
    num_ctas = min(num_tiles, max_ctas)
    ROOT_SCAN_TILE_SIZE = triton.next_power_of_2(num_ctas)
    tiles_per_cta = triton.cdiv(num_tiles, num_ctas)
    block_sums = torch.empty(
        (
            M,
            num_ctas,
        ),
        dtype=compute_dtype,
        device=x.device,
    )
    block_inclusive_prefix = torch.empty(
        (
            M,
            num_ctas,
        ),
        dtype=compute_dtype,
        device=x.device,
    )

    # 3-kernel implementation
    reduce_then_scan_block_sum_kernel_row[(M, num_ctas, 1, 1)](
        x, block_sums, N, tiles_per_cta, TILE_SIZE, num_warps=num_warps
    )
    reduce_then_scan_root_scan_kernel_row[(M, 1, 1)](
        block_sums,
        block_inclusive_prefix,
        num_ctas,
        ROOT_SCAN_TILE_SIZE,
        num_warps=num_warps,
    )
    reduce_then_scan_block_scan_kernel_row[(M, num_ctas, 1)](
        x,
        block_inclusive_prefix,
        out,
        N,
        num_ctas,
        tiles_per_cta,
        TILE_SIZE,
        num_warps=num_warps,
    )
    return out


@triton.jit
def reduce_then_scan_block_sum_kernel_row(
    in_ptr,
    block_sum_ptr,
    N,
    tiles_per_cta,
    TILE_SIZE: tl.constexpr,
):
    """The same kernel as the block sum in parallel reduce"""
    pid_n = tl.program_id(1).to(tl.int64)
    pid_m = tl.program_id(0).to(tl.int64)
    num_programs_n = tl.num_programs(1)
    block_offset = pid_n * (tiles_per_cta * TILE_SIZE)
    block_end = min(block_offset + tiles_per_cta * TILE_SIZE, N)

    acc_dtype: tl.constexpr = get_scan_accum_type(in_ptr.type.element_ty)
    acc = tl.zeros((TILE_SIZE,), dtype=acc_dtype)
    for start in range(block_offset, block_end, TILE_SIZE):
        offsets = start + tl.arange(0, TILE_SIZE)
        x = tl.load(in_ptr + pid_m * N + offsets, mask=offsets < N).to(acc_dtype)
        acc += x
    block_sum = tl.sum(acc, 0)
    tl.store(
        block_sum_ptr + pid_m * num_programs_n + pid_n, block_sum, cache_modifier=".cg"
    )


@triton.jit
def reduce_then_scan_root_scan_kernel_row(in_ptr, out_ptr, N, TILE_SIZE: tl.constexpr):
    """Almost The same kernel as the persistent scan kernel"""
    pid = tl.program_id(0).to(tl.int64)
    offsets = tl.arange(0, TILE_SIZE)
    mask = offsets < N
    acc_dtype: tl.constexpr = get_scan_accum_type(in_ptr.type.element_ty)
    x = tl.load(in_ptr + pid * N + offsets, mask=mask, other=0).to(acc_dtype)
    out = tl.cumsum(x, 0)
    tl.store(out_ptr + pid * N + offsets, out, mask=mask)


@triton.jit
def reduce_then_scan_block_scan_kernel_row(
    in_ptr,
    previous_sum_ptr,
    out_ptr,
    N,
    num_tiles_n,
    tiles_per_cta,
    TILE_SIZE: tl.constexpr,
):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    block_offset = pid_n * (tiles_per_cta * TILE_SIZE)
    block_end = min(block_offset + tiles_per_cta * TILE_SIZE, N)
    acc_dtype: tl.constexpr = get_scan_accum_type(in_ptr.type.element_ty)

    prefix = tl.load(
        previous_sum_ptr + pid_m * num_tiles_n + pid_n - 1, mask=pid_n > 0, other=0
    ).to(acc_dtype)
    for start in range(block_offset, block_end, TILE_SIZE):
        offsets = start + tl.arange(0, TILE_SIZE)
        mask = offsets < N
        x = tl.load(in_ptr + pid_m * N + offsets, mask=mask).to(acc_dtype)
        tile_scan = prefix + tl.cumsum(x, 0)
        prefix += tl.sum(x, 0)
        tl.store(
            out_ptr + pid_m * N + offsets, tile_scan, mask=mask, cache_modifier=".cg"
        )


def cumsum(inp, dim=1, *, dtype=None):
    logger.debug("GEMS CUMSUM")
    return cumsum_wrapper(inp, dim, dtype)


# ---- end of the copied code; what follows is this project's task interface


INTERPRETER_XFAIL = ("reduce_then_scan_row launches reduce_then_scan_block_sum_kernel_row with a 4-element grid "
                     "(M, num_ctas, 1, 1): the compiled launcher reads grid[0:3] and ignores the rest, the "
                     "interpreter asserts 'grid must have at most 3 dimensions'")


def launch(x):
    return cumsum(x, dim=-1)


def reference(x):
    return torch.cumsum(x.double(), dim=-1).to(x.dtype)


def torch_baseline(x):
    return torch.cumsum(x, dim=-1)


def _inputs(device, M, N):
    # top-p sampling's cumulative probabilities over a vocabulary
    return (torch.softmax(torch.randn(M, N, device=device, dtype=torch.float32), dim=-1), )


def make_inputs(device):
    return _inputs(device, 512, 128256)


def make_small_inputs(device):
    return _inputs(device, 2, 20000)  # > 16384: the three-kernel path, 5 tiles of 4096 per row, the last masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            _inputs(device, 3, 6151),  # <= 16384: the persistent one-kernel path, one 8192 tile per row, 2041 masked
            _inputs(device, 1, 16385)]  # one row, the shortest that takes the three-kernel path: a 1-element last tile


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


def flops(x):
    return x.numel()


TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}
