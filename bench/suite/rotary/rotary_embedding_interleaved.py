"""Rotary position embedding (RoPE), GPT-J interleaved convention, applied to q of shape [8, 4096, 32, 128] bf16.

Pairs are adjacent elements: for i < D/2, with x0 = q[..., 2i], x1 = q[..., 2i+1] and tables cos,
sin of shape [S, D/2]: out[..., 2i] = x0 * cos[s, i] - x1 * sin[s, i] and
out[..., 2i+1] = x1 * cos[s, i] + x0 * sin[s, i] (computed in fp32, rounded once to bf16).
Out of place: a new tensor is returned and q is left unchanged.

Provenance: a direct translation of GPT-J's `rotate_every_two` / `apply_rotary_pos_emb`
(Hugging Face transformers, Mesh Transformer JAX) into Triton: one program per (batch, position,
head) row, the even and odd elements loaded with stride-2 pointers.

Weaknesses: one program per 128-element head row (1,048,576 programs of 256 bytes each), so
per-program overhead dominates; even and odd elements are loaded and stored through stride-2
pointers, i.e. scalar 16-bit accesses that each touch the same sectors twice, where one
contiguous load of the row and a register-level split of the pairs would do; each program reloads
the cos/sin row for every head (32 times per position); default num_warps (128 threads for 64
pairs, so elements are duplicated across threads); masks on every access; no autotuning.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def rotary_interleaved_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half,
                              stride_qb, stride_qs, stride_qh, stride_ob, stride_os, stride_oh, stride_cs,
                              BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    h = pid % H
    s = (pid // H) % S
    b = pid // (H * S)
    offs = tl.arange(0, BLOCK)
    mask = offs < half

    q_row = q_ptr + b * stride_qb + s * stride_qs + h * stride_qh
    out_row = out_ptr + b * stride_ob + s * stride_os + h * stride_oh
    x0 = tl.load(q_row + 2 * offs, mask=mask, other=0.0).to(tl.float32)
    x1 = tl.load(q_row + 2 * offs + 1, mask=mask, other=0.0).to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)

    o0 = x0 * cos - x1 * sin
    o1 = x1 * cos + x0 * sin
    tl.store(out_row + 2 * offs, o0.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_row + 2 * offs + 1, o1.to(out_ptr.dtype.element_ty), mask=mask)


def launch(q, cos, sin):
    B, S, H, D = q.shape
    half = D // 2
    out = torch.empty_like(q)
    BLOCK = triton.next_power_of_2(half)
    rotary_interleaved_kernel[(B * S * H,)](q, cos, sin, out, S, H, half,
                                            q.stride(0), q.stride(1), q.stride(2),
                                            out.stride(0), out.stride(1), out.stride(2), cos.stride(0),
                                            BLOCK=BLOCK)
    return out


def reference(q, cos, sin):
    x0 = q[..., 0::2].float()
    x1 = q[..., 1::2].float()
    c = cos.float()[None, :, None, :]
    s = sin.float()[None, :, None, :]
    out = torch.stack([x0 * c - x1 * s, x1 * c + x0 * s], dim=-1)  # [..., D/2, 2]
    return out.flatten(-2).to(q.dtype)


def _tables(S, D, device, dtype):
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, D, 2, device=device, dtype=torch.float32) / D))
    t = torch.arange(S, device=device, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)  # [S, D/2]
    return freqs.cos().to(dtype), freqs.sin().to(dtype)


def make_inputs(device):
    B, S, H, D = 8, 4096, 32, 128  # q: 268 MB in, 268 MB out
    q = torch.randn(B, S, H, D, device=device, dtype=torch.bfloat16)
    cos, sin = _tables(S, D, device, torch.bfloat16)
    return (q, cos, sin)


def make_small_inputs(device):
    B, S, H, D = 2, 9, 3, 40  # 20 pairs: not a power of two, exercises the mask
    q = torch.randn(B, S, H, D, device=device, dtype=torch.bfloat16)
    cos, sin = _tables(S, D, device, torch.bfloat16)
    return (q, cos, sin)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime number of pairs, and a batch of one with one head
    def inputs(B, S, H, D):
        q = torch.randn(B, S, H, D, device=device, dtype=torch.bfloat16)
        cos, sin = _tables(S, D, device, torch.bfloat16)
        return (q, cos, sin)

    return [
        make_small_inputs(device),  # 2 x 9 x 3 x 40: 20 pairs in a 32 block
        inputs(3, 7, 5, 74),  # 37 pairs (prime) in a 64 block, 27 lanes masked; odd S and H
        inputs(1, 3, 1, 2),  # a batch of one, one head, the smallest head dim (one pair, a 1-wide block); 3 positions so sin != 0
    ]


def bytes_moved(q, cos, sin):
    return 2 * q.numel() * q.element_size() + (cos.numel() + sin.numel()) * cos.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
