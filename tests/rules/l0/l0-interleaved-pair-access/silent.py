"""l0-interleaved-pair-access stays silent: half-split (NeoX) RoPE reads two contiguous halves, and
a stride-2 gather whose odd partner comes from another tensor is no pair of one row."""
import torch
import triton
import triton.language as tl


@triton.jit
def rope_half_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, other_ptr, S, H, half, stride_qs, stride_qh, stride_cs,
                     BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    h = pid % H
    s = pid // H
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    row = s * stride_qs + h * stride_qh
    x1 = tl.load(q_ptr + row + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(q_ptr + row + half + offs, mask=mask, other=0.0).to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row + offs, (x1 * cos - x2 * sin).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + row + half + offs, (x2 * cos + x1 * sin).to(out_ptr.dtype.element_ty), mask=mask)
    even = tl.load(q_ptr + row + 2 * offs, mask=offs < half // 2, other=0.0)
    odd = tl.load(cos_ptr + s * stride_cs + 2 * offs + 1, mask=offs < half // 2, other=0.0)
    tl.store(other_ptr + pid * BLOCK + offs, even + odd, mask=offs < half // 2)


def launch(q, cos, sin):
    S, H, D = q.shape
    out = torch.empty_like(q)
    other = torch.empty((S * H, triton.next_power_of_2(D // 2)), device=q.device, dtype=q.dtype)
    rope_half_kernel[(S * H,)](q, cos, sin, out, other, S, H, D // 2, q.stride(0), q.stride(1), cos.stride(0),
                               BLOCK=triton.next_power_of_2(D // 2))
    return out


def reference(q, cos, sin):
    half = q.shape[-1] // 2
    x1, x2 = q[..., :half].float(), q[..., half:].float()
    c, s = cos.float()[:, None, :], sin.float()[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(q.dtype)


def make_inputs(device):
    S, H, D = 256, 8, 128
    angles = torch.rand(S, D // 2, device=device)
    return (torch.randn(S, H, D, device=device, dtype=torch.float16), angles.cos().half(), angles.sin().half())
