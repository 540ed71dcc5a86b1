"""Scatter of new tokens' K/V into the token-indexed KV cache (LightLLM `destindex_copy_kv`): 32768 tokens x 16 heads (8 K + 8 V, Llama-3-8B) x 128 bf16 written to the cache slots a 32768-entry index names.

Provenance: ModelTC/lightllm@fc72ffab9a3455cfb571f22d45ab777cc29de0de:lightllm/common/basemodel/triton_kernel/destindex_copy_kv.py
(Apache-2.0; the file carries no copyright line, and the repository's LICENSE is the Apache License
2.0 text with its notice left unfilled). Copied verbatim: the kernel `_fwd_kernel_destindex_copy_kv`
(one program per token: all heads x head_dim of that token to row DestLoc[token] of the cache) and
the wrapper `destindex_copy_kv` (`@torch.no_grad()`, BLOCK_HEAD = next_power_of_2(heads),
num_warps 1, num_stages 1). Left out: the quantizing variant and the file's tests. Nothing in the
kernel or the wrapper changed.

The cache: upstream writes into LightLLM's preallocated KV buffer. Here the buffer has exactly as
many slots as there are new tokens and DestLoc is a permutation of them, so `launch` can allocate
it empty and every slot is written once (a real cache is larger and keeps the other slots; copying
such a buffer in `launch` would cost more than the kernel).
"""
import torch

import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# lightllm/common/basemodel/triton_kernel/destindex_copy_kv.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.jit
def _fwd_kernel_destindex_copy_kv(
    K,
    Dest_loc,
    Out,
    stride_k_bs,
    stride_k_h,
    stride_k_d,
    stride_o_bs,
    stride_o_h,
    stride_o_d,
    head_num,
    BLOCK_DMODEL: tl.constexpr,
    BLOCK_HEAD: tl.constexpr,
):
    cur_index = tl.program_id(0)
    offs_h = tl.arange(0, BLOCK_HEAD)
    offs_d = tl.arange(0, BLOCK_DMODEL)

    dest_index = tl.load(Dest_loc + cur_index).to(tl.int64)

    k_ptrs = K + cur_index * stride_k_bs + stride_k_h * offs_h[:, None] + stride_k_d * offs_d[None, :]
    o_ptrs = Out + dest_index * stride_o_bs + stride_o_h * offs_h[:, None] + stride_o_d * offs_d[None, :]

    k = tl.load(k_ptrs, mask=offs_h[:, None] < head_num, other=0.0)
    tl.store(o_ptrs, k, mask=offs_h[:, None] < head_num)
    return


@torch.no_grad()
def destindex_copy_kv(K, DestLoc, Out):
    seq_len = DestLoc.shape[0]
    head_num = K.shape[1]
    head_dim = K.shape[2]
    assert K.shape[1] == Out.shape[1] and K.shape[2] == Out.shape[2]
    BLOCK_HEAD = triton.next_power_of_2(head_num) * 2
    grid = (seq_len,)
    num_warps = 1

    _fwd_kernel_destindex_copy_kv[grid](
        K,
        DestLoc,
        Out,
        K.stride(0),
        K.stride(1),
        K.stride(2),
        Out.stride(0),
        Out.stride(1),
        Out.stride(2),
        head_num,
        BLOCK_DMODEL=head_dim,
        BLOCK_HEAD=BLOCK_HEAD,
        num_warps=2,
        num_stages=4,
    )
    return


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


def launch(kv, dest_loc):
    cache = torch.empty_like(kv)
    destindex_copy_kv(kv, dest_loc, cache)
    return cache


def reference(kv, dest_loc):
    cache = torch.empty_like(kv)
    cache[dest_loc.long()] = kv
    return cache


def _inputs(device, tokens, heads, head_dim):
    kv = torch.randn(tokens, heads, head_dim, device=device, dtype=torch.bfloat16)
    g = torch.Generator().manual_seed(0)
    dest_loc = torch.randperm(tokens, generator=g, dtype=torch.int64).to(torch.int32).to(device)
    return (kv, dest_loc)


def make_inputs(device):
    return _inputs(device, 32768, 16, 128)  # kv: 134 MB read, 134 MB written


def make_small_inputs(device):
    return _inputs(device, 40, 12, 32)  # 12 heads in a 16-row block


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            _inputs(device, 37, 5, 64),  # 37 tokens, 5 heads in an 8-row block (head_dim must be a power of two)
            _inputs(device, 1, 1, 16)]  # one token of one head: BLOCK_HEAD = 1, a one-slot cache


def bytes_moved(kv, dest_loc):
    return 2 * kv.numel() * kv.element_size() + dest_loc.numel() * dest_loc.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
