"""peel-causal-diagonal applies: causal attention whose key loop stops at the diagonal and masks
every block, in 32-row query blocks and 16-key blocks. The loop is split at pid_m * BLOCK_M: a copy
without the tl.where over the blocks before it (its bound tl.minimum(S, pid_m * BLOCK_M), the
diagonal term dropped from the tl.minimum), then the loop itself from pid_m * BLOCK_M over the two
diagonal blocks. The small inputs (S = 67) give programs with zero, two and four blocks before the
diagonal and a last, partial diagonal block."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_fwd_causal_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, S,
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

    # key blocks before the program's first row: the causal mask keeps them whole
    for start_n in range(0, tl.minimum(S, pid_m * BLOCK_M), BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[:, None] * stride_ks + offs_d[None, :] * stride_kd,
                    mask=cols[:, None] < S, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale

        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]

        v = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :] * stride_vd,
                    mask=cols[:, None] < S, other=0.0)
        acc += tl.dot(p.to(tl.float16), v)
        m_i = m_new

    # key blocks crossing the diagonal, masked
    for start_n in range(pid_m * BLOCK_M, tl.minimum(S, pid_m * BLOCK_M + BLOCK_M), BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[:, None] * stride_ks + offs_d[None, :] * stride_kd,
                    mask=cols[:, None] < S, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))

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
    grid = (triton.cdiv(S, 32), B * H)
    attention_fwd_causal_kernel[grid](q, k, v, o, 1.0 / math.sqrt(D), S,
                                      q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                                      k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                                      v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                                      o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                                      H, BLOCK_M=32, BLOCK_N=16, HEAD_DIM=D)
    return o


def reference(q, k, v):
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    S = q.shape[-2]
    causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    s = s.masked_fill(~causal, float("-inf"))
    return (torch.softmax(s, dim=-1) @ v.float()).to(torch.float16)


def _inputs(B, H, S, D, device):
    return tuple(torch.randn(B, H, S, D, device=device, dtype=torch.float16) for _ in range(3))


def make_inputs(device):
    return _inputs(1, 2, 256, 32, device)


def make_small_inputs(device):
    return _inputs(2, 2, 67, 32, device)


def flops(q, k, v):
    B, H, S, D = q.shape
    return 2 * B * H * S * S * D  # two GEMMs of 2*S*S*D each, half of them masked out


def bytes_moved(q, k, v):
    return 4 * q.numel() * q.element_size()  # Q, K, V read once, O written once


# The outputs are averages of many values of V: at S = 2048 their std is about 0.04
# (non-causal), so the usual fp16 atol of 1e-2 would be a quarter of the signal. An fp32
# emulation of this kernel (P rounded to fp16 before the PV product) is within 1e-4
# (non-causal) and 1e-3 on the few large early rows (causal) of a float64 reference.
TOLERANCE = {"rtol": 1e-2, "atol": 1e-3}
