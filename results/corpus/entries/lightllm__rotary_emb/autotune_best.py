"""Rotary position embedding applied in place to q and k (LightLLM `rotary_emb_fwd`, Llama's half-split RoPE) for 16384 tokens of Llama-3-8B attention: q (16384, 32, 128), k (16384, 8, 128), fp16 (LightLLM's default data type).

Provenance: ModelTC/lightllm@fc72ffab9a3455cfb571f22d45ab777cc29de0de:lightllm/models/llama/triton_kernel/rotary_emb.py
(Apache-2.0; the file carries no copyright line, and the repository's LICENSE is the Apache License
2.0 text with its notice left unfilled). Copied verbatim: the kernel `_rotary_kernel` (a program per
block of 4 heads x 16 tokens, q and k both, computed in the input dtype) and the wrapper
`rotary_emb_fwd` (`@torch.no_grad()`, BLOCK_SEQ 16, BLOCK_HEAD 4, 8 warps for head_dim >= 128).
Left out: the file's `torch_rotary_emb` and `test_rotary_emb`. Nothing in the kernel or the wrapper
changed.

In place upstream: the wrapper overwrites q and k, and `launch` calls it as a model does. The task
names them in `MUTATES`, so the harness verifies `launch` on copies of q and k (their rotated
values are its outputs) and times the kernel on q and k themselves, putting them back between
calls outside the timed region (docs/task-format.md, "Kernels that update their inputs").

The launch: grid (cdiv(32, 4), cdiv(16384, 16)) = (8, 1024); the programs of a head block past
the 8 k heads mask their k part off.
"""
import torch

import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# lightllm/models/llama/triton_kernel/rotary_emb.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.jit
def _rotary_kernel(
    Q,
    K,
    Cos,
    Sin,
    stride_qbs,
    stride_qh,
    stride_qd,
    stride_kbs,
    stride_kh,
    stride_kd,
    stride_cosbs,
    stride_cosd,
    stride_sinbs,
    stride_sind,
    max_total_len,
    HEAD_Q,
    HEAD_K,  # N_CTX 代表要计算的上下文长度
    BLOCK_HEAD: tl.constexpr,
    BLOCK_SEQ: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
):
    cur_head_index = tl.program_id(0)
    cur_seq_index = tl.program_id(1)

    cur_head_range = cur_head_index * BLOCK_HEAD + tl.arange(0, BLOCK_HEAD)
    cur_seq_range = cur_seq_index * BLOCK_SEQ + tl.arange(0, BLOCK_SEQ)

    dim_range0 = tl.arange(0, BLOCK_DMODEL // 2)
    dim_range1 = tl.arange(BLOCK_DMODEL // 2, BLOCK_DMODEL)

    off_q0 = (
        cur_seq_range[:, None, None] * stride_qbs
        + cur_head_range[None, :, None] * stride_qh
        + dim_range0[None, None, :] * stride_qd
    )
    off_q1 = (
        cur_seq_range[:, None, None] * stride_qbs
        + cur_head_range[None, :, None] * stride_qh
        + dim_range1[None, None, :] * stride_qd
    )

    off_dimcos_sin = cur_seq_range[:, None, None] * stride_cosbs + dim_range0[None, None, :] * stride_cosd

    q0 = tl.load(
        Q + off_q0,
        mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_Q),
        other=0.0,
    )
    q1 = tl.load(
        Q + off_q1,
        mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_Q),
        other=0.0,
    )

    cos = tl.load(Cos + off_dimcos_sin, mask=cur_seq_range[:, None, None] < max_total_len, other=0.0)
    sin = tl.load(Sin + off_dimcos_sin, mask=cur_seq_range[:, None, None] < max_total_len, other=0.0)

    out0 = q0 * cos - q1 * sin
    out1 = q0 * sin + q1 * cos

    tl.store(
        Q + off_q0, out0, mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_Q)
    )
    tl.store(
        Q + off_q1, out1, mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_Q)
    )

    off_k0 = (
        cur_seq_range[:, None, None] * stride_kbs
        + cur_head_range[None, :, None] * stride_kh
        + dim_range0[None, None, :] * stride_kd
    )
    off_k1 = (
        cur_seq_range[:, None, None] * stride_kbs
        + cur_head_range[None, :, None] * stride_kh
        + dim_range1[None, None, :] * stride_kd
    )

    off_dimcos_sin = cur_seq_range[:, None, None] * stride_cosbs + dim_range0[None, None, :] * stride_cosd

    k0 = tl.load(
        K + off_k0,
        mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_K),
        other=0.0,
    )
    k1 = tl.load(
        K + off_k1,
        mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_K),
        other=0.0,
    )
    cos = tl.load(Cos + off_dimcos_sin, mask=cur_seq_range[:, None, None] < max_total_len, other=0.0)
    sin = tl.load(Sin + off_dimcos_sin, mask=cur_seq_range[:, None, None] < max_total_len, other=0.0)

    out_k0 = k0 * cos - k1 * sin
    out_k1 = k0 * sin + k1 * cos

    tl.store(
        K + off_k0,
        out_k0,
        mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_K),
    )
    tl.store(
        K + off_k1,
        out_k1,
        mask=(cur_seq_range[:, None, None] < max_total_len) & (cur_head_range[None, :, None] < HEAD_K),
    )
    return


