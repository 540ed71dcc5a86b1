"""Grouped FP16 GEMM: four problems (M = 4096, 2048, 1024, 512; N = K = 4096) in one persistent launch, Triton tutorial 08.

Provenance: triton-lang/triton@7649d87cce6c12361bb9da234b9b227b2880b499:python/tutorials/08-grouped-gemm.py,
MIT (SPDX: MIT), "Copyright (c) 2023 - 2025 NVIDIA Corporation & Affiliates. All rights reserved."
(the file's own header, kept below; the repository's LICENSE adds "Copyright 2018-2020 Philippe
Tillet, Copyright 2020-2022 OpenAI"). Copied verbatim: `DEVICE`, `is_cuda`, `supports_tma`,
`num_sms`, the `@triton.autotune`d `grouped_matmul_kernel` (a fixed number NUM_SM of programs walk
the tiles of all problems; the A, B, C addresses are read from device tensors of `data_ptr()`s and
cast with `.to(tl.pointer_type(tl.float16))`) and its host function `group_gemm_fn`. Left out: the
TMA variant (`grouped_matmul_tma_kernel`, `group_gemm_tma_fn`), the module-level test and the
benchmark. Nothing in the kernel or the wrapper changed. The kernel assumes full tiles (no masks):
every M, N, K here is a multiple of the largest block (128).
"""
# Copyright (c) 2023 - 2025 NVIDIA Corporation & Affiliates. All rights reserved.
#
# Permission is hereby granted, free of charge, to any person obtaining
# a copy of this software and associated documentation files
# (the "Software"), to deal in the Software without restriction,
# including without limitation the rights to use, copy, modify, merge,
# publish, distribute, sublicense, and/or sell copies of the Software,
# and to permit persons to whom the Software is furnished to do so,
# subject to the following conditions:
#
# The above copyright notice and this permission notice shall be
# included in all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
# EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
# MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
# IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
# CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
# TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
# SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.

from typing import Optional
import torch

import triton
import triton.language as tl

# ---- copied from python/tutorials/08-grouped-gemm.py (MIT, Copyright (c) 2023 - 2025 NVIDIA Corporation & Affiliates)

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def supports_tma():
    return is_cuda() and torch.cuda.get_device_capability()[0] >= 9


def num_sms():
    if is_cuda():
        return torch.cuda.get_device_properties("cuda").multi_processor_count
    return 148


@triton.autotune(
    configs=[
        triton.Config({
            'BLOCK_SIZE_M': 128,
            'BLOCK_SIZE_N': 128,
            'BLOCK_SIZE_K': 32,
            'NUM_SM': 84,
        }),
        triton.Config({
            'BLOCK_SIZE_M': 128,
            'BLOCK_SIZE_N': 128,
            'BLOCK_SIZE_K': 32,
            'NUM_SM': 128,
        }),
        triton.Config({
            'BLOCK_SIZE_M': 64,
            'BLOCK_SIZE_N': 64,
            'BLOCK_SIZE_K': 32,
            'NUM_SM': 84,
        }),
        triton.Config({
            'BLOCK_SIZE_M': 64,
            'BLOCK_SIZE_N': 64,
            'BLOCK_SIZE_K': 32,
            'NUM_SM': 128,
        }),
        triton.Config({
            'BLOCK_SIZE_M': 128,
            'BLOCK_SIZE_N': 128,
            'BLOCK_SIZE_K': 64,
            'NUM_SM': num_sms(),
        }),
        triton.Config({
            'BLOCK_SIZE_M': 64,
            'BLOCK_SIZE_N': 128,
            'BLOCK_SIZE_K': 64,
            'NUM_SM': num_sms(),
        }),
    ],
    key=['group_size'],
)
@triton.jit
def grouped_matmul_kernel(
    # device tensor of matrices pointers
    group_a_ptrs,
    group_b_ptrs,
    group_c_ptrs,
    # device tensor of gemm sizes. its shape is [group_size, 3]
    # dim 0 is group_size, dim 1 is the values of <M, N, K> of each gemm
    group_gemm_sizes,
    # device tensor of leading dimension sizes. its shape is [group_size, 3]
    # dim 0 is group_size, dim 1 is the values of <lda, ldb, ldc> of each gemm
    g_lds,
    # number of gemms
    group_size,
    # number of virtual SM
    NUM_SM: tl.constexpr,
    # tile sizes
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        # get the gemm size of the current problem
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        # iterate through the tiles in the current gemm problem
        while (tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles):
            # pick up a tile from the current gemm problem
            k = gk
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            # figure out tile coordinates
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles

            # do regular gemm here
            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                # hint to Triton compiler to do proper loop pipelining
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                # assume full tile for now
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                accumulator += tl.dot(a, b)
                a_ptrs += BLOCK_SIZE_K
                b_ptrs += BLOCK_SIZE_K * ldb
            c = accumulator.to(tl.float16)

            offs_cm = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :]

            # assumes full tile for now
            tl.store(c_ptrs, c)

            # go to the next tile by advancing NUM_SM
            tile_idx += NUM_SM

        # get ready to go to the next gemm problem
        last_problem_end = last_problem_end + num_tiles


