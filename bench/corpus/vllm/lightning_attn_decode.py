"""Linear-attention decode step with a decaying KV state (vLLM `linear_decode_forward_triton`, MiniMax-Text-01's lightning attention): 256 requests x 8 heads (64 heads at tensor parallel 8) x 128, fp32, each request's [128, 128] state updated in place.

For each request b and head h, with ratio = exp(-slope[h]) and the state S = kv_caches[slot_idx[b], h]:
S' = k^T v + ratio * S, out = q S' (q, k, v one token each). The state is written back.

Provenance: vllm-project/vllm@030ea52effcb05071543c8c42b8f0145e94cee43:vllm/model_executor/layers/lightning_attn.py
(Apache-2.0, "Copyright contributors to the vLLM project"). The text is the file as released in
vllm 0.34.0 on PyPI (the commit is the index's stored version of that text: the repository is too
large to fetch here, so its place on main was not checked). Copied verbatim: the kernel
`_linear_attn_decode_kernel` (a program per (request, head, 32-column block of the state)) and its
wrapper `linear_decode_forward_triton`. Left out: the prefill kernels of the file. The imports are
replaced: `tl`, `triton` by the plain imports `vllm.triton_utils` re-exports; `PAD_SLOT_ID` by its
value (-1, vllm/v1/attention/backends/utils.py); einops' `rearrange` by a stand-in for the one
pattern the wrapper uses ("b h n d -> b n (h d)", a permute and a reshape).

In place upstream: the kernel overwrites the request's state in kv_caches, and `launch` calls the
wrapper as vLLM does and returns the output with kv_caches. The task names kv_caches in `MUTATES`:
the harness verifies `launch` on a copy of it and times the kernel on kv_caches itself, putting it
back between calls outside the timed region (docs/task-format.md, "Kernels that update their
inputs").

How vLLM calls it (vllm/model_executor/layers/mamba/linear_attn.py, `_decode_infer`): q, k, v
[B, H, 1, D] fp32, kv_caches [slots, H, D, D] fp32, slope_rate [H, 1, 1], slot_idx [B] int32,
BLOCK_SIZE 32: grid (256, 8, 4), default num_warps (4).
"""
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

import torch
import triton  # (from vllm.triton_utils import tl, triton: the plain imports it re-exports)
import triton.language as tl

PAD_SLOT_ID = -1  # vllm/v1/attention/backends/utils.py


def rearrange(tensor, pattern):
    # stand-in for einops.rearrange, for the one pattern linear_decode_forward_triton uses
    assert pattern == "b h n d -> b n (h d)"
    b, h, n, d = tensor.shape
    return tensor.permute(0, 2, 1, 3).reshape(b, n, h * d)


# --------------------------------------------------------------------------------------------------
# vllm/model_executor/layers/lightning_attn.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.jit
def _linear_attn_decode_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    kv_cache_ptr,
    slope_rate,
    slot_idx,
    output_ptr,
    D: tl.constexpr,
    qkv_b_stride,
    qkv_h_stride,
    cache_b_stride,
    cache_h_stride,
    cache_d0_stride,
    cache_d1_stride,
    pad_slot_id: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """Kernel for linear attention decoding with KV cache.

    This kernel computes attention for a single token using the KV cache.
    """
    pid_b = tl.program_id(0)  # batch index
    pid_h = tl.program_id(1)  # head index
    pid_d = tl.program_id(2)  # dimension block index

    # Load slot index for the current batch
    slot_id = tl.load(slot_idx + pid_b).to(tl.int64)

    # Skip if slot_id is PAD_SLOT_ID (padding)
    if slot_id == pad_slot_id:
        return

    batch_id = pid_b
    head_id = pid_h

    # Load decay rate for the current head
    ratio = tl.load(slope_rate + pid_h)

    # Calculate offsets for dimensions
    qk_d_offsets = tl.arange(0, D)
    v_d_offsets = tl.arange(0, BLOCK_SIZE) + pid_d * BLOCK_SIZE
    cache_d_offsets = (
        qk_d_offsets[:, None] * cache_d0_stride + v_d_offsets[None, :] * cache_d1_stride
    )

    # Calculate offsets for the current batch and head
    q_offset = batch_id * qkv_b_stride + head_id * qkv_h_stride
    k_offset = batch_id * qkv_b_stride + head_id * qkv_h_stride
    v_offset = batch_id * qkv_b_stride + head_id * qkv_h_stride

    cache_offset = slot_id * cache_b_stride + head_id * cache_h_stride

    # Create masks for loading tensors
    qk_mask = qk_d_offsets < D
    v_mask = v_d_offsets < D

    # Load query, key, and value tensors
    q = tl.load(q_ptr + q_offset + qk_d_offsets, mask=qk_mask, other=0.0)
    k = tl.load(k_ptr + k_offset + qk_d_offsets, mask=qk_mask, other=0.0)
    v = tl.load(v_ptr + v_offset + v_d_offsets, mask=v_mask, other=0.0)

    # Compute key-value outer product
    kv_outer = k[:, None] * v[None, :]
    kv_mask = qk_mask[:, None] & v_mask[None, :]

    # Apply decay to previous KV cache
    ratio = tl.exp(-ratio)
    kv_ptr = kv_cache_ptr + cache_offset + cache_d_offsets
    kv_cache_old = tl.load(kv_ptr, mask=kv_mask, other=0.0)
    kv_outer = kv_outer + ratio * kv_cache_old

    # Compute attention output
    output = q[:, None].to(tl.float32) * kv_outer
    output = tl.sum(output, axis=0)

    # Update KV cache and store output
    tl.store(kv_ptr, kv_outer, mask=kv_mask)
    tl.store(output_ptr + q_offset + v_d_offsets, output, mask=v_mask)


