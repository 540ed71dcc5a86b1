"""Rotary position embedding (RoPE), GPT-NeoX half-split convention, applied to q of shape [8, 4096, 32, 128] fp16.

For each token s and head, with x1 = q[..., :D/2], x2 = q[..., D/2:] and tables cos, sin of shape
[S, D/2]: out[..., :D/2] = x1 * cos - x2 * sin, out[..., D/2:] = x2 * cos + x1 * sin (computed in
fp32, rounded once to fp16). Out of place: a new tensor is returned and q is left unchanged.

Provenance: a direct translation of `rotate_half` / `apply_rotary_pos_emb` (GPT-NeoX, Llama in
Hugging Face transformers) into Triton, one program per (batch, position, head) row, the way a
first draft maps "one vector of D" to one program.

Weaknesses: one program per 128-element head row (1,048,576 programs of 256 bytes each), so the
launch is dominated by per-program overhead and tiny memory transactions; each program reloads
the same cos/sin row for every head (32 times per position, served from cache but still loads
and address arithmetic); two half-row loads of 64 fp16 elements (128 bytes) each with masks on
every access; fixed block from the head size, default num_warps (4 warps = 128 threads for 64
elements, so every element is loaded by 2 threads and each thread moves a single 16-bit value
instead of a 128-bit vector), no autotuning; out of place, so it cannot save the write-allocate of an
in-place update that callers often want.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half,
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
    x1 = tl.load(q_row + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(q_row + half + offs, mask=mask, other=0.0).to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)

    o1 = x1 * cos - x2 * sin
    o2 = x2 * cos + x1 * sin
    tl.store(out_row + offs, o1.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_row + half + offs, o2.to(out_ptr.dtype.element_ty), mask=mask)


def launch(q, cos, sin):
    B, S, H, D = q.shape
    half = D // 2
    out = torch.empty_like(q)
    BLOCK = triton.next_power_of_2(half)
    rotary_kernel[(B * S * H,)](q, cos, sin, out, S, H, half,
                                q.stride(0), q.stride(1), q.stride(2),
                                out.stride(0), out.stride(1), out.stride(2), cos.stride(0),
                                BLOCK=BLOCK)
    return out


def reference(q, cos, sin):
    half = q.shape[-1] // 2
    x1 = q[..., :half].float()
    x2 = q[..., half:].float()
    c = cos.float()[None, :, None, :]
    s = sin.float()[None, :, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(q.dtype)


def _tables(S, D, device, dtype):
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, D, 2, device=device, dtype=torch.float32) / D))
    t = torch.arange(S, device=device, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)  # [S, D/2]
    return freqs.cos().to(dtype), freqs.sin().to(dtype)


def make_inputs(device):
    B, S, H, D = 8, 4096, 32, 128  # q: 268 MB in, 268 MB out
    q = torch.randn(B, S, H, D, device=device, dtype=torch.float16)
    cos, sin = _tables(S, D, device, torch.float16)
    return (q, cos, sin)


def make_small_inputs(device):
    B, S, H, D = 2, 9, 3, 40  # half = 20: not a power of two, exercises the mask
    q = torch.randn(B, S, H, D, device=device, dtype=torch.float16)
    cos, sin = _tables(S, D, device, torch.float16)
    return (q, cos, sin)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime half head dim, and a batch of one with one head
    def inputs(B, S, H, D):
        q = torch.randn(B, S, H, D, device=device, dtype=torch.float16)
        cos, sin = _tables(S, D, device, torch.float16)
        return (q, cos, sin)

    return [
        make_small_inputs(device),  # 2 x 9 x 3 x 40: half = 20 in a 32 block
        inputs(3, 7, 5, 74),  # half = 37 (prime) in a 64 block, 27 lanes masked; odd S and H
        inputs(1, 3, 1, 2),  # a batch of one, one head, the smallest head dim (one pair, a 1-wide block); 3 positions so sin != 0
    ]


def bytes_moved(q, cos, sin):
    return 2 * q.numel() * q.element_size() + (cos.numel() + sin.numel()) * cos.element_size()


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
