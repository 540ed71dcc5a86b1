"""Attention forward O = softmax(Q K^T / sqrt(D)) V, non-causal, fp16 with fp32 accumulation:
batch 4, 32 heads, sequence 2048, head dim 128, contiguous [B, H, S, D] tensors.

Provenance: the online-softmax (FlashAttention-1 style) forward in its simplest form, as
the Triton tutorial "Fused Attention" (06-fused-attention.py) builds it before its
refinements: one program per (batch x head, block of 64 queries) that keeps its Q block in
registers and loops over key/value blocks of 64, with a running row max, a running sum of
exponentials, rescaling of the fp32 accumulator, and one division at the end.

Weaknesses: fixed 64x64 blocks with the default 4 warps and 3 stages, no autotuning (the
tutorial autotunes BLOCK_M in {64, 128}, BLOCK_N in {32, 64, 128}, 4 or 8 warps, 2-4
stages); the first wgmma's result is waited for at once, so the QK^T MMA, the softmax and
the PV MMA of an iteration run one after another; the scores are scaled, then given to
tl.exp (ex2 after a multiply by log2(e)), where one multiply by scale * log2(e) and exp2
would do; masks on every K/V load though 2048 divides the blocks; no
warp specialization, TMA, or ping-pong of two query tiles to overlap softmax with MMA.
"""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, S,
                         stride_qb, stride_qh, stride_qs, stride_qd,
                         stride_kb, stride_kh, stride_ks, stride_kd,
                         stride_vb, stride_vh, stride_vs, stride_vd,
                         stride_ob, stride_oh, stride_os, stride_od,
                         H, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)

    q_ptrs = q_ptr + b * stride_qb + h * stride_qh + offs_m[:, None] * stride_qs + offs_d[None, :] * stride_qd
    k_base = k_ptr + b * stride_kb + h * stride_kh
    v_base = v_ptr + b * stride_vb + h * stride_vh

    q = tl.load(q_ptrs, mask=offs_m[:, None] < S, other=0.0)

    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)

    for start_n in range(0, S, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[:, None] * stride_ks + offs_d[None, :] * stride_kd,
                    mask=cols[:, None] < S, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(cols[None, :] < S, qk, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]

        v = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :] * stride_vd,
                    mask=cols[:, None] < S, other=0.0)
        acc += tl.dot(p.to(tl.float16), v)
        m_i = m_new

    acc = acc / l_i[:, None]
    o_ptrs = o_ptr + b * stride_ob + h * stride_oh + offs_m[:, None] * stride_os + offs_d[None, :] * stride_od
    tl.store(o_ptrs, acc.to(tl.float16), mask=offs_m[:, None] < S)


def launch(q, k, v):
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    grid = (triton.cdiv(S, 64), B * H)
    attention_fwd_kernel[grid](q, k, v, o, 1.0 / math.sqrt(D), S,
                               q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                               k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                               v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                               o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                               H, BLOCK_M=64, BLOCK_N=64, HEAD_DIM=D)
    return o


def reference(q, k, v):
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    return (torch.softmax(s, dim=-1) @ v.float()).to(torch.float16)


# What a user would call in PyTorch (the reference upcasts for accuracy).
def torch_baseline(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def _inputs(B, H, S, D, device):
    return tuple(torch.randn(B, H, S, D, device=device, dtype=torch.float16) for _ in range(3))


def make_inputs(device):
    return _inputs(4, 32, 2048, 128, device)


def make_small_inputs(device):
    return _inputs(2, 2, 67, 32, device)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime sequence at head dim 64, one token
    return [
        make_small_inputs(device),  # B 2, H 2, S 67, D 32: one full 64-block of queries and keys, then 3
        _inputs(1, 3, 97, 64, device),  # H 3, S 97 (prime): a full block and 33 of queries and keys
        _inputs(1, 1, 1, 128, device),  # one query and one key at the real head dim 128: 63 of 64 rows and keys masked
    ]


def flops(q, k, v):
    B, H, S, D = q.shape
    return 4 * B * H * S * S * D  # two GEMMs of 2*S*S*D each


def bytes_moved(q, k, v):
    return 4 * q.numel() * q.element_size()  # Q, K, V read once, O written once


# The outputs are averages of many values of V: at S = 2048 their std is about 0.04
# (non-causal), so the usual fp16 atol of 1e-2 would be a quarter of the signal. An fp32
# emulation of this kernel (P rounded to fp16 before the PV product) is within 1e-4
# (non-causal) and 1e-3 on the few large early rows (causal) of a float64 reference.
TOLERANCE = {"rtol": 1e-2, "atol": 1e-3}