@torch.no_grad()
def rotary_emb_fwd(q, k, cos, sin, partial_rotary_factor=1.):
    total_len = q.shape[0]
    head_num_q, head_num_k = q.shape[1], k.shape[1]
    head_dim = int(q.shape[2] * partial_rotary_factor)
    assert q.shape[0] == cos.shape[0] and q.shape[0] == sin.shape[0], f"q shape {q.shape} cos shape {cos.shape}"
    assert k.shape[0] == cos.shape[0] and k.shape[0] == sin.shape[0], f"k shape {k.shape} cos shape {cos.shape}"

    BLOCK_SEQ = 32
    BLOCK_HEAD = 4
    if head_dim >= 128:
        num_warps = 8
    else:
        num_warps = 4

    grid = (triton.cdiv(head_num_q, BLOCK_HEAD), triton.cdiv(total_len, BLOCK_SEQ))
    _rotary_kernel[grid](
        q,
        k,
        cos,
        sin,
        q.stride(0),
        q.stride(1),
        q.stride(2),
        k.stride(0),
        k.stride(1),
        k.stride(2),
        cos.stride(0),
        cos.stride(1),
        sin.stride(0),
        sin.stride(1),
        total_len,
        head_num_q,
        head_num_k,
        BLOCK_HEAD=BLOCK_HEAD,
        BLOCK_SEQ=BLOCK_SEQ,
        BLOCK_DMODEL=head_dim,
        num_warps=num_warps,
        num_stages=3,
    )
    return


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


MUTATES = ("q", "k")


def launch(q, k, cos, sin):
    rotary_emb_fwd(q, k, cos, sin)


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x0, x1 = x[..., :half].float(), x[..., half:].float()
    c, s = cos.float()[:, None, :], sin.float()[:, None, :]
    return torch.cat((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).to(x.dtype)


def reference(q, k, cos, sin):
    return _rotate(q, cos, sin), _rotate(k, cos, sin)


def _inputs(device, tokens, heads_q, heads_k, head_dim):
    q = torch.randn(tokens, heads_q, head_dim, device=device, dtype=torch.float16)
    k = torch.randn(tokens, heads_k, head_dim, device=device, dtype=torch.float16)
    inv_freq = 1.0 / (500000.0 ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    position = torch.arange(tokens, device=device, dtype=torch.float32) % 8192  # positions within the requests
    freqs = torch.outer(position, inv_freq)
    return (q, k, freqs.cos().to(torch.float16), freqs.sin().to(torch.float16))


def make_inputs(device):
    return _inputs(device, 16384, 32, 8, 128)  # q: 134 MB, k: 34 MB, each read and written


def make_small_inputs(device):
    return _inputs(device, 37, 6, 2, 32)  # a partial token block, a partial head block


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            # 53 tokens (the last 16-token block 5), 5 q and 5 k heads: both cross into a partial second head block
            _inputs(device, 53, 5, 5, 64),
            # one token of one q and one k head (head_dim must be a power of two); at position 7, not 0, so that
            # cos and sin are not the identity
            tuple(t[-1:].clone() for t in _inputs(device, 8, 1, 1, 16))]


def bytes_moved(q, k, cos, sin):
    return 2 * (q.numel() + k.numel()) * q.element_size() + (cos.numel() + sin.numel()) * cos.element_size()


def flops(q, k, cos, sin):
    return 3 * (q.numel() + k.numel())  # two products and a sum per element


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