def group_gemm_fn(group_A, group_B):
    assert len(group_A) == len(group_B)
    group_size = len(group_A)

    A_addrs = []
    B_addrs = []
    C_addrs = []
    g_sizes = []
    g_lds = []
    group_C = []
    for i in range(group_size):
        A = group_A[i]
        B = group_B[i]
        assert A.shape[1] == B.shape[0]
        M, K = A.shape
        K, N = B.shape
        C = torch.empty((M, N), device=DEVICE, dtype=A.dtype)
        group_C.append(C)
        A_addrs.append(A.data_ptr())
        B_addrs.append(B.data_ptr())
        C_addrs.append(C.data_ptr())
        g_sizes += [M, N, K]
        g_lds += [A.stride(0), B.stride(0), C.stride(0)]

    # note these are device tensors
    d_a_ptrs = torch.tensor(A_addrs, device=DEVICE)
    d_b_ptrs = torch.tensor(B_addrs, device=DEVICE)
    d_c_ptrs = torch.tensor(C_addrs, device=DEVICE)
    d_g_sizes = torch.tensor(g_sizes, dtype=torch.int32, device=DEVICE)
    d_g_lds = torch.tensor(g_lds, dtype=torch.int32, device=DEVICE)
    # we use a fixed number of CTA, and it's auto-tunable
    grid = lambda META: (META['NUM_SM'], )
    grouped_matmul_kernel[grid](
        d_a_ptrs,
        d_b_ptrs,
        d_c_ptrs,
        d_g_sizes,
        d_g_lds,
        group_size,
    )

    return group_C


# ---- end of the copied code; what follows is this project's task interface
# The inputs are the flat tuple (A0, B0, A1, B1, ...); launch regroups them for group_gemm_fn.


def launch(*tensors):
    return tuple(group_gemm_fn(list(tensors[0::2]), list(tensors[1::2])))


def reference(*tensors):
    return tuple((a.float() @ b.float()).to(torch.float16) for a, b in zip(tensors[0::2], tensors[1::2]))


def torch_baseline(*tensors):
    return tuple(a @ b for a, b in zip(tensors[0::2], tensors[1::2]))


def _inputs(device, shapes):
    tensors = []
    for M, N, K in shapes:
        # the tutorial draws torch.rand; centred values keep fp16 sums over K = 4096 well inside range
        tensors.append(torch.rand((M, K), device=device, dtype=torch.float16) - 0.5)
        tensors.append(torch.rand((K, N), device=device, dtype=torch.float16) - 0.5)
    return tuple(tensors)


def make_inputs(device):
    return _inputs(device, [(4096, 4096, 4096), (2048, 4096, 4096), (1024, 4096, 4096), (512, 4096, 4096)])


def make_small_inputs(device):
    # every dim a multiple of the largest block of any config (M, N: 128; K: 64): the kernel assumes full tiles
    return _inputs(device, [(256, 128, 64), (128, 256, 128), (128, 128, 64)])  # 5 tiles of 128 x 128


def make_test_inputs(device):
    # the shapes every candidate is also verified at (the kernel has no masks: M, N stay multiples of 128 and K of 64,
    # the largest blocks of its configs; odd shapes are outside what the wrapper supports)
    return [
        make_small_inputs(device),  # 3 problems, 5 tiles of 128 x 128
        _inputs(device, [(128, 128, 192), (128, 128, 64), (128, 128, 128), (128, 128, 64)]),  # a group of 4 (another autotune key), K = 192: 3 K steps of 64, 6 of 32
        _inputs(device, [(128, 128, 64)]),  # a group of one problem: a single tile, a single K step of 64
    ]


def bytes_moved(*tensors):
    total = 0
    for a, b in zip(tensors[0::2], tensors[1::2]):
        M, K = a.shape
        N = b.shape[1]
        total += (M * K + K * N + M * N) * 2
    return total


def flops(*tensors):
    return sum(2 * a.shape[0] * b.shape[1] * a.shape[1] for a, b in zip(tensors[0::2], tensors[1::2]))


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