def linear_decode_forward_triton(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    kv_caches: torch.Tensor,
    slope_rate: torch.Tensor,
    slot_idx: torch.Tensor,
    BLOCK_SIZE: int = 32,
) -> torch.Tensor:
    """Perform linear attention decoding using Triton kernels.

    Args:
        q: Query tensor of shape [B, H, 1, D]
        k: Key tensor of shape [B, H, 1, D]
        v: Value tensor of shape [B, H, 1, D]
        kv_caches: Key-value cache tensor
        slope_rate: Decay rate tensor
        slot_idx: Slot indices for batches
        BLOCK_SIZE: Size of blocks for processing

    Returns:
        output: Attention output tensor

    """
    B, H, _, D = q.shape
    assert k.shape == (B, H, 1, D)
    assert v.shape == (B, H, 1, D)

    # Initialize output tensor
    output = torch.empty_like(q)

    # Set grid dimensions for the kernel
    grid = (B, H, D // BLOCK_SIZE)

    # Calculate strides for tensors
    qkv_b_stride = q.stride(0)
    qkv_h_stride = q.stride(1)

    cache_b_stride = kv_caches.stride(0)
    cache_h_stride = kv_caches.stride(1)
    cache_d0_stride = kv_caches.stride(2)
    cache_d1_stride = kv_caches.stride(3)

    # Launch the kernel
    _linear_attn_decode_kernel[grid](
        q,
        k,
        v,
        kv_caches,
        slope_rate,
        slot_idx,
        output,
        D,
        qkv_b_stride,
        qkv_h_stride,
        cache_b_stride,
        cache_h_stride,
        cache_d0_stride,
        cache_d1_stride,
        pad_slot_id=PAD_SLOT_ID,
        BLOCK_SIZE=BLOCK_SIZE,
    )

    # Reshape output and return
    output = rearrange(output, "b h n d -> b n (h d)")
    return output.squeeze(1).contiguous()


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


MUTATES = ("kv_caches",)


def launch(q, k, v, kv_caches, slope_rate, slot_idx):
    out = linear_decode_forward_triton(q, k, v, kv_caches, slope_rate, slot_idx, 32)
    return out, kv_caches


def reference(q, k, v, kv_caches, slope_rate, slot_idx):
    B, H, _, D = q.shape
    slots = slot_idx.long()
    ratio = torch.exp(-slope_rate.reshape(1, H, 1, 1))
    state = kv_caches[slots]  # [B, H, D, D]
    new = k.transpose(-1, -2) @ v + ratio * state  # [B, H, D, D]
    out = (q @ new).reshape(B, H, D).reshape(B, H * D)
    caches = kv_caches.clone()
    caches[slots] = new.to(caches.dtype)
    return out.to(q.dtype), caches


def _inputs(device, B, H, D, slots):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, H, 1, D, device=device, dtype=torch.float32)
    k = torch.randn(B, H, 1, D, device=device, dtype=torch.float32)
    v = torch.randn(B, H, 1, D, device=device, dtype=torch.float32)
    kv_caches = 0.1 * torch.randn(slots, H, D, D, device=device, dtype=torch.float32)
    # MiniMax's ALiBi-like slopes: 2 ** (-8 (h + 1) / H_total)
    slope_rate = torch.tensor([2 ** (-8 * (h + 1) / 64) for h in range(H)], dtype=torch.float32).reshape(H, 1, 1)
    slot_idx = torch.randperm(slots, generator=g, dtype=torch.int64)[:B].to(torch.int32)
    return (q, k, v, kv_caches, slope_rate.to(device), slot_idx.to(device))


def make_inputs(device):
    return _inputs(device, 256, 8, 128, 256)  # the states: 134 MB read, 134 MB written


def make_small_inputs(device):
    return _inputs(device, 3, 2, 64, 5)  # two 32-column blocks; 3 of 5 slots used


def make_test_inputs(device):
    # the shapes every candidate is also verified at (D must be a power of two and a multiple of the 32-column
    # BLOCK_SIZE): the small input, then
    return [make_small_inputs(device),
            _inputs(device, 5, 3, 32, 6),  # 5 requests x 3 heads, D = 32 (one column block), 5 of 6 slots
            _inputs(device, 1, 1, 128, 1)]  # one request, one head, one slot, at the model's D = 128 (4 blocks)


def bytes_moved(q, k, v, kv_caches, slope_rate, slot_idx):
    B, H, _, D = q.shape
    return 2 * B * H * D * D * 4 + 4 * B * H * D * 4 + H * 4 + B * 4


def flops(q, k, v, kv_caches, slope_rate, slot_idx):
    B, H, _, D = q.shape
    return 5 * B * H * D * D  # outer product, decay and add, q-weighted sum


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
